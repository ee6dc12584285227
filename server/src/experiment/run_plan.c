#include "experiment/run_plan.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/utf8.h"
#include "sim/prng.h"

#define MAX_RUNS 100000000u

static uint64_t value_bits(double v)
{
    if (v == 0) v = 0; /* -0 and 0 are one value */
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}

uint32_t run_seed(const experiment_t *e, const design_t *d, size_t point, uint32_t replicate)
{
    uint64_t h = prng_mix(e->master_seed + 0x9e3779b97f4a7c15ull);
    for (size_t j = 0; j < e->n_factors; j++)
        if ((int)j != e->swept) h = prng_mix(h ^ value_bits(design_value(d, point, j)));
    h = prng_mix(h ^ (0x5265706cull << 32 | replicate));
    return (uint32_t)(h >> 32);
}

/* FNV-1a over the run's description: plain, and the same on every machine. */
typedef struct {
    uint64_t h;
} id_hash_t;

static void hash_text(id_hash_t *s, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        s->h ^= *p;
        s->h *= 0x100000001b3ull;
    }
}

static void hash_f(id_hash_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void hash_f(id_hash_t *s, const char *fmt, ...)
{
    char buf[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    hash_text(s, buf);
}

static uint64_t run_id(const experiment_t *e, const design_t *d, size_t point, uint32_t seed)
{
    id_hash_t s = {0xcbf29ce484222325ull};
    hash_text(&s, "swarmcast run 1\n");
    hash_text(&s, e->scenario_json);
    char v[64];
    for (size_t j = 0; j < e->n_factors; j++) {
        const factor_t *f = &e->factors[j];
        hash_f(&s, "\n%s=", f->name);
        if ((int)j == e->swept) {
            for (size_t k = 0; k < f->n_values; k++) {
                factor_value_format(f, f->values[k], v, sizeof v);
                hash_f(&s, "%s%s", k ? ";" : "sweep:", v);
            }
        } else {
            factor_value_format(f, design_value(d, point, j), v, sizeof v);
            hash_text(&s, v);
        }
    }
    hash_f(&s, "\nseed=%" PRIu32 "\nsteps=%" PRIu64 "\nwarmup=%" PRIu64 "\nrecord_every=%" PRIu64 "\nmetrics=", seed,
           e->steps, e->warmup, e->record_every);
    for (int m = 0; m < METRIC_COUNT; m++)
        if (e->metrics[m]) hash_f(&s, "%s,", metric_name((metric_id_t)m));
    if (e->has_stop) hash_f(&s, "\nstop=%s%s%.17g", metric_name(e->stop_metric), e->stop_above ? ">" : "<", e->stop_value);
    return s.h;
}

void run_id_text(uint64_t id, char out[17])
{
    snprintf(out, 17, "%016" PRIx64, id);
}

int run_plan_make(const experiment_t *e, run_plan_t *plan, char *msg, size_t msg_len)
{
    memset(plan, 0, sizeof *plan);
    if (design_expand(e, &plan->design, msg, msg_len)) return -1;
    size_t points = plan->design.n_points;
    if (points > MAX_RUNS / e->replicates) {
        run_plan_free(plan);
        return text_fail(msg, msg_len, "replicates: %zu points × %" PRIu32 " replicates is more than %u runs", points,
                         e->replicates, MAX_RUNS);
    }
    plan->n_runs = points * e->replicates;
    if (!(plan->runs = malloc(plan->n_runs * sizeof *plan->runs))) {
        run_plan_free(plan);
        return text_fail(msg, msg_len, "out of memory");
    }
    for (size_t p = 0, i = 0; p < points; p++)
        for (uint32_t r = 0; r < e->replicates; r++, i++) {
            planned_run_t *run = &plan->runs[i];
            run->point = p;
            run->replicate = r;
            run->seed = run_seed(e, &plan->design, p, r);
            run->id = run_id(e, &plan->design, p, run->seed);
        }
    return 0;
}

void run_plan_free(run_plan_t *plan)
{
    design_free(&plan->design);
    free(plan->runs);
    memset(plan, 0, sizeof *plan);
}

int run_plan_write_csv(const experiment_t *e, const run_plan_t *plan, FILE *out)
{
    fputs("run_id,point,replicate,seed", out);
    for (size_t j = 0; j < e->n_factors; j++) fprintf(out, ",%s", e->factors[j].name);
    fputc('\n', out);
    char id[17], v[64];
    for (size_t i = 0; i < plan->n_runs; i++) {
        const planned_run_t *run = &plan->runs[i];
        run_id_text(run->id, id);
        fprintf(out, "%s,%zu,%" PRIu32 ",%" PRIu32, id, run->point, run->replicate, run->seed);
        for (size_t j = 0; j < e->n_factors; j++) {
            const factor_t *f = &e->factors[j];
            fputc(',', out);
            if ((int)j == e->swept) {
                for (size_t k = 0; k < f->n_values; k++) {
                    factor_value_format(f, f->values[k], v, sizeof v);
                    fprintf(out, "%s%s", k ? ";" : "", v);
                }
            } else {
                factor_value_format(f, design_value(&plan->design, run->point, j), v, sizeof v);
                fputs(v, out);
            }
        }
        fputc('\n', out);
    }
    return ferror(out) ? -1 : 0;
}
