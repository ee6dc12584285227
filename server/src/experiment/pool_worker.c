#include "experiment/pool_worker.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "experiment/out_dir.h"
#include "experiment/pool_nats.h"
#include "experiment/pool_protocol.h"
#include "experiment/run_one.h"
#include "experiment/sweep.h"
#include "protocol/utf8.h"

enum { MAX_STREAMS = 64, MAX_LOADED = 4 };

/* An experiment read from a stream's spec, ready to run: its files in a
 * folder of its own (run_one's base configuration names scenario.json). */
typedef struct loaded {
    char hash[17];
    experiment_t e;
    run_plan_t plan;
    config_t base;
    char dir[512];
    char scenario_path[4096];
    uint64_t used;
} loaded_t;

typedef struct bound {
    pool_names_t names;
    natsSubscription *sub;
    int64_t ack_wait_ms;
    bool listed; /* seen in the latest list of streams */
} bound_t;

typedef struct worker {
    pool_nats_t nats;
    bound_t streams[MAX_STREAMS];
    size_t n_streams, next_stream;
    loaded_t *loaded[MAX_LOADED];
    uint64_t clock;
    char tmp_root[256];
    bool run_thread_busy;
    natsSubscription *created; /* the server's word that a consumer "workers" was made: look at once */
} worker_t;

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
    fprintf(stderr, "swarmcast worker: %s\n", line);
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* ---- experiments, read from their spec once ---- */

static void loaded_free(loaded_t *x)
{
    if (!x) return;
    run_plan_free(&x->plan);
    experiment_free(&x->e);
    char path[4400];
    const char *names[] = {"experiment.json", "design.csv", "scenario.json"};
    for (size_t k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/%s", x->dir, names[k]);
        unlink(path);
    }
    rmdir(x->dir);
    free(x);
}

/* Writes the spec's files into a fresh folder and reads them as the local
 * runner reads an output folder. NULL with why; *transient when NATS did
 * not answer (try later) rather than the spec being bad. */
static loaded_t *load_spec(worker_t *w, const bound_t *b, uint64_t spec_seq, bool *transient, char *why,
                           size_t why_len)
{
    *transient = false;
    natsMsg *m = NULL;
    jsErrCode jerr = 0;
    natsStatus s = js_GetMsg(&m, w->nats.js, b->names.stream, spec_seq, NULL, &jerr);
    if (s != NATS_OK) {
        *transient = s != NATS_NOT_FOUND;
        text_fail(why, why_len, "no experiment at %s's message %" PRIu64 ": %s", b->names.stream, spec_seq,
                  pool_nats_why(s));
        return NULL;
    }
    if (strcmp(natsMsg_GetSubject(m), b->names.spec) != 0) {
        text_fail(why, why_len, "%s's message %" PRIu64 " is not a spec", b->names.stream, spec_seq);
        natsMsg_Destroy(m);
        return NULL;
    }
    pool_spec_t spec;
    loaded_t *x = NULL;
    if (pool_spec_decode(natsMsg_GetData(m), (size_t)natsMsg_GetDataLength(m), &spec, why, why_len)) goto fail;
    if (strcmp(spec.hash, b->names.hash) != 0) {
        text_fail(why, why_len, "the spec is experiment %s's, not %s's", spec.hash, b->names.hash);
        goto fail;
    }
    if (!(x = calloc(1, sizeof *x))) {
        text_fail(why, why_len, "out of memory");
        goto fail;
    }
    snprintf(x->hash, sizeof x->hash, "%s", spec.hash);
    snprintf(x->dir, sizeof x->dir, "%s/swarmcast-worker-XXXXXX", w->tmp_root);
    char msg[500];
    if (!mkdtemp(x->dir)) {
        text_fail(why, why_len, "cannot make a folder in %s: %s", w->tmp_root, strerror(errno));
        x->dir[0] = '\0';
        goto fail;
    }
    char json_path[4400];
    snprintf(json_path, sizeof json_path, "%s/experiment.json", x->dir);
    if (out_dir_write(x->dir, "experiment.json", spec.json, spec.json_len, msg, sizeof msg) ||
        (spec.table_len && out_dir_write(x->dir, "design.csv", spec.table, spec.table_len, msg, sizeof msg))) {
        text_fail(why, why_len, "%s", msg);
        goto fail;
    }
    int st = experiment_load(json_path, &x->e, msg, sizeof msg);
    if (st != EXPERIMENT_OK) {
        text_fail(why, why_len, "the experiment is refused: %s", msg);
        goto fail;
    }
    if (run_plan_make(&x->e, &x->plan, msg, sizeof msg) ||
        out_dir_write(x->dir, "scenario.json", x->e.scenario_json, strlen(x->e.scenario_json), msg, sizeof msg)) {
        text_fail(why, why_len, "the experiment is refused: %s", msg);
        run_plan_free(&x->plan);
        experiment_free(&x->e);
        goto fail;
    }
    if (sweep_base_config(x->dir, &x->e, &x->base, x->scenario_path, sizeof x->scenario_path)) {
        text_fail(why, why_len, "the experiment's base scenario is refused");
        run_plan_free(&x->plan);
        experiment_free(&x->e);
        goto fail;
    }
    natsMsg_Destroy(m);
    return x;
fail:
    if (x) {
        if (x->dir[0]) {
            char path[4400];
            snprintf(path, sizeof path, "%s/experiment.json", x->dir);
            unlink(path);
            snprintf(path, sizeof path, "%s/design.csv", x->dir);
            unlink(path);
            snprintf(path, sizeof path, "%s/scenario.json", x->dir);
            unlink(path);
            rmdir(x->dir);
        }
        free(x);
    }
    natsMsg_Destroy(m);
    return NULL;
}

