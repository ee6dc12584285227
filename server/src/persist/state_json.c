#include "persist/state_json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/json_out.h"

/* %.9g reads back as the same float; JSON has no NaN or infinity. */
static void put_f(FILE *f, float v)
{
    if (isfinite(v))
        fprintf(f, "%.9g", (double)v);
    else
        fputs("null", f);
}

/* ,"name":value — every number after an object's first field. */
static void put_field(FILE *f, const char *name, float v)
{
    fprintf(f, ",\"%s\":", name);
    put_f(f, v);
}

static void put_param(FILE *f, const param_desc_t *d, double v)
{
    switch (d->type) {
    case PARAM_BOOL:
        fputs(v != 0 ? "true" : "false", f);
        break;
    case PARAM_ENUM: {
        jbuf_t b;
        jb_init_growing(&b);
        jb_string(&b, v >= 0 && v <= d->max ? d->enum_names[(int)v] : "");
        fputs(b.buf ? b.buf : "\"\"", f);
        jb_free(&b);
        break;
    }
    case PARAM_FLOAT:
    case PARAM_INT: {
        char num[JSON_NUM_MAX];
        json_double(num, v);
        fputs(num, f);
        break;
    }
    }
}

int state_json_write(FILE *f, const world_t *w)
{
    /* The state is kept in grid-cell order; ids give id order. */
    uint32_t *at = malloc((w->n ? w->n : 1) * sizeof *at);
    if (!at) return -1;
    for (size_t k = 0; k < w->n; k++) at[k] = (uint32_t)k;
    for (size_t k = 0; k < w->n; k++)
        if (w->cur.id[k] < w->n) at[w->cur.id[k]] = (uint32_t)k;

    fprintf(f, "{\"tick\":%llu,\"seed\":%lu,\n\"params\":{", (unsigned long long)w->tick, (unsigned long)w->seed);
    for (size_t i = 0; i < params_count(); i++) {
        const param_desc_t *d = params_desc(i);
        fprintf(f, "%s\"%s\":", i ? "," : "", d->name);
        put_param(f, d, params_get(&w->params, i));
    }
    fputs("},\n\"agents\":[", f);
    const agents_t *a = &w->cur;
    for (size_t id = 0; id < w->n; id++) {
        size_t k = at[id];
        fprintf(f, "%s\n{\"id\":%zu", id ? "," : "", id);
        put_field(f, "x", a->x[k]);
        put_field(f, "y", a->y[k]);
        put_field(f, "vx", a->vx[k]);
        put_field(f, "vy", a->vy[k]);
        fprintf(f, ",\"flags\":%u}", (unsigned)a->flags[k]);
    }
    free(at);
    fputs("],\n\"obstacles\":[", f);
    for (size_t i = 0; i < w->n_obstacles; i++) {
        const obstacle_t *o = &w->obstacles[i];
        fprintf(f, "%s{\"id\":%lu", i ? "," : "", (unsigned long)o->id);
        put_field(f, "x", o->x);
        put_field(f, "y", o->y);
        put_field(f, "radius", o->r);
        put_field(f, "vx", o->vx);
        put_field(f, "vy", o->vy);
        /* Only a visitor's: the files of worlds without visitors stay as they were. */
        if (o->owner) fprintf(f, ",\"owner\":%lu", (unsigned long)o->owner);
        fputs("}", f);
    }
    fputs("],\n\"targets\":[", f);
    for (size_t i = 0; i < w->n_targets; i++) {
        const target_t *t = &w->targets[i];
        fprintf(f, "%s{\"client_id\":%lu", i ? "," : "", (unsigned long)t->client_id);
        put_field(f, "x", t->x);
        put_field(f, "y", t->y);
        fputs("}", f);
    }
    fputs("],\n\"predators\":[", f);
    for (size_t i = 0; i < w->n_predators; i++) {
        const predator_t *p = &w->predators[i];
        fprintf(f, "%s{\"x\":", i ? "," : "");
        put_f(f, p->x);
        put_field(f, "y", p->y);
        put_field(f, "vx", p->vx);
        put_field(f, "vy", p->vy);
        fputs("}", f);
    }
    fputs("]}\n", f);
    return ferror(f) ? -1 : 0;
}

int state_json_write_file(const char *path, const world_t *w)
{
    bool to_stdout = strcmp(path, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(path, "w");
    if (!f) {
        fprintf(stderr, "swarmcast: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    int rc = state_json_write(f, w);
    int saved = errno;
    if (to_stdout ? fflush(f) : fclose(f)) rc = -1, saved = errno;
    if (rc) fprintf(stderr, "swarmcast: cannot write %s: %s\n", path, saved ? strerror(saved) : "out of memory");
    return rc;
}
