#include "timeline/history.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct keyframe {
    atomic_uint refs;
    uint64_t pos;     /* its place on the timeline (the image has the world's tick) */
    uint64_t cmd_seq; /* the first command not in the image */
    size_t bytes;
    world_image_t img;
};

struct history {
    history_limits_t lim;
    pthread_mutex_t lock;
    /* Written by the simulation thread under the lock; it alone also reads
     * them without it. */
    keyframe_t **kf; /* ring, oldest at kf_head */
    size_t kf_head, kf_len, kf_cap;
    history_cmd_t *cmds; /* ring, oldest at cmd_head; seqs are consecutive */
    size_t cmd_head, cmd_len, cmd_cap;
    uint64_t next_seq;
    uint64_t newest_pos;
    uint64_t base;      /* the place of the world's tick 0: a place is base + the world's tick */
    uint64_t epoch;
    size_t kf_bytes;
    bool force_keyframe; /* over the budget with one keyframe left: the next step takes another */
    size_t accounted;    /* bytes of this history in lim.shared_bytes */
    uint64_t taken, evicted, failures;
};

static void keyframe_unref(keyframe_t *k)
{
    if (k && atomic_fetch_sub(&k->refs, 1) == 1) {
        world_image_free(&k->img);
        free(k);
    }
}

const world_image_t *keyframe_image(const keyframe_t *k) { return &k->img; }

history_t *history_create(const history_limits_t *limits)
{
    history_t *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->lim = *limits;
    if (h->lim.keyframe_ticks == 0) h->lim.keyframe_ticks = 1;
    pthread_mutex_init(&h->lock, NULL);
    return h;
}

static keyframe_t *kf_at(const history_t *h, size_t i) { return h->kf[(h->kf_head + i) % h->kf_cap]; }
static history_cmd_t *cmd_at(const history_t *h, size_t i) { return &h->cmds[(h->cmd_head + i) % h->cmd_cap]; }

static size_t bytes_locked(const history_t *h)
{
    return h->kf_bytes + h->cmd_cap * sizeof *h->cmds + h->kf_cap * sizeof *h->kf;
}

/* The shared counter follows this history's bytes (under the lock). */
static void account_locked(history_t *h)
{
    size_t now = bytes_locked(h);
    if (h->lim.shared_bytes) {
        if (now > h->accounted) atomic_fetch_add(h->lim.shared_bytes, now - h->accounted);
        else atomic_fetch_sub(h->lim.shared_bytes, h->accounted - now);
    }
    h->accounted = now;
}

/* Whether this history is over its budget, or all rooms' over theirs. */
static bool over_budget_locked(const history_t *h)
{
    size_t mine = bytes_locked(h);
    if (mine > h->lim.max_bytes) return true;
    if (!h->lim.shared_bytes) return false;
    size_t others = atomic_load(h->lim.shared_bytes) - h->accounted;
    return others + mine > h->lim.shared_max;
}

/* Drops every keyframe and command (under the lock). */
static void clear_locked(history_t *h)
{
    for (size_t i = 0; i < h->kf_len; i++) keyframe_unref(kf_at(h, i));
    h->kf_head = h->kf_len = 0;
    h->kf_bytes = 0;
    h->cmd_head = h->cmd_len = 0;
}