static loaded_t *experiment_for(worker_t *w, const bound_t *b, uint64_t spec_seq, bool *transient, char *why,
                                size_t why_len)
{
    size_t oldest = 0;
    for (size_t k = 0; k < MAX_LOADED; k++) {
        loaded_t *x = w->loaded[k];
        if (x && strcmp(x->hash, b->names.hash) == 0) {
            x->used = ++w->clock;
            return x;
        }
        if (!x || (w->loaded[oldest] && x->used < w->loaded[oldest]->used)) oldest = k;
    }
    loaded_t *x = load_spec(w, b, spec_seq, transient, why, why_len);
    if (!x) return NULL;
    loaded_free(w->loaded[oldest]);
    w->loaded[oldest] = x;
    x->used = ++w->clock;
    say("experiment %s: %zu runs", x->hash, x->plan.n_runs);
    return x;
}

/* ---- the streams of our naming ---- */

static void unbind(bound_t *b)
{
    natsSubscription_Destroy(b->sub);
    b->sub = NULL;
}

static void refresh_streams(worker_t *w)
{
    jsStreamNamesList *list = NULL;
    jsErrCode jerr = 0;
    natsStatus st = js_StreamNames(&list, w->nats.js, NULL, &jerr);
    if (st != NATS_OK && st != NATS_NOT_FOUND) return; /* NATS away: keep what we have */
    for (size_t k = 0; k < w->n_streams; k++) w->streams[k].listed = false;
    for (int i = 0; list && i < list->Count; i++) {
        pool_names_t names;
        if (pool_names_from_stream(list->List[i], &names)) continue;
        bool known = false;
        for (size_t k = 0; k < w->n_streams && !known; k++)
            if (strcmp(w->streams[k].names.stream, names.stream) == 0) known = w->streams[k].listed = true;
        if (known || w->n_streams == MAX_STREAMS) continue;
        jsConsumerInfo *ci = NULL;
        if (js_GetConsumerInfo(&ci, w->nats.js, names.stream, POOL_WORKERS_CONSUMER, NULL, &jerr) != NATS_OK) continue;
        int64_t ack_wait_ms = ci->Config ? ci->Config->AckWait / 1000000 : 30000;
        jsConsumerInfo_Destroy(ci);
        jsSubOptions so;
        jsSubOptions_Init(&so);
        so.Stream = names.stream;
        so.Consumer = POOL_WORKERS_CONSUMER;
        natsSubscription *sub = NULL;
        if (js_PullSubscribe(&sub, w->nats.js, names.run, POOL_WORKERS_CONSUMER, NULL, &so, &jerr) != NATS_OK) continue;
        bound_t *b = &w->streams[w->n_streams++];
        *b = (bound_t){.names = names, .sub = sub, .ack_wait_ms = ack_wait_ms > 0 ? ack_wait_ms : 30000, .listed = true};
        say("serving %s (ack_wait %.1f s)", names.stream, (double)b->ack_wait_ms / 1000);
    }
    if (list) jsStreamNamesList_Destroy(list);
    for (size_t k = 0; k < w->n_streams;) {
        if (w->streams[k].listed) {
            k++;
            continue;
        }
        say("%s is gone", w->streams[k].names.stream);
        unbind(&w->streams[k]);
        w->streams[k] = w->streams[--w->n_streams];
    }
}

