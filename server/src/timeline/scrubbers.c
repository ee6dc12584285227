/* pthread_setname_np and gettid: a seat's thread is named and niced. */
#define _GNU_SOURCE
#include "timeline/scrubbers.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "stream/capture.h"

/* What a seat's thread is called (at most 15 characters). */
#define SEAT_THREAD_NAME "swarmcast-scrub"
/* Its niceness above the simulation thread's: with the cores busy, the
 * kernel gives a nice-10 thread about a tenth of a nice-0 one's share, so
 * the live tick keeps its rate and a rebuild takes the time that is left. */
#define SEAT_NICE 10

typedef struct seat {
    scrubbers_t *owner;
    pthread_t thread;
    bool started;
    /* Under owner->lock. */
    bool in_use;
    size_t slot;
    uint32_t client_id;
    uint64_t gen, served_gen; /* requests made, and the newest one taken */
    uint64_t asked_ns;        /* when the newest request was made */
    uint64_t tenure;          /* +1 per holder: a frame made for the last one is not the next one's */
    scrub_request_t req;      /* while playing, position follows the playback */
    shared_buf_t *frame;      /* made, not yet taken */
    uint64_t frame_tick;
    bool reached_live, stopped_at_start;
    int error;
    atomic_bool cancel; /* released or stopping: a rebuild stops at its next step */
    /* The seat's thread only. */
    world_t world;
    bool world_ready; /* world_init'd (on the seat's thread: its workers inherit the nice) */
    bool have_world;
    uint64_t world_epoch, world_seq, world_pos; /* the seat's world: its history's epoch, commands, place */
    history_plan_t plan;
    capture_t cap;
    wire2_world_t q;
    wire2_view_enc_t *enc;
} seat_t;

struct scrubbers {
    history_t *history;
    scrubbers_config_t cfg;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool stop;
    seat_t *seats;
    scrubbers_stats_t stats; /* under lock */
};

static uint64_t clock_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* ---- a frame of the past -------------------------------------------------- */

/* Where one rebuild's time went (seconds), for the stats. */
typedef struct rebuild_cost {
    double restore, steps;
    uint64_t stepped;
} rebuild_cost_t;

/* The seat's world at target: advanced from where it is when that is on the
 * way, else restored from a keyframe and re-stepped. */
static int rebuild(seat_t *st, uint64_t target, bool *restored, rebuild_cost_t *cost)
{
    scrubbers_t *s = st->owner;
    if (!st->world_ready) return HISTORY_NO_MEMORY;
    int rc = history_plan(s->history, target, st->world_epoch, st->have_world ? st->world_pos : UINT64_MAX,
                          st->world_seq, &st->plan);
    if (rc) return rc;
    *restored = st->plan.from != NULL;
    st->have_world = false; /* until the plan is through */
    uint64_t t0 = clock_ns();
    int failed = 0;
    if (st->plan.from) {
        /* The restore apart from the steps, to tell their costs apart. */
        failed = world_image_restore(keyframe_image(st->plan.from), &st->world);
        history_plan_done(&st->plan);
    }
    uint64_t t1 = clock_ns();
    if (!failed) failed = history_run_plan(&st->plan, &st->world, &st->cancel);
    uint64_t t2 = clock_ns();
    cost->restore = (double)(t1 - t0) / 1e9;
    cost->steps = (double)(t2 - t1) / 1e9;
    cost->stepped = target - st->plan.start;
    if (!failed) {
        st->have_world = true;
        st->world_pos = target;
        st->world_epoch = st->plan.epoch;
        st->world_seq = st->plan.next_seq;
    } else {
        rc = atomic_load(&st->cancel) ? 0 : HISTORY_NO_MEMORY;
    }
    history_plan_done(&st->plan);
    return rc;
}

/* The viewer's view of the seat's world as one v2 frame: the header with
 * the scene, then the view's key chunk (seq: the tick's low 32 bits). */
