#include "replay_log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/commands.h"

/* One of the header's set-up commands; REPLAY_E_USAGE when the world refuses it. */
static int apply_setup(world_t *w, const sim_cmd_t *cmd, const char *path, const char *what)
{
    sim_result_t res;
    sim_apply(w, cmd, &res);
    if (res.status == SIM_OK) return REPLAY_OK;
    fprintf(stderr, "swarmcast: %s:1: %s: %s\n", path, what, res.message);
    return REPLAY_E_USAGE;
}

/* The world the header describes, as the server started it: parameters,
 * then the agents drawn from the seed. */
static int build_world(const record_header_t *h, int threads, world_t *w, bool *have_world, const char *path)
{
    world_config_t wc = {
        .width = h->width,
        .height = h->height,
        .dt = (float)(1.0 / h->tick_hz),
        .seed = h->seed,
        .agents = 0,
        .max_agents = h->max_agents,
        .max_targets = h->max_targets,
        .threads = threads,
    };
    if (world_init(w, &wc)) {
        fprintf(stderr, "swarmcast: cannot create the world of %s\n", path);
        return REPLAY_E_IO;
    }
    *have_world = true;
    int rc;
    for (size_t i = 0; i < params_count(); i++) {
        sim_cmd_t set = {.kind = CMD_SET_PARAM, .request_id = -1, .param = (int)i, .value = params_get(&h->params, i)};
        if ((rc = apply_setup(w, &set, path, "header params"))) return rc;
    }
    sim_cmd_t reset = {.kind = CMD_RESET, .request_id = -1, .has_seed = true, .seed = h->seed, .has_agents = true,
                       .agents = (uint32_t)h->agents};
    return apply_setup(w, &reset, path, "header agents");
}

int replay_log_run(const char *path, int threads, world_t *w, bool *have_world, const replay_hooks_t *hooks,
                   replay_result_t *out)
{
    *out = (replay_result_t){0};
    *have_world = false;
    FILE *log = fopen(path, "r");
    if (!log) {
        fprintf(stderr, "swarmcast: cannot read %s: %s\n", path, strerror(errno));
        return REPLAY_E_USAGE;
    }
    char *line = NULL;
    size_t line_cap = 0, line_no = 1;
    char msg[400];
    int rc = REPLAY_OK;
    record_header_t h;
    if (getline(&line, &line_cap, log) < 0) {
        fprintf(stderr, "swarmcast: %s: empty, not a --record log\n", path);
        rc = REPLAY_E_USAGE;
        goto done;
    }
    if (record_parse_header(line, &h, msg, sizeof msg)) {
        fprintf(stderr, "swarmcast: %s:1: not a --record header: %s\n", path, msg);
        rc = REPLAY_E_USAGE;
        goto done;
    }
    if ((rc = build_world(&h, threads, w, have_world, path))) goto done;
    if (hooks->ready && (rc = hooks->ready(hooks->user, w))) goto done;
    while (!rc && getline(&line, &line_cap, log) >= 0) {
        line_no++;
        if (line[0] == '\n' || line[0] == '\0') continue;
        record_entry_t e;
        if (out->ended || record_parse_entry(line, &h, &e, msg, sizeof msg)) {
            fprintf(stderr, "swarmcast: %s:%zu: %s\n", path, line_no, out->ended ? "text after the end_tick line" : msg);
            rc = REPLAY_E_USAGE;
            break;
        }
        if (e.tick < w->tick) {
            fprintf(stderr, "swarmcast: %s:%zu: tick %llu is before the world's tick %llu (log out of order)\n", path,
                    line_no, (unsigned long long)e.tick, (unsigned long long)w->tick);
            rc = REPLAY_E_USAGE;
            break;
        }
        /* The server applies a tick's commands before that tick's step. */
        while (!rc && w->tick < e.tick) rc = hooks->step(hooks->user, w);
        if (rc) break;
        if (e.end) {
            out->ended = true;
            out->end_tick = e.tick;
            continue;
        }
        uint64_t tick = w->tick;
        sim_result_t res;
        sim_apply(w, &e.cmd, &res);
        out->commands++;
        out->refused += res.status != SIM_OK;
        if (hooks->applied) hooks->applied(hooks->user, tick, &e.cmd, w);
    }
    if (!rc && ferror(log)) {
        fprintf(stderr, "swarmcast: cannot read %s: %s\n", path, strerror(errno));
        rc = REPLAY_E_IO;
    }
done:
    free(line);
    fclose(log);
    return rc;
}
