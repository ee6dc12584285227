/* Fuzz target: a --record log as `--replay` reads it (server/src/replay_log.c,
 * shared by the headless replay and a served one), on any bytes as the
 * file's content. Besides memory safety, undefined behaviour and leaks it
 * checks that a log is either run or refused with a reason, and never
 * steps a world past what its lines say. The hooks bound the work a hostile
 * log may ask for (a world of at most 2,000 agents, 5,000 steps): past
 * them the run is stopped, as a refusal. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "replay_log.h"

#define MAX_AGENTS 2000
#define MAX_STEPS 5000
#define STOPPED 99

typedef struct budget {
    unsigned steps;
} budget_t;

static int ready(void *user, world_t *w)
{
    (void)user;
    return w->n > MAX_AGENTS ? STOPPED : 0;
}

static int step(void *user, world_t *w)
{
    budget_t *b = user;
    if (++b->steps > MAX_STEPS) return STOPPED;
    world_step(w);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/fuzz_replay_log_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 0;
    FILE *f = fdopen(fd, "w");
    if (!f || fwrite(data, 1, size, f) != size) {
        if (f) fclose(f);
        unlink(path);
        return 0;
    }
    fclose(f);
    /* The reasons go to stderr: not what is checked here, and noisy. */
    FILE *keep = stderr;
    stderr = fopen("/dev/null", "w");
    budget_t b = {0};
    replay_hooks_t hooks = {.ready = ready, .step = step, .user = &b};
    world_t w;
    bool have_world = false;
    replay_result_t res;
    int rc = replay_log_run(path, 1, &w, &have_world, &hooks, &res);
    fclose(stderr);
    stderr = keep;
    unlink(path);
    REQUIRE(rc == REPLAY_OK || rc == REPLAY_E_USAGE || rc == REPLAY_E_IO || rc == STOPPED, "rc %d", rc);
    if (rc == REPLAY_OK) {
        REQUIRE(have_world, "a run without a world");
        REQUIRE(res.refused <= res.commands, "%llu refused of %llu", (unsigned long long)res.refused,
                (unsigned long long)res.commands);
        REQUIRE(!res.ended || res.end_tick >= w.tick || res.commands > 0, "end_tick %llu before the world's %llu",
                (unsigned long long)res.end_tick, (unsigned long long)w.tick);
    }
    if (have_world) world_free(&w);
    return 0;
}