static shared_buf_t *encode(seat_t *st, const scrub_request_t *req)
{
    if (capture_world(&st->cap, &st->world)) return NULL;
    snap_view_t v;
    capture_view(&st->cap, &v);
    /* The frame names its place on the timeline as its tick and seq (the
     * world's tick until a reset; after one, the world's tick counts again
     * from 0 while the timeline goes on). */
    v.tick = (uint32_t)st->world_pos;
    if (wire2_world_quantize(&st->q, &v, (uint32_t)st->world_pos)) return NULL;
    if (st->enc && (!wire2_rect_equal(wire2_view_enc_rect(st->enc), req->rect) || wire2_view_enc_mode(st->enc) != req->mode)) {
        wire2_view_enc_free(st->enc);
        st->enc = NULL;
    }
    if (!st->enc && !(st->enc = wire2_view_enc_new(req->rect, req->mode))) return NULL;
    wire2_chunk_t key = {0};
    if (wire2_view_enc_step(st->enc, &st->q, &key, NULL, NULL) || !key.buf) return NULL;
    size_t header = wire2_frame_header_size(&v);
    shared_buf_t *b = shared_buf_new(st->owner->cfg.headroom, header + key.len);
    if (b) {
        uint8_t *out = shared_buf_data(b);
        if (wire2_frame_header(out, header, &st->q, (uint32_t)(v.n + v.n_predators), &v, 1) == header)
            memcpy(out + header, key.buf, key.len);
        else
            shared_buf_unref(b), b = NULL;
    }
    wire2_chunk_free(&key);
    return b;
}

/* ---- a seat's thread -------------------------------------------------------- */

/* Waits until the seat has work: a new request, or the next frame of a
 * playback. false when stopping. Under the lock. */
static bool wait_for_work(seat_t *st, uint64_t next_frame_ns)
{
    scrubbers_t *s = st->owner;
    for (;;) {
        if (s->stop) return false;
        if (st->in_use && st->gen != st->served_gen) return true;
        if (!st->in_use || !st->req.playing) {
            pthread_cond_wait(&s->cond, &s->lock);
            continue;
        }
        uint64_t now = clock_ns();
        if (now >= next_frame_ns) return true;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        uint64_t wait = next_frame_ns - now;
        until.tv_sec += (time_t)(wait / 1000000000ull);
        until.tv_nsec += (long)(wait % 1000000000ull);
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&s->cond, &s->lock, &until);
    }
}

