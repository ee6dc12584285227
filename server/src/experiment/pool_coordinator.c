#include "experiment/pool_coordinator.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/out_dir.h"
#include "experiment/pool_nats.h"
#include "experiment/pool_protocol.h"
#include "experiment/sweep.h"
#include "persist/whole_file.h"
#include "protocol/utf8.h"

/* Results in parts being joined: at most this many runs and bytes at once
 * (a hostile stream of first parts cannot grow memory without bound; an
 * honest result pushed out is run again). */
enum { MAX_ASSEMBLIES = 64 };
#define MAX_ASSEMBLY_BYTES ((size_t)512 << 20)

typedef struct assembly {
    bool used;
    size_t index;
    uint64_t attempt, bytes, rows, deliveries;
    uint32_t next_part, parts;
    char *buf;
    size_t have;
    uint64_t born;
} assembly_t;

typedef enum { PENDING = 0, WRITTEN_OK, WRITTEN_FAILED, DONE_BEFORE } run_mark_t;

typedef struct coordinator {
    sweep_session_t *sw;
    pool_nats_t nats;
    pool_names_t names;
    run_mark_t *mark;
    uint64_t *pub_seq;  /* stream sequences of the runs published, ascending */
    size_t *pub_index, n_pub, pub_cap;
    FILE *journal;
    int journal_error;
    size_t total, done, failed, remaining, duplicates, dropped;
    natsSubscription *results, *advisories;
    assembly_t assemblies[MAX_ASSEMBLIES];
    size_t assembly_bytes;
    uint64_t clock;
    uint64_t spec_seq;
} coordinator_t;

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[600];
    text_t t;
    text_init(&t, line, sizeof line);
    va_list ap;
    va_start(ap, fmt);
    text_vaddf(&t, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\r\033[Kswarmcast: pool: %s\n", line);
}

/* ---- the stream, its consumers, the runs on it ---- */

static int make_stream(coordinator_t *c, const pool_options_t *o, char *msg, size_t msg_len)
{
    jsStreamConfig sc;
    jsStreamConfig_Init(&sc);
    const char *subjects[] = {c->names.all};
    sc.Name = c->names.stream;
    sc.Subjects = subjects;
    sc.SubjectsLen = 1;
    sc.Retention = js_WorkQueuePolicy;
    sc.Storage = js_FileStorage;
    jsErrCode jerr = 0;
    jsStreamInfo *si = NULL;
    natsStatus s = js_AddStream(&si, c->nats.js, &sc, NULL, &jerr);
    if (s != NATS_OK && jerr == JSStreamNameExistErr) s = js_GetStreamInfo(&si, c->nats.js, sc.Name, NULL, &jerr);
    jsStreamInfo_Destroy(si);
    if (s != NATS_OK) return text_fail(msg, msg_len, "cannot make the stream %s: %s", sc.Name, pool_nats_why(s));

    jsConsumerConfig workers, mine;
    jsConsumerConfig_Init(&workers);
    workers.Durable = POOL_WORKERS_CONSUMER;
    workers.AckPolicy = js_AckExplicit;
    workers.AckWait = (int64_t)(o->ack_wait_s * 1e9);
    workers.MaxDeliver = o->max_deliver;
    workers.FilterSubject = c->names.run;
    jsConsumerConfig_Init(&mine);
    mine.Durable = POOL_COORDINATOR_CONSUMER;
    mine.AckPolicy = js_AckExplicit;
    mine.AckWait = (int64_t)((o->ack_wait_s > 10 ? o->ack_wait_s : 10) * 1e9);
    mine.FilterSubject = c->names.result;
    jsConsumerConfig *both[] = {&workers, &mine};
    for (int k = 0; k < 2; k++) {
        jsConsumerInfo *ci = NULL;
        s = js_AddConsumer(&ci, c->nats.js, sc.Name, both[k], NULL, &jerr);
        if (s != NATS_OK) s = js_UpdateConsumer(&ci, c->nats.js, sc.Name, both[k], NULL, &jerr); /* a new ack_wait */
        jsConsumerInfo_Destroy(ci);
        if (s != NATS_OK)
            return text_fail(msg, msg_len, "cannot make the consumer %s on %s: %s", both[k]->Durable, sc.Name,
                             pool_nats_why(s));
    }
    jsSubOptions so;
    jsSubOptions_Init(&so);
    so.Stream = sc.Name;
    so.Consumer = POOL_COORDINATOR_CONSUMER;
    if ((s = js_PullSubscribe(&c->results, c->nats.js, c->names.result, POOL_COORDINATOR_CONSUMER, NULL, &so,
                              &jerr)) != NATS_OK ||
        (s = natsConnection_SubscribeSync(&c->advisories, c->nats.nc, c->names.max_deliveries)) != NATS_OK)
        return text_fail(msg, msg_len, "cannot subscribe on %s: %s", sc.Name, pool_nats_why(s));
    return 0;
}

/* The experiment's spec: DIR's self-contained experiment.json and design.csv. */
static int read_spec(const char *dir, const experiment_t *e, char **json, size_t *json_len, char **table,
                     size_t *table_len, char *msg, size_t msg_len)
{
    char path[4096];
    *table = NULL;
    *table_len = 0;
    if (out_dir_path(dir, "experiment.json", path, sizeof path) || !(*json = whole_file_read(path, json_len)))
        return text_fail(msg, msg_len, "cannot read %s/experiment.json: %s", dir, strerror(errno));
    if (e->design == DESIGN_TABLE &&
        (out_dir_path(dir, "design.csv", path, sizeof path) || !(*table = whole_file_read(path, table_len))))
        return text_fail(msg, msg_len, "cannot read %s/design.csv: %s", dir, strerror(errno));
    if (*json_len + *table_len > POOL_MAX_SPEC_BYTES)
        return text_fail(msg, msg_len,
                         "the experiment (%zu bytes with its design table) is more than one NATS message carries "
                         "(%u KiB); split the table, or use --shard",
                         *json_len + *table_len, POOL_MAX_SPEC_BYTES >> 10);
    return 0;
}

static int publish_run(coordinator_t *c, size_t i)
{
    char *m = NULL;
    size_t len;
    if (pool_run_encode(c->names.hash, c->spec_seq, i, c->sw->plan.runs[i].id, &m, &len)) return -1;
    jsPubAck *pa = NULL;
    jsErrCode jerr = 0;
    natsStatus s = js_Publish(&pa, c->nats.js, c->names.run, m, (int)len, NULL, &jerr);
    free(m);
    if (s == NATS_OK && pa && c->n_pub < c->pub_cap) {
        c->pub_seq[c->n_pub] = pa->Sequence;
        c->pub_index[c->n_pub++] = i;
    }
    jsPubAck_Destroy(pa);
    return s == NATS_OK ? 0 : -1;
}

/* Drops what is queued (a previous coordinator's runs), puts the spec and
 * every run still to do on the stream. */
static int publish_all(coordinator_t *c, const char *spec, size_t spec_len, char *msg, size_t msg_len)
{
    jsOptions jo;
    jsErrCode jerr = 0;
    const char *subjects[] = {c->names.run, c->names.spec};
    for (int k = 0; k < 2; k++) {
        jsOptions_Init(&jo);
        jo.Stream.Purge.Subject = subjects[k];
        natsStatus s = js_PurgeStream(c->nats.js, c->names.stream, &jo, &jerr);
        if (s != NATS_OK) return text_fail(msg, msg_len, "cannot purge %s: %s", subjects[k], pool_nats_why(s));
    }
    jsPubAck *pa = NULL;
    natsStatus s = js_Publish(&pa, c->nats.js, c->names.spec, spec, (int)spec_len, NULL, &jerr);
    if (s == NATS_OK && pa) c->spec_seq = pa->Sequence;
    jsPubAck_Destroy(pa);
    if (s != NATS_OK) return text_fail(msg, msg_len, "cannot publish the experiment: %s", pool_nats_why(s));
    for (size_t i = 0; i < c->sw->plan.n_runs; i++)
        if (c->mark[i] == PENDING && publish_run(c, i))
            return text_fail(msg, msg_len, "cannot publish the runs on %s: %s", c->names.run, pool_nats_why(NATS_ERR));
    return 0;
}

/* ---- results ---- */

static void write_run(coordinator_t *c, size_t i, bool ok, const char *rows, size_t len, uint64_t n_rows,
                      const char *why, uint64_t deliveries)
{
    run_mark_t was = c->mark[i];
    if (was == WRITTEN_OK || was == DONE_BEFORE || (was == WRITTEN_FAILED && !ok)) {
        c->duplicates++; /* done exactly once: the first result stands (an ok one over a failure) */
        return;
    }
    if (journal_append_delivered(c->journal, c->sw->plan.runs[i].id, i, ok, rows, len, (size_t)n_rows, why,
                                 (uint32_t)deliveries)) {
        c->journal_error = errno ? errno : EIO;
        return;
    }
    c->mark[i] = ok ? WRITTEN_OK : WRITTEN_FAILED;
    if (was == PENDING) {
        c->remaining--;
        c->done++;
        c->failed += !ok;
    } else {
        c->failed--; /* a late success of a run failed as lost */
    }
}

static void assembly_drop(coordinator_t *c, assembly_t *a)
{
    c->assembly_bytes -= (size_t)a->bytes;
    free(a->buf);
    *a = (assembly_t){0};
}

static assembly_t *assembly_find(coordinator_t *c, size_t index, uint64_t attempt)
{
    for (size_t k = 0; k < MAX_ASSEMBLIES; k++)
        if (c->assemblies[k].used && c->assemblies[k].index == index && c->assemblies[k].attempt == attempt)
            return &c->assemblies[k];
    return NULL;
}

/* Room for a new one of `bytes`: the oldest are pushed out (their runs are
 * published again). NULL when it cannot be had. */
static assembly_t *assembly_new(coordinator_t *c, const pool_result_t *r)
{
    if (r->bytes > MAX_ASSEMBLY_BYTES) return NULL;
    for (;;) {
        assembly_t *free_slot = NULL, *oldest = NULL;
        for (size_t k = 0; k < MAX_ASSEMBLIES; k++) {
            assembly_t *a = &c->assemblies[k];
            if (!a->used && !free_slot) free_slot = a;
            if (a->used && (!oldest || a->born < oldest->born)) oldest = a;
        }
        if (free_slot && c->assembly_bytes + r->bytes <= MAX_ASSEMBLY_BYTES) {
            /* the buffer grows as parts come: a head that claims much costs nothing until the bytes arrive */
            *free_slot = (assembly_t){.used = true, .index = (size_t)r->index, .attempt = r->attempt,
                                      .bytes = r->bytes, .rows = r->rows, .deliveries = r->deliveries,
                                      .parts = r->parts, .born = ++c->clock};
            c->assembly_bytes += (size_t)r->bytes;
            return free_slot;
        }
        if (!oldest) return NULL;
        size_t index = oldest->index;
        say("too many results in parts at once: run %zu's is dropped and published again", index);
        assembly_drop(c, oldest);
        if (c->mark[index] == PENDING) publish_run(c, index);
    }
}

static void on_result(coordinator_t *c, natsMsg *m)
{
    pool_result_t r;
    char why[400];
    const run_plan_t *plan = &c->sw->plan;
    if (pool_result_decode(natsMsg_GetData(m), (size_t)natsMsg_GetDataLength(m), &r, why, sizeof why) ||
        (strcmp(r.hash, c->names.hash) != 0 &&
         text_fail(why, sizeof why, "it names experiment %s, this is %s", r.hash, c->names.hash)) ||
        ((r.index >= plan->n_runs || plan->runs[r.index].id != r.run_id) &&
         text_fail(why, sizeof why, "run %" PRIu64 " with that id is not in this plan", r.index))) {
        c->dropped++;
        say("a message on %s that is not a result of ours, dropped: %s", c->names.result, why);
        natsMsg_Ack(m, NULL);
        return;
    }
    size_t i = (size_t)r.index;
    if (r.parts == 1) {
        write_run(c, i, r.ok, r.body, r.body_len, r.rows, r.why, r.deliveries);
    } else if (c->mark[i] == WRITTEN_OK || c->mark[i] == DONE_BEFORE) {
        c->duplicates += r.part == 0;
    } else {
        assembly_t *a = assembly_find(c, i, r.attempt);
        if (!a && r.part == 0) a = assembly_new(c, &r);
        if (a && r.part < a->next_part) {
            c->duplicates++; /* a part delivered again: already joined */
        } else if (!a || r.part != a->next_part || r.offset != a->have || r.bytes != a->bytes ||
                   r.parts != a->parts) {
            c->dropped++;
            say("part %" PRIu32 " of run %zu's result does not follow what came before, dropped", r.part, i);
            if (a) {
                assembly_drop(c, a);
                if (c->mark[i] == PENDING) publish_run(c, i); /* its result is lost: run it again */
            }
        } else {
            char *grown = realloc(a->buf, a->have + r.body_len + 1);
            if (!grown) {
                assembly_drop(c, a);
                say("no memory for run %zu's result; it is published again", i);
                if (c->mark[i] == PENDING) publish_run(c, i);
                natsMsg_Ack(m, NULL);
                return;
            }
            a->buf = grown;
            memcpy(a->buf + a->have, r.body, r.body_len);
            a->have += r.body_len;
            a->next_part++;
            if (a->next_part == a->parts) {
                write_run(c, i, true, a->buf, a->have, a->rows, NULL, a->deliveries);
                assembly_drop(c, a);
            }
        }
    }
    natsMsg_Ack(m, NULL);
}

/* The server gave up on a run: max_deliver deliveries, none acknowledged. */
static void on_advisory(coordinator_t *c, natsMsg *m)
{
    uint64_t seq, deliveries;
    if (pool_advisory_decode(natsMsg_GetData(m), (size_t)natsMsg_GetDataLength(m), &seq, &deliveries)) return;
    size_t lo = 0, hi = c->n_pub;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->pub_seq[mid] < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == c->n_pub || c->pub_seq[lo] != seq) return; /* not a run this coordinator published */
    size_t i = c->pub_index[lo];
    char why[120];
    snprintf(why, sizeof why, "worker lost %" PRIu64 " times (no result within ack_wait of each delivery)", deliveries);
    if (c->mark[i] == PENDING) write_run(c, i, false, NULL, 0, 0, why, deliveries);
    jsErrCode jerr = 0;
    js_DeleteMsg(c->nats.js, c->names.stream, seq, NULL, &jerr); /* off the queue for good */
}

