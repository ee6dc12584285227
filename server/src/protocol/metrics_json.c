#include "protocol/metrics_json.h"

#include <math.h>
#include <stdlib.h>

#include "protocol/json_out.h"

/* Six significant digits: what a panel shows, at a third of the bytes of a
 * round-trip double. NAN (and infinity) as null. */
static void put_real(jbuf_t *b, const char *name, double v)
{
    if (isfinite(v))
        jb_printf(b, ",\"%s\":%.6g", name, v);
    else
        jb_printf(b, ",\"%s\":null", name);
}

static char *metrics_message(const metrics_t *m, bool past)
{
    jbuf_t b;
    jb_init_growing(&b);
    jb_printf(&b, "{\"type\":\"metrics\",%s\"tick\":%llu,\"agents\":%zu", past ? "\"past\":true," : "",
              (unsigned long long)m->tick, m->agents);
    put_real(&b, "polarization", m->polarization);
    put_real(&b, "milling", m->milling);
    put_real(&b, "mean_nn_distance", m->mean_nn_distance);
    /* Too crowded to count pairs within the time allowed: not known. */
    if (m->pairs_skipped)
        jb_raw(&b, ",\"clusters\":null,\"largest_cluster\":null,\"collisions\":null");
    else
        jb_printf(&b, ",\"clusters\":%lu,\"largest_cluster\":%lu,\"collisions\":%lu", (unsigned long)m->clusters,
                  (unsigned long)m->largest_cluster, (unsigned long)m->collisions);
    jb_printf(&b, ",\"penetrations\":%lu", (unsigned long)m->penetrations);
    put_real(&b, "min_clearance", m->min_clearance);
    put_real(&b, "oscillation", m->oscillation);
    jb_raw(&b, "}");
    if (b.failed) {
        jb_free(&b);
        return NULL;
    }
    return b.buf; /* malloc'd by the growing buffer */
}

char *msg_metrics(const metrics_t *m)
{
    return metrics_message(m, false);
}

char *msg_metrics_past(const metrics_t *m)
{
    return metrics_message(m, true);
}