/* ---- one run ---- */

typedef struct job {
    loaded_t *x;
    size_t index;
    run_output_t out;
    bool ok, finished;
    pthread_mutex_t lock;
    pthread_cond_t done;
} job_t;

static void *run_job(void *arg)
{
    job_t *j = arg;
    bool ok = run_one(&j->x->e, &j->x->plan, j->index, &j->x->base, &j->out);
    pthread_mutex_lock(&j->lock);
    j->ok = ok;
    j->finished = true;
    pthread_cond_signal(&j->done);
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

/* Runs it on a thread of its own while this one keeps the message alive.
 * false when a signal came first (the run thread is left running). */
static bool run_kept_alive(worker_t *w, job_t *j, natsMsg *msg, int64_t ack_wait_ms)
{
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->done, NULL);
    pthread_t t;
    if (pthread_create(&t, NULL, run_job, j)) {
        j->ok = run_one(&j->x->e, &j->x->plan, j->index, &j->x->base, &j->out);
        j->finished = true;
        return true;
    }
    w->run_thread_busy = true;
    long beat_ms = (long)(ack_wait_ms / 3 > 100 ? ack_wait_ms / 3 : 100);
    double last_beat = sweep_now();
    pthread_mutex_lock(&j->lock);
    while (!j->finished && !stop_signal) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 100 * 1000000L; /* a signal is seen within 0.1 s */
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&j->done, &j->lock, &until);
        if (!j->finished && (sweep_now() - last_beat) * 1000 >= (double)beat_ms) {
            natsMsg_InProgress(msg, NULL);
            last_beat = sweep_now();
        }
    }
    bool finished = j->finished;
    pthread_mutex_unlock(&j->lock);
    if (!finished) return false;
    pthread_join(t, NULL);
    w->run_thread_busy = false;
    pthread_cond_destroy(&j->done);
    pthread_mutex_destroy(&j->lock);
    return true;
}

static uint64_t random64(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) v = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    return v;
}

/* Publishes a result in as many parts as it needs; 0, or -1 (NATS did not
 * take it: the run is given back). */
static int publish_result(worker_t *w, const bound_t *b, pool_result_t *r, const char *rows)
{
    int max_payload = natsConnection_GetMaxPayload(w->nats.nc);
    size_t room = max_payload > POOL_MAX_HEAD + 1024 ? (size_t)max_payload - POOL_MAX_HEAD - 256 : 4096;
    r->parts = pool_parts_for(r->bytes, room);
    char *buf = malloc(POOL_MAX_HEAD + room);
    if (!buf) return -1;
    int rc = 0;
    for (uint32_t k = 0; k < r->parts && !rc; k++) {
        r->part = k;
        r->offset = (uint64_t)k * room;
        size_t n = r->bytes - r->offset < room ? (size_t)(r->bytes - r->offset) : room;
        if (pool_result_head(r, buf, POOL_MAX_HEAD)) {
            rc = -1;
            break;
        }
        size_t head = strlen(buf);
        if (n) memcpy(buf + head, rows + r->offset, n);
        char msg_id[96];
        snprintf(msg_id, sizeof msg_id, "%s.%" PRIu64 ".%016" PRIx64 ".%" PRIu32, r->hash, r->index, r->attempt, k);
        jsPubOptions po;
        jsPubOptions_Init(&po);
        po.MsgId = msg_id; /* a retried part is stored once */
        natsStatus s = NATS_ERR;
        for (int tries = 0; tries < 5 && s != NATS_OK; tries++) {
            jsErrCode jerr = 0;
            jsPubAck *pa = NULL;
            s = js_Publish(&pa, w->nats.js, b->names.result, buf, (int)(head + n), &po, &jerr);
            jsPubAck_Destroy(pa);
            if (s != NATS_OK) {
                say("%s: publishing a result failed (%s); trying again", b->names.stream, pool_nats_why(s));
                sleep_ms(500);
            }
        }
        if (s != NATS_OK) rc = -1;
    }
    free(buf);
    return rc;
}