/* Reads results for up to wait_ms; how many came. */
static int collect(coordinator_t *c, int64_t wait_ms)
{
    natsMsgList list = {0};
    jsErrCode jerr = 0;
    natsStatus s = natsSubscription_Fetch(&list, c->results, 16, wait_ms, &jerr);
    int n = s == NATS_OK ? list.Count : 0;
    for (int k = 0; k < n; k++) on_result(c, list.Msgs[k]);
    if (s == NATS_OK) natsMsgList_Destroy(&list);
    natsMsg *adv = NULL;
    while (natsSubscription_NextMsg(&adv, c->advisories, 0) == NATS_OK) {
        on_advisory(c, adv);
        natsMsg_Destroy(adv);
    }
    return n;
}

/* Results on the stream that no coordinator has been handed yet. */
static uint64_t results_waiting(coordinator_t *c)
{
    jsConsumerInfo *ci = NULL;
    jsErrCode jerr = 0;
    if (js_GetConsumerInfo(&ci, c->nats.js, c->names.stream, POOL_COORDINATOR_CONSUMER, NULL, &jerr) != NATS_OK)
        return 0;
    uint64_t n = ci->NumPending;
    jsConsumerInfo_Destroy(ci);
    return n;
}

static int sweep_over_nats(coordinator_t *c, const pool_options_t *o, char *msg, size_t msg_len)
{
    sweep_session_t *sw = c->sw;
    char *json = NULL, *table = NULL, *spec = NULL;
    size_t json_len, table_len, spec_len;
    int rc = read_spec(sw->dir, &sw->e, &json, &json_len, &table, &table_len, msg, msg_len);
    if (!rc) {
        pool_names_make(pool_experiment_hash(json, json_len, table, table_len), &c->names);
        if (pool_spec_encode(c->names.hash, json, json_len, table, table_len, &spec, &spec_len))
            rc = text_fail(msg, msg_len, "out of memory");
    }
    free(json);
    free(table);
    if (rc) return SWEEP_EXIT_USAGE;
    rc = SWEEP_EXIT_IO;
    if (pool_nats_connect(&c->nats, o->url, "swarmcast-experiment", 30, &stop_signal, msg, msg_len) ||
        make_stream(c, o, msg, msg_len))
        goto done;
    /* what arrived while no coordinator listened, before anything is published again */
    while (!stop_signal && results_waiting(c) > 0 && collect(c, 500) > 0) {
    }
    size_t waiting = c->done;
    if (publish_all(c, spec, spec_len, msg, msg_len)) goto done;
    say("%s: %zu runs on %s (%zu results were waiting), ack_wait %.1f s, max_deliver %u", o->url, c->remaining,
        c->names.stream, waiting, o->ack_wait_s, o->max_deliver);
    double started = sweep_now(), shown = 0;
    while (c->remaining && !stop_signal && !c->journal_error) {
        collect(c, 250);
        if (o->progress && sweep_now() - shown >= 0.5) {
            sweep_progress(c->done, c->total, c->failed, sweep_now() - started, false);
            shown = sweep_now();
        }
    }
    if (o->progress) sweep_progress(c->done, c->total, c->failed, sweep_now() - started, true);
    if (c->journal_error) {
        text_fail(msg, msg_len, "cannot write %s: %s", sw->journal_path, strerror(c->journal_error));
        goto done;
    }
    if (c->duplicates || c->dropped)
        say("%zu results of runs already written were dropped; %zu messages that were not ours", c->duplicates,
            c->dropped);
    if (!c->remaining) {
        jsErrCode jerr = 0;
        js_DeleteStream(c->nats.js, c->names.stream, NULL, &jerr); /* done: nothing is left for workers */
    }
    rc = 0;
done:
    free(spec);
    return rc;
}

