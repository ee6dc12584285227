#include "experiment/run_one.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/utf8.h"
#include "sim/commands.h"
#include "sim/metrics.h"
#include "sim/params.h"
#include "world_setup.h"

/* One run's rows stay in memory until the run ends (then they go to the
 * journal): past this, the run fails and asks for a coarser record_every. */
#define MAX_RUN_BYTES (256u << 20)

static void out_addf(run_output_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_addf(run_output_t *o, const char *fmt, ...)
{
    if (o->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(o->text ? o->text + o->len : NULL, o->text ? o->cap - o->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            o->failed = true;
            text_fail(o->message, sizeof o->message, "cannot format a row");
            return;
        }
        if (o->text && o->len + (size_t)n < o->cap) {
            o->len += (size_t)n;
            return;
        }
        size_t want = o->cap ? o->cap * 2 : 4096;
        while (want < o->len + (size_t)n + 1) want *= 2;
        char *grown = want <= MAX_RUN_BYTES ? realloc(o->text, want) : NULL;
        if (!grown) {
            o->failed = true;
            text_fail(o->message, sizeof o->message, "%s",
                      want > MAX_RUN_BYTES ? "more than 256 MB of rows: record less often (record_every)"
                                           : "out of memory");
            return;
        }
        o->text = grown;
        o->cap = want;
    }
}

static double metric_value(const metrics_t *m, metric_id_t id)
{
    switch (id) {
    case METRIC_POLARIZATION: return m->polarization;
    case METRIC_MILLING: return m->milling;
    case METRIC_MEAN_NN_DISTANCE: return m->mean_nn_distance;
    case METRIC_CLUSTERS: return m->clusters;
    case METRIC_LARGEST_CLUSTER: return m->largest_cluster;
    case METRIC_COLLISIONS: return m->collisions;
    case METRIC_PENETRATIONS: return m->penetrations;
    case METRIC_MIN_CLEARANCE: return m->min_clearance;
    case METRIC_OSCILLATION: return m->oscillation;
    default: return NAN;
    }
}

int run_rows_header(const experiment_t *e, FILE *f)
{
    fputs("run_id,point,replicate,seed", f);
    for (size_t j = 0; j < e->n_factors; j++) fprintf(f, ",%s", e->factors[j].name);
    fputs(",stage,tick", f);
    for (int m = 0; m < METRIC_COUNT; m++)
        if (e->metrics[m]) fprintf(f, ",%s", metric_name((metric_id_t)m));
    fputc('\n', f);
    return ferror(f) ? -1 : 0;
}

/* The value factor j takes in stage `stage` of the run. */
static double factor_at(const experiment_t *e, const run_plan_t *plan, size_t index, size_t j, size_t stage)
{
    if ((int)j == e->swept) return e->factors[j].values[stage];
    return design_value(&plan->design, plan->runs[index].point, j);
}

/* The flags a person would type for this run, as a configuration. */
static bool run_config(const experiment_t *e, const run_plan_t *plan, size_t index, const config_t *base,
                       config_t *cfg, run_output_t *out)
{
    *cfg = *base;
    cfg->seed = plan->runs[index].seed;
    cfg->seed_given = true;
    cfg->steps = e->steps;
    cfg->steps_given = true;
    cfg->threads = 1; /* runs go side by side, one per core */
    for (size_t j = 0; j < e->n_factors; j++) {
        const factor_t *f = &e->factors[j];
        double v = factor_at(e, plan, index, j, 0);
        if (f->param == EXPERIMENT_FACTOR_AGENTS) {
            cfg->agents = (size_t)v;
            cfg->agents_given = true;
        } else if (cfg->n_sets < CONFIG_MAX_SETS) {
            cfg->sets[cfg->n_sets].param = f->param;
            cfg->sets[cfg->n_sets].value = v;
            cfg->n_sets++;
        } else {
            text_fail(out->message, sizeof out->message, "more than %d parameters set", CONFIG_MAX_SETS);
            return false;
        }
    }
    return true;
}

static void row(const experiment_t *e, const run_plan_t *plan, size_t index, size_t stage, const metrics_t *m,
                run_output_t *out)
{
    const planned_run_t *r = &plan->runs[index];
    char id[17], v[64];
    run_id_text(r->id, id);
    out_addf(out, "%s,%zu,%" PRIu32 ",%" PRIu32, id, r->point, r->replicate, r->seed);
    for (size_t j = 0; j < e->n_factors; j++) {
        factor_value_format(&e->factors[j], factor_at(e, plan, index, j, stage), v, sizeof v);
        out_addf(out, ",%s", v);
    }
    out_addf(out, ",%zu,%" PRIu64, stage, m->tick);
    for (int k = 0; k < METRIC_COUNT; k++) {
        if (!e->metrics[k]) continue;
        double x = metric_value(m, (metric_id_t)k);
        /* as the headless CSV writes them: %.9g, an empty field for NAN */
        if (isfinite(x))
            out_addf(out, ",%.9g", x);
        else
            out_addf(out, ",");
    }
    out_addf(out, "\n");
    out->rows++;
}

static bool stop_met(const experiment_t *e, const metrics_t *m)
{
    if (!e->has_stop) return false;
    double x = metric_value(m, e->stop_metric);
    return e->stop_above ? x > e->stop_value : x < e->stop_value;
}

bool run_one(const experiment_t *e, const run_plan_t *plan, size_t index, const config_t *base, run_output_t *out)
{
    memset(out, 0, sizeof *out);
    config_t cfg;
    world_t world;
    uint64_t steps; /* e->steps: the flag wins over the scenario's */
    if (!run_config(e, plan, index, base, &cfg, out) ||
        world_setup(&cfg, &world, &steps, out->message, sizeof out->message) != SETUP_OK) {
        out->failed = true;
        return false;
    }
    metrics_state_t ms;
    metrics_init(&ms);
    size_t stages = e->swept >= 0 ? e->factors[e->swept].n_values : 1;
    bool stopped = false;
    for (size_t stage = 0; stage < stages && !stopped && !out->failed; stage++) {
        if (stage > 0) { /* the next value of the path, the world carried over */
            sim_cmd_t set = {.kind = CMD_SET_PARAM, .request_id = -1, .param = e->factors[e->swept].param,
                             .value = e->factors[e->swept].values[stage]};
            sim_result_t res;
            sim_apply(&world, &set, &res);
            if (res.status != SIM_OK) {
                text_fail(out->message, sizeof out->message, "stage %zu: %s", stage, res.message);
                out->failed = true;
                break;
            }
        }
        for (uint64_t k = 1; k <= e->steps && !stopped && !out->failed; k++) {
            world_step(&world);
            bool record = k == e->steps || (k > e->warmup && e->record_every && k % e->record_every == 0);
            if (!record) continue;
            metrics_config_t mc = metrics_default_config(&world);
            metrics_t m;
            if (metrics_compute(&ms, &world, &mc, &m)) {
                text_fail(out->message, sizeof out->message, "out of memory computing metrics");
                out->failed = true;
                break;
            }
            row(e, plan, index, stage, &m, out);
            stopped = stop_met(e, &m);
        }
    }
    metrics_free(&ms);
    world_free(&world);
    return !out->failed;
}

void run_output_free(run_output_t *out)
{
    free(out->text);
    memset(out, 0, sizeof *out);
}

void run_command_line(const experiment_t *e, const run_plan_t *plan, size_t index, const char *scenario_path,
                      char *out, size_t out_len)
{
    text_t t;
    text_init(&t, out, out_len);
    text_addf(&t, "swarmcast --headless --scenario %s --seed %" PRIu32 " --steps %" PRIu64 " --threads 1", scenario_path,
              plan->runs[index].seed, e->steps);
    char v[64];
    for (size_t j = 0; j < e->n_factors; j++) {
        const factor_t *f = &e->factors[j];
        factor_value_format(f, factor_at(e, plan, index, j, 0), v, sizeof v);
        if (f->param == EXPERIMENT_FACTOR_AGENTS)
            text_addf(&t, " --agents %s", v);
        else
            text_addf(&t, " --set %s=%s", f->name, v);
    }
}