static void *seat_main(void *arg)
{
    seat_t *st = arg;
    scrubbers_t *s = st->owner;
    pthread_setname_np(pthread_self(), SEAT_THREAD_NAME);
    if (setpriority(PRIO_PROCESS, (id_t)gettid(), SEAT_NICE))
        fprintf(stderr, "swarmcast: cannot lower a scrubbing thread's priority: %s\n", strerror(errno));
    /* The world after the nice: threads inherit it, and a world of more
     * than one thread starts its workers here. */
    st->world_ready = world_init(&st->world, &s->cfg.world) == 0;
    if (!st->world_ready) fprintf(stderr, "swarmcast: out of memory for a scrubbing seat's world\n");
    uint64_t frame_ns = (uint64_t)(1e9 / s->cfg.frame_hz), next_frame_ns = 0, last_ns = 0;
    pthread_mutex_lock(&s->lock);
    while (wait_for_work(st, next_frame_ns)) {
        uint64_t now = clock_ns();
        bool fresh = st->gen != st->served_gen;
        st->served_gen = st->gen;
        if (st->req.playing && !fresh) /* the playback moves on by the wall time that passed */
            st->req.position += st->req.speed * s->cfg.tick_hz * (double)(now - last_ns) / 1e9;
        last_ns = now;
        next_frame_ns = now + frame_ns;
        scrub_request_t req = st->req;
        uint64_t tenure = st->tenure, asked_ns = st->asked_ns;
        history_stats_t window;
        history_get_stats(s->history, &window);
        bool reached_live = false, at_start = false;
        if (req.position >= (double)window.to && (req.playing && req.speed > 0)) reached_live = true;
        if (req.position < (double)window.from) {
            req.position = (double)window.from;
            if (req.playing) at_start = true;
        }
        if (req.position > (double)window.to) req.position = (double)window.to;
        if (at_start || reached_live) st->req.playing = false, st->req.position = req.position;
        pthread_mutex_unlock(&s->lock);

        uint64_t target = (uint64_t)floor(req.position);
        bool restored = false;
        rebuild_cost_t cost = {0};
        uint64_t began = clock_ns();
        int rc = reached_live ? 0 : rebuild(st, target, &restored, &cost);
        uint64_t rebuilt = clock_ns();
        shared_buf_t *frame = !rc && !reached_live && st->have_world ? encode(st, &req) : NULL;
        double took = (double)(rebuilt - began) / 1e9, encoding = (double)(clock_ns() - rebuilt) / 1e9;

        pthread_mutex_lock(&s->lock);
        if (fresh) {
            s->stats.requests_served++;
            s->stats.wait_seconds += (double)(began - asked_ns) / 1e9;
        }
        if (!reached_live && !rc) {
            s->stats.rebuilds++;
            s->stats.restores += restored;
            s->stats.rebuild_seconds_last = took;
            if (took > s->stats.rebuild_seconds_max) s->stats.rebuild_seconds_max = took;
            s->stats.restore_seconds += cost.restore;
            s->stats.step_seconds += cost.steps;
            s->stats.steps += cost.stepped;
            if (frame) s->stats.encode_seconds += encoding;
        }
        bool tell = false;
        if (st->in_use && st->tenure == tenure) {
            if (frame) {
                shared_buf_unref(st->frame);
                st->frame = frame, frame = NULL;
                st->frame_tick = target;
                s->stats.frames++;
            }
            st->reached_live |= reached_live;
            st->stopped_at_start |= at_start;
            if (rc) st->error = rc, st->req.playing = false;
            tell = true;
        }
        shared_buf_unref(frame);
        if (tell) {
            pthread_mutex_unlock(&s->lock);
            s->cfg.notify(s->cfg.user);
            pthread_mutex_lock(&s->lock);
        }
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* ---- the loop's side -------------------------------------------------------- */

scrubbers_t *scrubbers_create(history_t *history, const scrubbers_config_t *cfg)
{
    scrubbers_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->history = history;
    s->cfg = *cfg;
    if (s->cfg.world.threads < 1) s->cfg.world.threads = 1;
    s->cfg.world.agents = 0;
    if (!(s->seats = calloc(cfg->seats ? cfg->seats : 1, sizeof *s->seats))) {
        free(s);
        return NULL;
    }
    for (size_t i = 0; i < cfg->seats; i++) s->seats[i].owner = s;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    return s;
}

void scrubbers_destroy(scrubbers_t *s)
{
    if (!s) return;
    pthread_mutex_lock(&s->lock);
    s->stop = true;
    for (size_t i = 0; i < s->cfg.seats; i++) {
        atomic_store(&s->seats[i].cancel, true);
        if (s->seats[i].in_use) atomic_fetch_sub(s->cfg.in_use, 1), s->seats[i].in_use = false;
    }
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    for (size_t i = 0; i < s->cfg.seats; i++) {
        seat_t *st = &s->seats[i];
        if (!st->started) continue;
        pthread_join(st->thread, NULL);
        if (st->world_ready) world_free(&st->world);
        history_plan_free(&st->plan);
        capture_free(&st->cap);
        wire2_world_free(&st->q);
        wire2_view_enc_free(st->enc);
        shared_buf_unref(st->frame);
    }
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->lock);
    free(s->seats);
    free(s);
}

size_t scrubbers_count(const scrubbers_t *s) { return s->cfg.seats; }

int scrubbers_seat_of(scrubbers_t *s, size_t slot, uint32_t client_id)
{
    int found = -1;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->cfg.seats && found < 0; i++)
        if (s->seats[i].in_use && s->seats[i].slot == slot && s->seats[i].client_id == client_id) found = (int)i;
    pthread_mutex_unlock(&s->lock);
    return found;
}