static void handle(worker_t *w, bound_t *b, natsMsg *msg)
{
    jsMsgMetaData *meta = NULL;
    uint64_t deliveries = 1;
    if (natsMsg_GetMetaData(&meta, msg) == NATS_OK) {
        deliveries = meta->NumDelivered;
        jsMsgMetaData_Destroy(meta);
    }
    pool_run_t run;
    char why[400];
    if (pool_run_decode(natsMsg_GetData(msg), (size_t)natsMsg_GetDataLength(msg), &run, why, sizeof why) ||
        (strcmp(run.hash, b->names.hash) != 0 &&
         text_fail(why, sizeof why, "it names experiment %s on %s's stream", run.hash, b->names.hash))) {
        say("%s: not a run of ours, dropped: %s", b->names.stream, why);
        natsMsg_Term(msg, NULL);
        return;
    }
    pool_result_t r = {.index = run.index, .run_id = run.run_id, .attempt = random64(), .deliveries = deliveries};
    snprintf(r.hash, sizeof r.hash, "%s", run.hash);
    bool transient;
    loaded_t *x = experiment_for(w, b, run.spec_seq, &transient, why, sizeof why);
    /* on the heap: a signal leaves the run thread writing into it while this returns */
    job_t *j = calloc(1, sizeof *j);
    char id[17];
    run_id_text(run.run_id, id);
    if (!j || (!x && transient)) {
        say("%s: %s; giving the run back", b->names.stream, j ? why : "out of memory");
        natsMsg_NakWithDelay(msg, 1000, NULL);
        free(j);
        return;
    }
    if (!x) {
        text_fail(r.why, sizeof r.why, "the worker cannot read the experiment: %s", why);
        say("run %s (index %" PRIu64 ") failed: %s", id, run.index, r.why);
    } else if (run.index >= x->plan.n_runs || x->plan.runs[run.index].id != run.run_id) {
        text_fail(r.why, sizeof r.why,
                  "the worker's plan of this experiment has no run %s at index %" PRIu64
                  " (a different swarmcast version?)",
                  id, run.index);
        say("run %s (index %" PRIu64 ") failed: %s", id, run.index, r.why);
    } else {
        say("running %s run %s (index %" PRIu64 ", delivery %" PRIu64 ")", run.hash, id, run.index, deliveries);
        j->x = x;
        j->index = (size_t)run.index;
        double started = sweep_now();
        if (!run_kept_alive(w, j, msg, b->ack_wait_ms)) {
            say("stopping: run %s given back", id);
            natsMsg_Nak(msg, NULL);
            return; /* j stays with the run thread until the process ends */
        }
        r.ok = j->ok;
        if (!j->ok) text_fail(r.why, sizeof r.why, "%s", j->out.message);
        if (j->ok && j->out.len > POOL_MAX_RESULT_BYTES) {
            r.ok = false;
            text_fail(r.why, sizeof r.why,
                      "its rows (%zu bytes) are more than the pool carries (%u MiB); run it with --workers or --shard",
                      j->out.len, POOL_MAX_RESULT_BYTES >> 20);
        }
        if (r.ok) {
            r.rows = j->out.rows;
            r.bytes = j->out.len;
        }
        say("ran %s run %s in %.2f s: %s", run.hash, id, sweep_now() - started, r.ok ? "ok" : r.why);
    }
    if (publish_result(w, b, &r, j->out.text)) {
        say("%s: the result of run %s could not be published; giving it back", b->names.stream, id);
        natsMsg_Nak(msg, NULL);
    } else {
        natsMsg_Ack(msg, NULL);
    }
    run_output_free(&j->out);
    free(j);
}

const char pool_worker_usage[] =
    "usage: swarmcast worker --nats URL [--name NAME]   (or SWARMCAST_NATS=URL)\n"
    "Runs the runs of every experiment on that NATS (`swarmcast experiment run FILE --out DIR\n"
    "--nats URL` puts them there), one at a time, until SIGINT or SIGTERM.\n";

