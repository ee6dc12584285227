#include "protocol/inspect_json.h"

#include <stdlib.h>

#include "protocol/json_out.h"

/* Positions to 1/100 u: what a screen can show, and a short message. */
static void pair(jbuf_t *b, float x, float y) { jb_printf(b, "[%.2f,%.2f]", (double)x, (double)y); }

char *msg_inspect(uint64_t tick, const inspect_t *in)
{
    static const char *const zone[3] = {"separation", "alignment", "cohesion"};
    jbuf_t b;
    jb_init_growing(&b);
    jb_printf(&b, "{\"type\":\"inspect\",\"tick\":%llu,\"agent\":", (unsigned long long)tick);
    if (!in) {
        jb_raw(&b, "null}");
    } else {
        jb_printf(&b, "{\"id\":%u,\"x\":%.2f,\"y\":%.2f,\"vx\":%.2f,\"vy\":%.2f,\"flags\":%u}", (unsigned)in->id,
                  (double)in->x, (double)in->y, (double)in->vx, (double)in->vy, (unsigned)in->flags);
        jb_raw(&b, ",\"neighbours\":{");
        for (int z = 0; z < 3; z++) {
            jb_printf(&b, "%s\"%s\":[", z ? "," : "", zone[z]);
            for (size_t k = 0; k < in->listed[z]; k++) {
                if (k) jb_raw(&b, ",");
                pair(&b, in->pos[z][k][0], in->pos[z][k][1]);
            }
            jb_raw(&b, "]");
        }
        jb_printf(&b, "},\"counts\":{\"separation\":%zu,\"alignment\":%zu,\"cohesion\":%zu}", in->count[0], in->count[1],
                  in->count[2]);
        if (in->has_steering) {
            jb_raw(&b, ",\"steering\":{");
            static const char *const rule[INSPECT_RULES] = {"separation", "alignment", "cohesion", "target"};
            for (int r = 0; r < INSPECT_RULES; r++) {
                jb_printf(&b, "%s\"%s\":", r ? "," : "", rule[r]);
                pair(&b, in->steer[r][0], in->steer[r][1]);
            }
            jb_raw(&b, "}");
        } else {
            jb_raw(&b, ",\"steering\":null");
        }
        jb_printf(&b, ",\"radii\":{\"sep\":%.2f,\"ali\":%.2f,\"coh\":%.2f}", (double)in->radius[0], (double)in->radius[1],
                  (double)in->radius[2]);
        jb_printf(&b, ",\"fov\":{\"sep\":%.1f,\"ali\":%.1f,\"coh\":%.1f}", (double)in->fov[0], (double)in->fov[1],
                  (double)in->fov[2]);
        jb_printf(&b, ",\"steer_every\":%u,\"steers_in\":%u", (unsigned)in->steer_every, (unsigned)in->steers_in);
        jb_raw(&b, "}");
    }
    if (b.failed) {
        jb_free(&b);
        return NULL;
    }
    jb_raw(&b, "");
    return b.buf;
}