void history_destroy(history_t *h)
{
    if (!h) return;
    clear_locked(h);
    free(h->kf);
    free(h->cmds);
    h->kf = NULL, h->cmds = NULL, h->kf_cap = h->cmd_cap = 0;
    account_locked(h);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

/* The oldest keyframe goes, with the commands only it needed. */
static void evict_oldest_locked(history_t *h)
{
    keyframe_t *old = kf_at(h, 0);
    h->kf_head = (h->kf_head + 1) % h->kf_cap;
    h->kf_len--;
    h->kf_bytes -= old->bytes;
    keyframe_unref(old);
    h->evicted++;
    uint64_t keep_from = kf_at(h, 0)->cmd_seq;
    while (h->cmd_len && cmd_at(h, 0)->seq < keep_from) h->cmd_head = (h->cmd_head + 1) % h->cmd_cap, h->cmd_len--;
}

/* Keeps the window and the budget: a keyframe is needed only while the one
 * after it is not yet at or before the window's start. */
static void evict_locked(history_t *h)
{
    uint64_t start = h->newest_pos > h->lim.window_ticks ? h->newest_pos - h->lim.window_ticks : 0;
    while (h->kf_len > 1 && kf_at(h, 1)->pos <= start) evict_oldest_locked(h);
    while (h->kf_len > 1 && over_budget_locked(h)) evict_oldest_locked(h);
    /* One keyframe left and still over: the commands after it are what grows; a fresh keyframe lets them go. */
    h->force_keyframe = h->kf_len == 1 && h->cmd_len > 0 && over_budget_locked(h);
    account_locked(h);
}

static int push_keyframe_locked(history_t *h, keyframe_t *k)
{
    if (h->kf_len == h->kf_cap) {
        size_t cap = h->kf_cap ? 2 * h->kf_cap : 64;
        keyframe_t **grown = malloc(cap * sizeof *grown);
        if (!grown) return -1;
        for (size_t i = 0; i < h->kf_len; i++) grown[i] = kf_at(h, i);
        free(h->kf);
        h->kf = grown, h->kf_cap = cap, h->kf_head = 0;
    }
    h->kf[(h->kf_head + h->kf_len++) % h->kf_cap] = k;
    h->kf_bytes += k->bytes;
    return 0;
}

/* A keyframe of w (after a step: before the commands at its place), linked
 * in; restart: the past before it goes first. */
static void take_keyframe(history_t *h, const world_t *w, bool restart)
{
    keyframe_t *k = calloc(1, sizeof *k);
    if (k && world_image_capture(&k->img, w) == 0) {
        atomic_init(&k->refs, 1);
        k->bytes = world_image_bytes(&k->img) + sizeof *k;
    } else {
        free(k);
        k = NULL;
    }
    pthread_mutex_lock(&h->lock);
    if (restart) {
        clear_locked(h);
        h->epoch++;
    }
    h->newest_pos = h->base + w->tick;
    if (k) {
        k->pos = h->newest_pos;
        k->cmd_seq = h->next_seq;
        if (push_keyframe_locked(h, k)) keyframe_unref(k), k = NULL;
    }
    if (k) h->taken++;
    else h->failures++;
    evict_locked(h);
    pthread_mutex_unlock(&h->lock);
}

void history_started(history_t *h, const world_t *w)
{
    pthread_mutex_lock(&h->lock);
    h->base = 0; /* the timeline starts at the world's tick */
    pthread_mutex_unlock(&h->lock);
    take_keyframe(h, w, true);
}

void history_stepped(history_t *h, const world_t *w)
{
    uint64_t last = h->kf_len ? kf_at(h, h->kf_len - 1)->pos : 0;
    if (!h->kf_len || h->force_keyframe || h->base + w->tick >= last + h->lim.keyframe_ticks) {
        take_keyframe(h, w, !h->kf_len);
        return;
    }
    pthread_mutex_lock(&h->lock);
    h->newest_pos = h->base + w->tick;
    evict_locked(h);
    pthread_mutex_unlock(&h->lock);
}

static int push_cmd_locked(history_t *h, const history_cmd_t *c)
{
    if (h->cmd_len == h->cmd_cap) {
        size_t cap = h->cmd_cap ? 2 * h->cmd_cap : 256;
        history_cmd_t *grown = malloc(cap * sizeof *grown);
        if (!grown) return -1;
        for (size_t i = 0; i < h->cmd_len; i++) grown[i] = *cmd_at(h, i);
        free(h->cmds);
        h->cmds = grown, h->cmd_cap = cap, h->cmd_head = 0;
    }
    *cmd_at(h, h->cmd_len++) = *c;
    account_locked(h);
    return 0;
}

void history_applied(history_t *h, uint64_t tick, const sim_cmd_t *cmd, const world_t *w)
{
    history_cmd_t c = {.tick = tick, .cmd = *cmd};
    pthread_mutex_lock(&h->lock);
    c.pos = h->base + tick;
    c.seq = h->next_seq++;
    /* A step command moves the place on; a reset (the world's ticks start
     * again) keeps it: the new world's tick 0 is here, its tick 1 one step on. */
    if (w->tick < tick) h->base = c.pos - w->tick;
    h->newest_pos = h->base + w->tick;
    if (h->kf_len && push_cmd_locked(h, &c)) {
        /* Out of memory: the past cannot be rebuilt across this command;
         * it starts again at the next step. */
        clear_locked(h);
        account_locked(h);
        h->failures++;
    }
    pthread_mutex_unlock(&h->lock);
}

uint64_t history_place_of(history_t *h, uint64_t tick)
{
    pthread_mutex_lock(&h->lock);
    uint64_t place = h->base + tick;
    pthread_mutex_unlock(&h->lock);
    return place;
}

void history_get_stats(history_t *h, history_stats_t *out)
{
    pthread_mutex_lock(&h->lock);
    *out = (history_stats_t){
        .from = h->kf_len ? kf_at(h, 0)->pos : 0,
        .to = h->newest_pos,
        .base = h->base,
        .epoch = h->epoch,
        .keyframes = h->kf_len,
        .commands = h->cmd_len,
        .bytes = bytes_locked(h),
        .keyframes_taken = h->taken,
        .keyframes_evicted = h->evicted,
        .capture_failures = h->failures,
    };
    pthread_mutex_unlock(&h->lock);
}

static int copy_cmds_locked(const history_t *h, uint64_t from_seq, uint64_t before_pos, history_plan_t *p)
{
    p->n_cmds = 0;
    p->next_seq = from_seq;
    if (!h->cmd_len) return 0;
    uint64_t oldest = cmd_at(h, 0)->seq;
    size_t i = from_seq > oldest ? (size_t)(from_seq - oldest) : 0;
    for (; i < h->cmd_len; i++) {
        const history_cmd_t *c = cmd_at(h, i);
        if (c->pos >= before_pos) break;
        if (p->n_cmds == p->cmds_cap) {
            size_t cap = p->cmds_cap ? 2 * p->cmds_cap : 64;
            history_cmd_t *grown = realloc(p->cmds, cap * sizeof *grown);
            if (!grown) return -1;
            p->cmds = grown, p->cmds_cap = cap;
        }
        p->cmds[p->n_cmds++] = *c;
        p->next_seq = c->seq + 1;
    }
    return 0;
}

int history_plan(history_t *h, uint64_t target, uint64_t have_epoch, uint64_t have_pos, uint64_t have_seq,
                 history_plan_t *plan)
{
    plan->from = NULL;
    plan->n_cmds = 0;
    plan->target = target;
    pthread_mutex_lock(&h->lock);
    int rc = HISTORY_OK;
    if (!h->kf_len) rc = HISTORY_EMPTY;
    else if (target < kf_at(h, 0)->pos) rc = HISTORY_BEFORE;
    else if (target > h->newest_pos) rc = HISTORY_AFTER;
    if (rc) {
        pthread_mutex_unlock(&h->lock);
        return rc;
    }
    size_t k = h->kf_len - 1;
    while (kf_at(h, k)->pos > target) k--; /* the oldest is at or before target */
    keyframe_t *kf = kf_at(h, k);
    plan->epoch = h->epoch;
    /* The caller's world is on the way when it is of this past, not ahead
     * of the target, not behind the keyframe, and its commands are kept. */
    uint64_t oldest_seq = h->cmd_len ? cmd_at(h, 0)->seq : h->next_seq;
    bool advance = have_pos != UINT64_MAX && have_epoch == h->epoch && have_pos <= target &&
                   have_pos >= kf->pos && have_seq >= oldest_seq && have_seq >= kf->cmd_seq;
    plan->start = advance ? have_pos : kf->pos;
    if (!advance) {
        atomic_fetch_add(&kf->refs, 1);
        plan->from = kf;
    }
    if (copy_cmds_locked(h, advance ? have_seq : kf->cmd_seq, target, plan)) rc = HISTORY_NO_MEMORY;
    pthread_mutex_unlock(&h->lock);
    if (rc) history_plan_done(plan);
    return rc;
}

void history_plan_done(history_plan_t *plan)
{
    keyframe_unref(plan->from);
    plan->from = NULL;
}

void history_plan_free(history_plan_t *plan)
{
    history_plan_done(plan);
    free(plan->cmds);
    memset(plan, 0, sizeof *plan);
}

int history_run_plan(const history_plan_t *plan, world_t *w, const atomic_bool *cancel)
{
    if (plan->from && world_image_restore(&plan->from->img, w)) return -1;
    uint64_t pos = plan->start; /* w's place: one on per step, as the world's tick but across resets */
    for (size_t i = 0; i < plan->n_cmds; i++) {
        const history_cmd_t *c = &plan->cmds[i];
        /* As the simulation did: a tick's commands before its step. */
        for (; pos < c->pos; pos++) {
            if (cancel && atomic_load(cancel)) return -1;
            world_step(w);
        }
        uint64_t before = w->tick;
        sim_result_t res;
        sim_apply(w, &c->cmd, &res);
        if (w->tick > before) pos += w->tick - before; /* a step command; a reset stays at its place */
    }
    for (; pos < plan->target; pos++) {
        if (cancel && atomic_load(cancel)) return -1;
        world_step(w);
    }
    return 0;
}
