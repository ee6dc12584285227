/* command_log: the app's side of --record, the command log (its format is
 * persist/record.c): the header at start, each applied command as the
 * simulation thread applies it, a flush once a second, the end line at
 * shutdown. The simulation thread owns the log once it runs; a write error
 * stops recording and the run goes on. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "persist/record.h"

/* The command log is written through a stdio buffer of this size and
 * flushed once a second: the tick never waits on the disk for long, and the
 * log's memory is this buffer whatever the run's length. */
#define RECORD_BUFFER_BYTES (256u * 1024u)
#define RECORD_FLUSH_NS 1000000000ull

/* Gives up the command log after a write error: the run goes on. */
static void record_failed(app_t *a)
{
    fprintf(stderr, "swarmcast: cannot write the command log %s: %s; recording stopped\n", a->cfg.record,
            strerror(errno));
    fclose(a->record);
    a->record = NULL;
    a->failed = true;
}

/* Logs one applied command; at --record-max-bytes the log ends there (a
 * flood of commands must not fill the disk), with a warning. */
void record_command(app_t *a, uint64_t tick, const sim_cmd_t *cmd)
{
    if (!a->record) return;
    if (record_write_cmd(a->record, tick, cmd)) {
        record_failed(a);
        return;
    }
    long size = ftell(a->record);
    if (size > 0) a->counters.record_bytes = (uint64_t)size;
    if (a->counters.record_bytes >= a->cfg.record_max_bytes) {
        fprintf(stderr,
                "swarmcast: the command log %s reached --record-max-bytes (%llu bytes) at tick %llu; recording "
                "stopped (replay runs to that tick)\n",
                a->cfg.record, (unsigned long long)a->cfg.record_max_bytes, (unsigned long long)tick);
        if (record_write_end(a->record, tick) || fclose(a->record)) a->failed = true;
        a->record = NULL;
        a->record_full = true;
    }
}

/* Opens --record and writes its header: the world as it starts. */
int open_record(app_t *a)
{
    const config_t *cfg = &a->cfg;
    if (!(a->record = fopen(cfg->record, "w"))) {
        fprintf(stderr, "swarmcast: cannot write the command log %s: %s\n", cfg->record, strerror(errno));
        return -1;
    }
    if ((a->record_buf = malloc(RECORD_BUFFER_BYTES)))
        setvbuf(a->record, a->record_buf, _IOFBF, RECORD_BUFFER_BYTES);
    record_header_t h = {
        .seed = a->world.seed,
        .agents = a->world.n,
        .width = a->world.width,
        .height = a->world.height,
        .tick_hz = cfg->tick_hz,
        .max_agents = a->world.max_agents,
        .max_targets = a->world.max_targets,
        .params = a->world.params,
    };
    if (record_write_header(a->record, &h) || fflush(a->record)) {
        fprintf(stderr, "swarmcast: cannot write the command log %s: %s\n", cfg->record, strerror(errno));
        return -1;
    }
    return 0;
}

/* Flushes the log once RECORD_FLUSH_NS have passed since the last flush
 * (simulation thread, after each round of ticks). */
void record_flush_due(app_t *a, uint64_t now)
{
    if (a->record && now - a->record_flushed_ns >= RECORD_FLUSH_NS) {
        if (fflush(a->record)) record_failed(a);
        a->record_flushed_ns = now;
    }
}

/* At shutdown, the world still: the log's last line. */
void record_end(app_t *a)
{
    if (a->record) {
        if (record_write_end(a->record, a->world.tick) || fclose(a->record)) {
            fprintf(stderr, "swarmcast: cannot write the command log %s: %s\n", a->cfg.record, strerror(errno));
            a->failed = true;
        }
        a->record = NULL;
    }
}

/* Closes the log if still open (a failed start) and frees its buffer. */
void record_release(app_t *a)
{
    if (a->record) fclose(a->record);
    a->record = NULL;
    free(a->record_buf);
    a->record_buf = NULL;
}