int pool_coordinator_run(const char *file, const char *dir, const pool_options_t *o)
{
    sweep_session_t sw;
    coordinator_t c = {.sw = &sw};
    char msg[600] = "";
    int rc = sweep_open(&sw, file, dir);
    if (rc || (rc = sweep_prepare(&sw))) goto done;
    size_t n = sw.plan.n_runs ? sw.plan.n_runs : 1;
    c.mark = calloc(n, sizeof *c.mark);
    c.pub_seq = calloc(n * 4, sizeof *c.pub_seq);
    c.pub_index = calloc(n * 4, sizeof *c.pub_index);
    c.pub_cap = n * 4; /* every run, and runs published again */
    rc = SWEEP_EXIT_IO;
    if (!c.mark || !c.pub_seq || !c.pub_index) goto done;
    for (size_t i = 0; i < sw.plan.n_runs; i++) {
        c.mark[i] = sw.idx.entries[i].state == RUN_OK ? DONE_BEFORE : PENDING;
        c.remaining += c.mark[i] == PENDING;
    }
    c.total = c.remaining;
    if (sw.plan.n_runs > c.total)
        fprintf(stderr, "swarmcast: %s holds %zu of these %zu runs already; running the other %zu\n", dir,
                sw.plan.n_runs - c.total, sw.plan.n_runs, c.total);
    if (c.remaining) {
        if (!(c.journal = fopen(sw.journal_path, "a"))) {
            fprintf(stderr, "swarmcast: cannot write %s: %s\n", sw.journal_path, strerror(errno));
            goto done;
        }
        struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        rc = sweep_over_nats(&c, o, msg, sizeof msg);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        bool bad = fclose(c.journal) != 0;
        c.journal = NULL;
        if (rc || bad) {
            fprintf(stderr, "swarmcast: %s\n", bad && !rc ? "cannot write the journal" : msg);
            if (!rc) rc = SWEEP_EXIT_IO;
            goto done;
        }
    }
    rc = sweep_finish(&sw, c.done, 0, "all (NATS pool)");
    if (stop_signal) {
        fprintf(stderr, "swarmcast: interrupted; the same command goes on where it stopped\n");
        rc = 128 + stop_signal;
    }
done:
    if (c.journal) fclose(c.journal);
    for (size_t k = 0; k < MAX_ASSEMBLIES; k++)
        if (c.assemblies[k].used) assembly_drop(&c, &c.assemblies[k]);
    if (c.results) natsSubscription_Destroy(c.results);
    if (c.advisories) natsSubscription_Destroy(c.advisories);
    pool_nats_close(&c.nats);
    free(c.mark);
    free(c.pub_seq);
    free(c.pub_index);
    sweep_close(&sw);
    return rc;
}