static int usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "swarmcast: worker: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nusage: swarmcast worker --nats URL   (docs/EXPERIMENTS.md, \"The NATS pool\")\n");
    return 2;
}

int pool_worker_main(int argc, char **argv)
{
    const char *url = NULL, *name = "swarmcast-worker";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--nats") == 0 && i + 1 < argc)
            url = argv[++i];
        else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc)
            name = argv[++i];
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(pool_worker_usage, stdout);
            return 0;
        } else
            return usage("unexpected '%s'", argv[i]);
    }
    if (!url) url = getenv("SWARMCAST_NATS"); /* as the server reads it: one environment for a container */
    if (!url || !*url) return usage("%s", "--nats URL is needed (or SWARMCAST_NATS)");
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    worker_t *w = calloc(1, sizeof *w);
    if (!w) return 1;
    const char *tmp = getenv("TMPDIR");
    snprintf(w->tmp_root, sizeof w->tmp_root, "%s", tmp && *tmp ? tmp : "/tmp");
    char msg[500];
    if (pool_nats_connect(&w->nats, url, name, 0, &stop_signal, msg, sizeof msg)) {
        fprintf(stderr, "swarmcast worker: %s\n", msg);
        free(w);
        return stop_signal ? 0 : 1;
    }
    say("connected to %s", url);
    if (natsConnection_SubscribeSync(&w->created, w->nats.nc, "$JS.EVENT.ADVISORY.CONSUMER.CREATED.*." POOL_WORKERS_CONSUMER) !=
        NATS_OK)
        w->created = NULL; /* not allowed to hear it: the streams are looked at every 2 s */
    double last_refresh = -1e9;
    while (!stop_signal) {
        if (natsConnection_Status(w->nats.nc) != NATS_CONN_STATUS_CONNECTED) {
            sleep_ms(200); /* NATS away: libnats reconnects; a request now would only wait */
            continue;
        }
        double now = sweep_now();
        natsMsg *event = NULL;
        bool poked = false;
        while (w->created && natsSubscription_NextMsg(&event, w->created, 0) == NATS_OK) {
            natsMsg_Destroy(event);
            poked = true;
        }
        if (poked || now - last_refresh >= 2.0) {
            refresh_streams(w);
            last_refresh = now;
        }
        if (!w->n_streams) {
            /* nothing to pull from: wait for a new experiment's consumer (or look again in 2 s) */
            if (w->created && natsSubscription_NextMsg(&event, w->created, 200) == NATS_OK) {
                natsMsg_Destroy(event);
                last_refresh = -1e9;
            } else if (!w->created) {
                sleep_ms(200);
            }
            continue;
        }
        bound_t *b = &w->streams[w->next_stream++ % w->n_streams];
        natsMsgList list = {0};
        jsErrCode jerr = 0;
        int64_t wait = w->n_streams == 1 ? 1000 : 1000 / (int64_t)w->n_streams + 100;
        natsStatus s = natsSubscription_Fetch(&list, b->sub, 1, wait, &jerr);
        if (s == NATS_OK) {
            for (int i = 0; i < list.Count && !stop_signal; i++) handle(w, b, list.Msgs[i]);
            natsMsgList_Destroy(&list);
        } else if (s != NATS_TIMEOUT) {
            sleep_ms(200); /* NATS away, or the stream just went: the next refresh says */
        }
        if (w->run_thread_busy) break;
    }
    say("%s, exiting", stop_signal == SIGTERM ? "SIGTERM" : stop_signal ? "SIGINT" : "stopped");
    bool busy = w->run_thread_busy;
    /* the nak goes out before we do (not waited for when NATS is away) */
    if (w->nats.nc && natsConnection_Status(w->nats.nc) == NATS_CONN_STATUS_CONNECTED)
        natsConnection_FlushTimeout(w->nats.nc, 1000);
    if (busy) {
        /* A run thread still holds the experiment: leave without freeing it. */
        fflush(stderr);
        _exit(0);
    }
    for (size_t k = 0; k < w->n_streams; k++) unbind(&w->streams[k]);
    natsSubscription_Destroy(w->created);
    for (size_t k = 0; k < MAX_LOADED; k++) loaded_free(w->loaded[k]);
    pool_nats_close(&w->nats);
    free(w);
    return 0;
}