/* Takes one of the server's seats: false when all are in use. */
static bool take_server_seat(scrubbers_t *s)
{
    size_t used = atomic_load(s->cfg.in_use);
    while (used < s->cfg.seats)
        if (atomic_compare_exchange_weak(s->cfg.in_use, &used, used + 1)) return true;
    return false;
}

int scrubbers_acquire(scrubbers_t *s, size_t slot, uint32_t client_id)
{
    int have = scrubbers_seat_of(s, slot, client_id);
    if (have >= 0) return have;
    pthread_mutex_lock(&s->lock);
    int got = -1;
    for (size_t i = 0; i < s->cfg.seats && got < 0; i++)
        if (!s->seats[i].in_use) got = (int)i;
    if (got >= 0 && !take_server_seat(s)) got = -1;
    if (got >= 0) {
        seat_t *st = &s->seats[got];
        if (!st->started) {
            if (pthread_create(&st->thread, NULL, seat_main, st) == 0) {
                st->started = true;
            } else {
                atomic_fetch_sub(s->cfg.in_use, 1);
                got = -1;
            }
        }
        if (got >= 0) {
            st->in_use = true;
            st->tenure++;
            st->slot = slot;
            st->client_id = client_id;
            st->served_gen = st->gen;
            st->req = (scrub_request_t){0};
            st->reached_live = st->stopped_at_start = false;
            st->error = 0;
            atomic_store(&st->cancel, false);
        }
    }
    pthread_mutex_unlock(&s->lock);
    return got;
}

void scrubbers_request(scrubbers_t *s, int seat, const scrub_request_t *req)
{
    pthread_mutex_lock(&s->lock);
    seat_t *st = &s->seats[seat];
    st->req = *req;
    st->gen++;
    st->asked_ns = clock_ns();
    st->reached_live = st->stopped_at_start = false;
    st->error = 0;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
}

scrub_request_t scrubbers_current(scrubbers_t *s, int seat)
{
    pthread_mutex_lock(&s->lock);
    scrub_request_t r = s->seats[seat].req;
    pthread_mutex_unlock(&s->lock);
    return r;
}

void scrubbers_release(scrubbers_t *s, int seat)
{
    pthread_mutex_lock(&s->lock);
    seat_t *st = &s->seats[seat];
    if (st->in_use) {
        st->in_use = false;
        st->req.playing = false;
        atomic_store(&st->cancel, true);
        shared_buf_unref(st->frame);
        st->frame = NULL;
        atomic_fetch_sub(s->cfg.in_use, 1);
    }
    pthread_mutex_unlock(&s->lock);
}

void scrubbers_take(scrubbers_t *s, int seat, scrub_output_t *out)
{
    pthread_mutex_lock(&s->lock);
    seat_t *st = &s->seats[seat];
    *out = (scrub_output_t){st->frame, st->frame_tick, st->reached_live, st->stopped_at_start, st->error};
    st->frame = NULL;
    st->reached_live = st->stopped_at_start = false;
    st->error = 0;
    pthread_mutex_unlock(&s->lock);
}

bool scrubbers_holder(scrubbers_t *s, int seat, size_t *slot, uint32_t *client_id)
{
    pthread_mutex_lock(&s->lock);
    bool used = s->seats[seat].in_use;
    *slot = s->seats[seat].slot;
    *client_id = s->seats[seat].client_id;
    pthread_mutex_unlock(&s->lock);
    return used;
}

void scrubbers_get_stats(scrubbers_t *s, scrubbers_stats_t *out)
{
    pthread_mutex_lock(&s->lock);
    *out = s->stats;
    pthread_mutex_unlock(&s->lock);
}
