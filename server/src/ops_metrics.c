#include "ops_metrics.h"

#include "protocol/json_out.h"
#include "protocol/wire_errors.h"

/* The protocol's codes, then one for any other (a code no table names). */
static const char *error_name(size_t k) { return k < WIRE_ERROR_CODES ? wire_error_code(k) : "other"; }

/* Upper bounds of the step-time buckets, in seconds: a 60 Hz tick is 16.7 ms. */
static const double step_bounds[OPS_STEP_BUCKETS] = {0.0005, 0.001, 0.002, 0.004, 0.008,
                                                     0.0167, 0.0333, 0.1,   0.5,   2.0};

void ops_observe_step(sim_counters_t *c, double seconds)
{
    size_t b = 0;
    while (b < OPS_STEP_BUCKETS && seconds > step_bounds[b]) b++;
    c->step_buckets[b]++;
    c->step_seconds += seconds;
    c->steps++;
}

void ops_count_error(uint64_t errors[OPS_ERROR_CODES], const char *code)
{
    int k = wire_error_index(code);
    errors[k < 0 ? WIRE_ERROR_CODES : (size_t)k]++;
}

static const char *kind_name(size_t k) { return k == OPS_CMD_AUTH ? "auth" : cmd_name((cmd_kind_t)k); }

static void head(jbuf_t *b, const char *name, const char *type, const char *help)
{
    jb_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void by_kind(jbuf_t *b, const char *name, const char *help, const uint64_t v[OPS_CMD_KINDS])
{
    head(b, name, "counter", help);
    for (size_t k = 0; k < OPS_CMD_KINDS; k++)
        jb_printf(b, "%s{cmd=\"%s\"} %llu\n", name, kind_name(k), (unsigned long long)v[k]);
}

char *ops_metrics_text(const sim_counters_t *s, const loop_counters_t *l, const ops_gauges_t *g)
{
    jbuf_t b;
    jb_init_growing(&b);
    head(&b, "swarmcast_agents", "gauge", "agents in the world");
    jb_printf(&b, "swarmcast_agents %zu\n", g->agents);
    head(&b, "swarmcast_max_agents", "gauge", "population limit");
    jb_printf(&b, "swarmcast_max_agents %zu\n", g->max_agents);
    head(&b, "swarmcast_paused", "gauge", "1 while the simulation is paused");
    jb_printf(&b, "swarmcast_paused %d\n", g->paused ? 1 : 0);
    head(&b, "swarmcast_tick", "gauge", "the world's tick");
    jb_printf(&b, "swarmcast_tick %llu\n", (unsigned long long)g->tick);
    head(&b, "swarmcast_uptime_seconds", "gauge", "seconds since start");
    jb_printf(&b, "swarmcast_uptime_seconds %.1f\n", g->uptime_s);
    head(&b, "swarmcast_seconds_since_last_tick", "gauge", "how long ago the simulation loop last ran a tick");
    jb_printf(&b, "swarmcast_seconds_since_last_tick %.3f\n", g->since_last_tick_s);

    head(&b, "swarmcast_ticks_total", "counter", "ticks run (paused ones included)");
    jb_printf(&b, "swarmcast_ticks_total %llu\n", (unsigned long long)s->ticks);
    head(&b, "swarmcast_tick_overruns_total", "counter", "ticks skipped because the loop fell behind");
    jb_printf(&b, "swarmcast_tick_overruns_total %llu\n", (unsigned long long)s->overruns);
    head(&b, "swarmcast_snapshots_encoded_total", "counter", "snapshot frames encoded (once for all viewers)");
    jb_printf(&b, "swarmcast_snapshots_encoded_total %llu\n", (unsigned long long)s->snapshots);
    head(&b, "swarmcast_step_seconds", "histogram", "time of one world step");
    uint64_t cumulative = 0;
    for (size_t k = 0; k < OPS_STEP_BUCKETS; k++) {
        cumulative += s->step_buckets[k];
        jb_printf(&b, "swarmcast_step_seconds_bucket{le=\"%g\"} %llu\n", step_bounds[k], (unsigned long long)cumulative);
    }
    cumulative += s->step_buckets[OPS_STEP_BUCKETS];
    jb_printf(&b, "swarmcast_step_seconds_bucket{le=\"+Inf\"} %llu\n", (unsigned long long)cumulative);
    jb_printf(&b, "swarmcast_step_seconds_sum %.6f\nswarmcast_step_seconds_count %llu\n", s->step_seconds,
              (unsigned long long)s->steps);

    by_kind(&b, "swarmcast_commands_received_total", "commands accepted for the next tick, by kind", l->received);
    by_kind(&b, "swarmcast_commands_applied_total", "commands the simulation applied, by kind", s->applied);
    by_kind(&b, "swarmcast_commands_rate_limited_total", "commands refused as over the client's budget, by kind",
            l->rate_limited);
    head(&b, "swarmcast_command_errors_total", "counter", "error replies, by code");
    for (size_t k = 0; k < OPS_ERROR_CODES; k++)
        jb_printf(&b, "swarmcast_command_errors_total{code=\"%s\"} %llu\n", error_name(k),
                  (unsigned long long)(l->errors[k] + s->errors[k]));
    head(&b, "swarmcast_abuse_closes_total", "counter", "clients closed (1008) for persistent flooding");
    jb_printf(&b, "swarmcast_abuse_closes_total %llu\n", (unsigned long long)l->abuse_closes);
    head(&b, "swarmcast_record_bytes", "gauge", "bytes written to the command log");
    jb_printf(&b, "swarmcast_record_bytes %llu\n", (unsigned long long)s->record_bytes);
    head(&b, "swarmcast_state_writes_total", "counter", "state-file writes");
    jb_printf(&b, "swarmcast_state_writes_total{result=\"ok\"} %llu\nswarmcast_state_writes_total{result=\"failed\"} %llu\n",
              (unsigned long long)l->state_writes, (unsigned long long)l->state_write_failures);
    if (b.failed) {
        jb_free(&b);
        return NULL;
    }
    return b.buf;
}
