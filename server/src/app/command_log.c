/* command_log: the default room's --record, the command log (its format is
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
static void record_failed(room_t *r)
{
    fprintf(stderr, "swarmcast: cannot write the command log %s: %s; recording stopped\n", r->record_path,
            strerror(errno));
    fclose(r->record);
    r->record = NULL;
    r->failed = true;
}

/* Logs one applied command; at --record-max-bytes the log ends there (a
 * flood of commands must not fill the disk), with a warning. */
void record_command(room_t *r, uint64_t tick, const sim_cmd_t *cmd)
{
    if (!r->record) return;
    if (record_write_cmd(r->record, tick, cmd)) {
        record_failed(r);
        return;
    }
    long size = ftell(r->record);
    if (size > 0) r->counters.record_bytes = (uint64_t)size;
    if (r->counters.record_bytes >= r->cfg->record_max_bytes) {
        fprintf(stderr,
                "swarmcast: the command log %s reached --record-max-bytes (%llu bytes) at tick %llu; recording "
                "stopped (replay runs to that tick)\n",
                r->record_path, (unsigned long long)r->cfg->record_max_bytes, (unsigned long long)tick);
        if (record_write_end(r->record, tick) || fclose(r->record)) r->failed = true;
        r->record = NULL;
        r->record_full = true;
    }
}

/* Opens --record and writes its header: the world as it starts. */
int open_record(room_t *r)
{
    const config_t *cfg = r->cfg;
    if (!(r->record = fopen(cfg->record, "w"))) {
        fprintf(stderr, "swarmcast: cannot write the command log %s: %s\n", cfg->record, strerror(errno));
        return -1;
    }
    if ((r->record_buf = malloc(RECORD_BUFFER_BYTES)))
        setvbuf(r->record, r->record_buf, _IOFBF, RECORD_BUFFER_BYTES);
    record_header_t h = {
        .seed = r->world.seed,
        .agents = r->world.n,
        .width = r->world.width,
        .height = r->world.height,
        .tick_hz = cfg->tick_hz,
        .max_agents = r->world.max_agents,
        .max_targets = r->world.max_targets,
        .params = r->world.params,
    };
    if (record_write_header(r->record, &h) || fflush(r->record)) {
        fprintf(stderr, "swarmcast: cannot write the command log %s: %s\n", cfg->record, strerror(errno));
        return -1;
    }
    return 0;
}

/* Flushes the log once RECORD_FLUSH_NS have passed since the last flush
 * (simulation thread, after each round of ticks). */
void record_flush_due(room_t *r, uint64_t now)
{
    if (r->record && now - r->record_flushed_ns >= RECORD_FLUSH_NS) {
        if (fflush(r->record)) record_failed(r);
        r->record_flushed_ns = now;
    }
}

/* At shutdown, the world still: the log's last line. */
void record_end(room_t *r)
{
    if (r->record) {
        if (record_write_end(r->record, r->world.tick) || fclose(r->record)) {
            fprintf(stderr, "swarmcast: cannot write the command log %s: %s\n", r->record_path, strerror(errno));
            r->failed = true;
        }
        r->record = NULL;
    }
}

/* Closes the log if still open (a failed start) and frees its buffer. */
void record_release(room_t *r)
{
    if (r->record) fclose(r->record);
    r->record = NULL;
    free(r->record_buf);
    r->record_buf = NULL;
}
