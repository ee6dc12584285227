#include "sim/world.h"

#include "sim/clones.h"
#include "sim/lanes.h"
#include "sim/models.h"
#include "sim/motion.h"
#include "sim/predators.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Tasks per thread in a parallel pass: a few, so that a thread that finishes
 * early takes another share instead of waiting for a slow one. */
#define TASKS_PER_THREAD 4

/* PRNG stream for agent placement; other streams stay free for later uses
 * (noise, jitter) so that adding one does not shift the others. */
#define STREAM_SPAWN 1u
/* Stream of the counter-based generator for wander angles. */
#define WANDER_STREAM 0x77616e646572ull

void agents_free(agents_t *a)
{
    free(a->x);
    free(a->y);
    free(a->vx);
    free(a->vy);
    free(a->id);
    free(a->flags);
    memset(a, 0, sizeof *a);
}

void agents_copy(agents_t *dst, const agents_t *src, size_t n)
{
    /* A world of no agents may have no arrays at all (memcpy wants them). */
    if (n == 0) return;
    memcpy(dst->x, src->x, n * sizeof *src->x);
    memcpy(dst->y, src->y, n * sizeof *src->y);
    memcpy(dst->vx, src->vx, n * sizeof *src->vx);
    memcpy(dst->vy, src->vy, n * sizeof *src->vy);
    memcpy(dst->id, src->id, n * sizeof *src->id);
    memcpy(dst->flags, src->flags, n * sizeof *src->flags);
}

/* Grows one array from old to n entries plus SENSE_LANES of padding, which
 * the neighbour kernel may read past the last agent; new memory is zeroed so
 * that those reads see finite numbers. */
#define GROW(ptr, old, n)                                                              \
    do {                                                                               \
        void *grown = realloc((ptr), ((n) + SENSE_LANES) * sizeof *(ptr));             \
        if (!grown) return -1;                                                         \
        (ptr) = grown;                                                                 \
        memset((ptr) + (old), 0, ((n) + SENSE_LANES - (old)) * sizeof *(ptr));         \
    } while (0)

static int agents_grow(agents_t *a, size_t old, size_t n)
{
    GROW(a->x, old, n);
    GROW(a->y, old, n);
    GROW(a->vx, old, n);
    GROW(a->vy, old, n);
    GROW(a->id, old, n);
    GROW(a->flags, old, n);
    return 0;
}

#undef GROW

/* Writes the current state into history frame `slot`, by agent id. */
static void record_history(world_t *w, size_t slot)
{
    size_t stride = w->cap + SENSE_LANES;
    float *f = w->history + slot * 4 * stride;
    for (size_t i = 0; i < w->n; i++) {
        uint32_t id = w->cur.id[i];
        f[id] = w->cur.x[i];
        f[stride + id] = w->cur.y[i];
        f[2 * stride + id] = w->cur.vx[i];
        f[3 * stride + id] = w->cur.vy[i];
    }
}

/* Sizes the delayed-feedback history for the current delay and capacity
 * and fills every frame with the present: a fresh delay starts from "now"
 * rather than from nothing. Allocates only here, never in a step. */
static int history_configure(world_t *w)
{
    size_t frames = w->params.delay_ticks > 0 ? (size_t)w->params.delay_ticks + 1 : 0;
    if (!frames) {
        free(w->history);
        w->history = NULL;
        w->history_frames = 0;
        return 0;
    }
    size_t floats = frames * 4 * (w->cap + SENSE_LANES);
    float *h = realloc(w->history, floats * sizeof *h);
    if (!h) return -1;
    memset(h, 0, floats * sizeof *h);
    w->history = h;
    w->history_frames = frames;
    for (size_t f = 0; f < frames; f++) record_history(w, f);
    return 0;
}

const float *world_history_frame(const world_t *w, uint64_t ago)
{
    size_t frames = w->history_frames;
    size_t slot = (size_t)((w->tick % frames + frames - ago % frames) % frames);
    return w->history + slot * 4 * (w->cap + SENSE_LANES);
}

/* Per-agent arrays that only some features use exist only while one is on,
 * so that the plain model keeps its memory small. They sit side by side in
 * world_t (head_x … wander), cap + SENSE_LANES floats each when present. */
static float **feature_arrays_begin(world_t *w) { return &w->head_x; }
static float **feature_arrays_end(world_t *w) { return &w->wander + 1; }

static void init_feature_values(world_t *w, size_t from)
{
    for (size_t i = from; i < w->n; i++) {
        uint32_t id = w->cur.id[i];
        const sim_params_t *p = world_params_for(w, w->cur.flags[i]);
        if (w->radius_ali) w->radius_ali[id] = p->ali_radius, w->radius_coh[id] = p->coh_radius;
        if (w->wander) w->wander[id] = 6.28318531f * prng_hash_unit(w->seed, WANDER_STREAM, id, 0);
    }
}

/* Allocates the arrays the parameters now need and frees the others; new
 * arrays start from each agent's initial value. */
static int configure_feature_arrays(world_t *w)
{
    const sim_params_t *p = &w->params;
    bool want[] = {p->ali_mode == ALIGN_HEADING, p->ali_mode == ALIGN_HEADING, p->density_radii != 0,
                   p->density_radii != 0, p->w_wander > 0.0f};
    bool fresh = false;
    float **arr = feature_arrays_begin(w);
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++, arr++) {
        if (!want[k]) {
            free(*arr);
            *arr = NULL;
        } else if (!*arr) {
            if (!(*arr = calloc(w->cap + SENSE_LANES, sizeof **arr))) return -1;
            fresh = true;
        }
    }
    if (fresh) init_feature_values(w, 0);
    return 0;
}

/* Capacity grows by doubling, so that the tick never allocates and repeated
 * add_agents cost amortised O(1). */
static int reserve(world_t *w, size_t n)
{
    if (n <= w->cap) return 0;
    size_t cap = w->cap ? w->cap : 256;
    while (cap < n) cap *= 2;
    if (cap > w->max_agents) cap = w->max_agents;
    if (agents_grow(&w->cur, w->cap, cap) || agents_grow(&w->next, w->cap, cap) || grid_reserve(&w->grid, cap))
        return -1;
    for (float **arr = feature_arrays_begin(w); arr < feature_arrays_end(w); arr++)
        if (*arr) {
            float *grown = realloc(*arr, (cap + SENSE_LANES) * sizeof **arr);
            if (!grown) return -1;
            memset(grown + w->cap, 0, (cap - w->cap + SENSE_LANES) * sizeof *grown);
            *arr = grown;
        }
    w->cap = cap;
    return 0;
}

int scratch_init(sense_scratch_t *s, uint32_t cap)
{
    size_t n = (size_t)cap + 2 * SENSE_LANES; /* padding, and a vector copy's overshoot */
    *s = (sense_scratch_t){calloc(n, sizeof(float)), calloc(n, sizeof(float)), calloc(n, sizeof(float)),
                           calloc(n, sizeof(float)), calloc(n, sizeof(float)), cap};
    if (s->x && s->y && s->vx && s->vy && s->species) return 0;
    scratch_free(s);
    return -1;
}

void scratch_free(sense_scratch_t *s)
{
    free(s->x);
    free(s->y);
    free(s->vx);
    free(s->vy);
    free(s->species);
    memset(s, 0, sizeof *s);
}

/* The fastest an agent of these parameters moves, whatever its model. */
static float top_speed(const sim_params_t *p)
{
    return fmaxf(p->max_speed, fmaxf(p->cz_speed, p->uni_speed_max));
}

/* The grid's cells must hold the running model's reach for every species:
 * Olfati-Saber's range r, Couzin's zone of attraction, the other models'
 * zones (a cell wider than the reach only adds candidates to sense out of
 * range: Olfati-Saber's 30 u in cells of the Reynolds zones' 50 u would
 * sense (50/30)² ≈ 2.8 times as many). With
 * delayed positions a neighbour is sensed where it was delay_ticks ago but
 * found in the grid where it is now, and it may have flown up to its top
 * speed times the delay since: the cells grow by that much, so that the
 * 3x3 block still holds everyone whose past place is within reach (an
 * agent respawned or pushed out of a moving obstacle may jump further;
 * that is missed for those few ticks). */
static float max_radius(const world_t *w)
{
    float r = 0.0f, flown = 0.0f;
    const bool delayed_positions = w->params.delay_ticks > 0 && w->params.delay_mode != DELAY_VELOCITIES;
    const model_t model = w->params.model;
    const bool olfati = model == MODEL_OLFATI1 || model == MODEL_OLFATI2 || model == MODEL_OLFATI3;
    for (int s = 0; s < SIM_MAX_SPECIES; s++) {
        const sim_params_t *p = &w->species_params[s];
        r = fmaxf(r, olfati ? p->os_r : fmaxf(p->sep_radius, fmaxf(p->ali_radius, p->coh_radius)));
        /* Couzin's zones only while it runs: they may reach far. */
        if (model == MODEL_COUZIN) r = fmaxf(r, couzin_reach(p));
        if (delayed_positions) flown = fmaxf(flown, top_speed(p) * (float)w->params.delay_ticks * w->dt);
    }
    return r + flown;
}

/* Species come from ids: agent id mod species, kept in the flags. */
static void assign_species(world_t *w, size_t from)
{
    unsigned species = (unsigned)w->params.species;
    for (size_t i = from; i < w->n; i++) {
        unsigned s = w->cur.id[i] % species;
        w->cur.flags[i] = (uint8_t)((w->cur.flags[i] & ~AGENT_SPECIES_MASK) | (s << AGENT_SPECIES_SHIFT));
    }
}

static int configure_grid(world_t *w)
{
    float cell = max_radius(w);
    if (grid_configure(&w->grid, w->width, w->height, cell)) return -1;
    w->grid_cell = cell;
    return 0;
}

int world_init(world_t *w, const world_config_t *cfg)
{
    memset(w, 0, sizeof *w);
    if (!(cfg->width > 0) || !(cfg->height > 0) || !(cfg->dt > 0) || cfg->agents > cfg->max_agents)
        return -1;
    params_defaults(&w->params);
    for (int s = 0; s < SIM_MAX_SPECIES; s++) w->species_params[s] = w->params;
    w->width = cfg->width;
    w->height = cfg->height;
    w->dt = cfg->dt;
    w->max_agents = cfg->max_agents;
    w->max_targets = cfg->max_targets;
    grid_init(&w->grid);
    w->threads = cfg->threads > 1 ? cfg->threads : 1;
    grid_set_parts(&w->grid, w->threads); /* the grid is configured below */
    bool ok = (!w->max_targets || (w->targets = calloc(w->max_targets, sizeof *w->targets))) &&
              target_index_init(&w->target_index, w->max_targets) == 0 &&
              (w->scratch = calloc(2 * (size_t)w->threads, sizeof *w->scratch)) &&
              (w->task_pairs = calloc((size_t)w->threads * TASKS_PER_THREAD, sizeof *w->task_pairs)) &&
              (w->threads == 1 || (w->pool = workers_create(w->threads)));
    for (int t = 0; ok && t < 2 * w->threads; t++) ok = scratch_init(&w->scratch[t], SIM_MAX_CANDIDATES) == 0;
    if (!ok) {
        world_free(w);
        return -1;
    }
    if (configure_grid(w) || world_reset(w, cfg->seed, cfg->agents)) {
        world_free(w);
        return -1;
    }
    return 0;
}

world_info_t world_info(const world_t *w)
{
    world_info_t info = {w->width, w->height, w->max_agents, w->params, {{0}}};
    memcpy(info.species_params, w->species_params, sizeof info.species_params);
    return info;
}

void world_free(world_t *w)
{
    workers_destroy(w->pool);
    w->pool = NULL;
    for (int t = 0; w->scratch && t < 2 * w->threads; t++) scratch_free(&w->scratch[t]);
    free(w->scratch);
    w->scratch = NULL;
    free(w->task_pairs);
    w->task_pairs = NULL;
    agents_free(&w->cur);
    agents_free(&w->next);
    for (float **arr = feature_arrays_begin(w); arr < feature_arrays_end(w); arr++) {
        free(*arr);
        *arr = NULL;
    }
    free(w->history);
    w->history = NULL;
    w->history_frames = 0;
    grid_free(&w->grid);
    free(w->targets);
    w->targets = NULL;
    target_index_free(&w->target_index);
    w->n = w->cap = 0;
}

int world_reset(world_t *w, uint32_t seed, size_t n)
{
    if (n > w->max_agents) return SIM_E_LIMIT;
    w->seed = seed;
    prng_seed(&w->rng, seed, STREAM_SPAWN);
    w->tick = 0;
    w->n = 0;
    w->stepped_n = 0;
    w->n_obstacles = 0;
    w->next_obstacle_id = 0;
    w->gamma_x = 0.5f * w->width;
    w->gamma_y = 0.5f * w->height;
    w->n_predators = 0;
    predators_configure(w);
    return world_add_agents(w, n, false, 0, 0);
}

int world_add_agents(world_t *w, size_t count, bool at_point, float px, float py)
{
    if (count > w->max_agents - w->n) return SIM_E_LIMIT;
    if (reserve(w, w->n + count)) return SIM_E_LIMIT;
    agents_t *a = &w->cur;
    float speed = w->params.max_speed;
    for (size_t k = 0; k < count; k++) {
        size_t i = w->n + k;
        float x, y;
        if (at_point) {
            /* Uniform over a disc: radius ∝ sqrt(u). */
            float r = SIM_SPAWN_RADIUS * sqrtf(prng_unit(&w->rng));
            float t = 6.28318531f * prng_unit(&w->rng);
            x = fminf(fmaxf(px + r * cosf(t), 0.0f), w->width);
            y = fminf(fmaxf(py + r * sinf(t), 0.0f), w->height);
        } else {
            x = prng_range(&w->rng, 0.0f, w->width);
            y = prng_range(&w->rng, 0.0f, w->height);
        }
        float heading = 6.28318531f * prng_unit(&w->rng);
        float s = speed * prng_range(&w->rng, 0.5f, 1.0f);
        a->x[i] = x;
        a->y[i] = y;
        a->vx[i] = s * cosf(heading);
        a->vy[i] = s * sinf(heading);
        a->id[i] = (uint32_t)i;
        a->flags[i] = 0;
    }
    size_t before = w->n;
    w->n += count;
    assign_species(w, before);
    init_feature_values(w, before);
    /* The history is laid out by capacity and knows nothing of the new
     * agents: start it again from now. */
    if (w->history && history_configure(w)) return SIM_E_LIMIT;
    return SIM_OK;
}

/* Brings the world in line with parameters that just changed from before:
 * grid, species, predators, optional arrays, delay history. Allocates only
 * here (a command), never in a step. On failure restores before. */
static int apply_params(world_t *w, const sim_params_t *before, const sim_params_t before_species[SIM_MAX_SPECIES])
{
    if (max_radius(w) != w->grid_cell && configure_grid(w)) goto fail;
    if (w->params.species != before->species) assign_species(w, 0);
    predators_configure(w);
    if (configure_feature_arrays(w)) goto fail;
    if (w->radius_ali && (w->params.ali_radius != before->ali_radius || w->params.coh_radius != before->coh_radius)) {
        /* Density-dependent radii start again from the new largest. */
        for (size_t i = 0; i < w->n; i++) {
            const sim_params_t *p = world_params_for(w, w->cur.flags[i]);
            w->radius_ali[w->cur.id[i]] = p->ali_radius, w->radius_coh[w->cur.id[i]] = p->coh_radius;
        }
    }
    if (w->params.delay_ticks != before->delay_ticks && history_configure(w)) goto fail;
    return SIM_OK;
fail:
    w->params = *before;
    memcpy(w->species_params, before_species, sizeof w->species_params);
    configure_grid(w);
    configure_feature_arrays(w);
    history_configure(w);
    return SIM_E_LIMIT;
}

/* Sets a parameter for species [first, last]; species 0's values are the
 * world's own (w->params), which species_params[0] mirrors. */
static int set_for_species(world_t *w, int first, int last, size_t index, double value, char *msg, size_t msg_len)
{
    sim_params_t before = w->params, before_species[SIM_MAX_SPECIES];
    memcpy(before_species, w->species_params, sizeof before_species);
    /* Every species has the same ranges, so only the first call can refuse,
     * before anything changed. */
    for (int s = first; s <= last; s++) {
        int rc = params_set(&w->species_params[s], index, value, msg, msg_len);
        if (rc != SIM_OK) return rc;
    }
    if (first == 0) w->params = w->species_params[0];
    return apply_params(w, &before, before_species);
}

int world_set_param(world_t *w, size_t index, double value, char *msg, size_t msg_len)
{
    /* Without a species, a value is everyone's. */
    return set_for_species(w, 0, SIM_MAX_SPECIES - 1, index, value, msg, msg_len);
}

int world_set_species_param(world_t *w, int species, size_t index, double value, char *msg, size_t msg_len)
{
    if (species < 0 || species >= SIM_MAX_SPECIES) {
        snprintf(msg, msg_len, "species must be in [0, %d]", SIM_MAX_SPECIES - 1);
        return SIM_E_OUT_OF_RANGE;
    }
    /* A species' own value of a world-only parameter would be echoed and
     * do nothing (1-3), or, for species 0, whose values are the world's,
     * change every species: refused either way, nothing changed. */
    if (params_world_only(index)) {
        snprintf(msg, msg_len, "%s is the world's, not a species' own: set it without species",
                 params_desc(index)->name);
        return SIM_E_OUT_OF_RANGE;
    }
    return set_for_species(w, species, species, index, value, msg, msg_len);
}

int world_set_target(world_t *w, uint32_t client_id, float x, float y)
{
    size_t i = 0;
    while (i < w->n_targets && w->targets[i].client_id < client_id) i++;
    if (i < w->n_targets && w->targets[i].client_id == client_id) {
        /* A dragged target moves: its velocity is the last move over the
         * time it took (Olfati-Saber's γ-agent follows it). */
        target_t *t = &w->targets[i];
        uint64_t ticks = w->tick > t->moved_tick ? w->tick - t->moved_tick : 1;
        float elapsed = (float)ticks * w->dt;
        t->vx = (x - t->x) / elapsed;
        t->vy = (y - t->y) / elapsed;
        t->x = x;
        t->y = y;
        t->moved_tick = w->tick;
        return SIM_OK;
    }
    if (w->n_targets == w->max_targets) return SIM_E_LIMIT;
    memmove(&w->targets[i + 1], &w->targets[i], (w->n_targets - i) * sizeof *w->targets);
    w->targets[i] = (target_t){client_id, x, y, 0.0f, 0.0f, w->tick};
    w->n_targets++;
    return SIM_OK;
}

void world_clear_target(world_t *w, uint32_t client_id)
{
    for (size_t i = 0; i < w->n_targets; i++) {
        if (w->targets[i].client_id != client_id) continue;
        memmove(&w->targets[i], &w->targets[i + 1], (w->n_targets - i - 1) * sizeof *w->targets);
        w->n_targets--;
        return;
    }
}

int world_add_obstacle(world_t *w, float x, float y, float r, uint32_t *id_out)
{
    return world_add_moving_obstacle(w, x, y, r, 0.0f, 0.0f, id_out);
}

int world_add_moving_obstacle(world_t *w, float x, float y, float r, float vx, float vy, uint32_t *id_out)
{
    return world_add_owned_obstacle(w, x, y, r, vx, vy, 0, id_out);
}

int world_add_owned_obstacle(world_t *w, float x, float y, float r, float vx, float vy, uint32_t owner,
                             uint32_t *id_out)
{
    if (w->n_obstacles == SIM_MAX_OBSTACLES) return SIM_E_LIMIT;
    uint32_t id = w->next_obstacle_id++;
    w->obstacles[w->n_obstacles++] = (obstacle_t){.id = id, .x = x, .y = y, .r = r, .vx = vx, .vy = vy, .owner = owner};
    if (id_out) *id_out = id;
    return SIM_OK;
}

const obstacle_t *world_find_obstacle(const world_t *w, uint32_t id)
{
    for (size_t i = 0; i < w->n_obstacles; i++)
        if (w->obstacles[i].id == id) return &w->obstacles[i];
    return NULL;
}

size_t world_count_owned_obstacles(const world_t *w, uint32_t owner)
{
    size_t count = 0;
    for (size_t i = 0; i < w->n_obstacles; i++) count += w->obstacles[i].owner == owner;
    return count;
}

size_t world_remove_owned_obstacles(world_t *w, uint32_t owner)
{
    if (owner == 0) return 0;
    /* Order matters: obstacles are applied in table order, and a replay
     * must find the same table. */
    size_t kept = 0;
    for (size_t i = 0; i < w->n_obstacles; i++)
        if (w->obstacles[i].owner != owner) w->obstacles[kept++] = w->obstacles[i];
    size_t removed = w->n_obstacles - kept;
    w->n_obstacles = kept;
    return removed;
}

int world_move_obstacle(world_t *w, uint32_t id, float x, float y)
{
    for (size_t i = 0; i < w->n_obstacles; i++) {
        if (w->obstacles[i].id != id) continue;
        w->obstacles[i].x = x;
        w->obstacles[i].y = y;
        return SIM_OK;
    }
    return SIM_E_NOT_FOUND;
}

int world_remove_obstacle(world_t *w, uint32_t id)
{
    for (size_t i = 0; i < w->n_obstacles; i++) {
        if (w->obstacles[i].id != id) continue;
        memmove(&w->obstacles[i], &w->obstacles[i + 1], (w->n_obstacles - i - 1) * sizeof *w->obstacles);
        w->n_obstacles--;
        return SIM_OK;
    }
    return SIM_E_NOT_FOUND;
}

uint32_t world_candidate_cap_of(size_t n, uint32_t max_candidates)
{
    const size_t share = n ? SIM_CANDIDATE_BUDGET / n : SIM_CANDIDATE_BUDGET;
    const uint32_t cap = share > SIM_CANDIDATE_FLOOR ? (share < max_candidates ? (uint32_t)share : max_candidates)
                                                     : SIM_CANDIDATE_FLOOR;
    return cap < max_candidates ? cap : max_candidates;
}

uint32_t world_candidate_cap(const world_t *w)
{
    return world_candidate_cap_of(w->n, (uint32_t)w->params.max_candidates);
}

/* Below this population a step of a normal flock takes well under a
 * millisecond and waking the other threads costs more than it saves … */
#define PARALLEL_MIN_AGENTS 16384
/* … unless a crowd makes each agent's sensing dear: as many pairs as such
 * a flock's (about twelve neighbours each) are worth the threads too. */
#define PARALLEL_MIN_PAIRS (16384.0 * 12.0)

size_t world_parallel_from(double mean_neighbours)
{
    double by_pairs = mean_neighbours > 0.0 ? ceil(PARALLEL_MIN_PAIRS / mean_neighbours) : INFINITY;
    return by_pairs < PARALLEL_MIN_AGENTS ? (size_t)by_pairs : PARALLEL_MIN_AGENTS;
}

/* The last step's density decides (a split never changes the results). */
static int task_count(const world_t *w)
{
    return w->threads == 1 || w->n < world_parallel_from(w->mean_neighbours) ? 1 : w->threads * TASKS_PER_THREAD;
}

/* Runs fn over all tasks, on the pool when there is one. */
static void run_tasks(world_t *w, workers_fn fn, int n_tasks)
{
    if (w->pool)
        workers_run(w->pool, fn, w, n_tasks);
    else
        for (int t = 0; t < n_tasks; t++) fn(w, t, 0);
}

static void swap_arrays(agents_t *c, agents_t *n, bool with_ids)
{
    agents_t tmp = *c;
    *c = *n;
    *n = tmp;
    if (!with_ids) { /* ids stay where the sort put them */
        uint32_t *id = c->id;
        c->id = n->id;
        n->id = id;
    }
}

/* How many agents a re-sort finds the places of before it moves them: the
 * places stay in the first-level cache. */
#define SORT_CHUNK 256

/* dst[place[t]] = src[t] for t < len: one array of a block of the re-sort. */
#define SCATTER(dst, src, place, len)                                           \
    do {                                                                        \
        for (uint32_t t_ = 0; t_ < (len); t_++) (dst)[(place)[t_]] = (src)[t_]; \
    } while (0)

/* Moves agents [begin, end) from cur into next, agent i to
 * cursor[cell_of[i]]++ (the grid's counting sort, placing the agents
 * themselves instead of an order to copy them by afterwards: one pass over
 * them, not two). Most agents keep their cell from one tick to the next
 * and the sort is stable, so most places come in runs of consecutive
 * indices, moved a vector at a time. */
KERNEL_CLONES
static void sort_part(world_t *w, size_t begin, size_t end, uint32_t *restrict cursor)
{
    /* Local restrict pointers: the flags are bytes, which may alias
     * anything, and the compiler would reload every array pointer from the
     * world after each store. */
    const uint32_t *restrict cell_of = w->grid.cell_of;
    const agents_t src = w->cur, dst = w->next;
    float *restrict hx = w->params.ali_mode == ALIGN_HEADING ? w->head_x : NULL, *restrict hy = w->head_y;
    const lanes_i ramp = {0, 1, 2, 3, 4, 5, 6, 7};
    uint32_t place[SORT_CHUNK];
    for (size_t first = begin; first < end; first += SORT_CHUNK) {
        const uint32_t len = (uint32_t)(end - first < SORT_CHUNK ? end - first : SORT_CHUNK);
        for (uint32_t j = 0; j < len; j++) place[j] = cursor[cell_of[first + j]]++;
        /* A block of LANES agents at a time: one branch per block (the
         * runs are often broken, and a test per agent mispredicts), and
         * a broken block one array at a time (a loop of two pointers,
         * which stay in registers). */
        for (uint32_t j = 0; j < len; j += LANES) {
            const size_t i = first + j;
            const uint32_t k = place[j], m = len - j < LANES ? len - j : LANES;
            if (m == LANES && !lanes_any(lanes_load_i(place + j) != (int32_t)k + ramp)) {
                lanes_store(dst.x + k, lanes_load(src.x + i));
                lanes_store(dst.y + k, lanes_load(src.y + i));
                lanes_store(dst.vx + k, lanes_load(src.vx + i));
                lanes_store(dst.vy + k, lanes_load(src.vy + i));
                memcpy(dst.id + k, src.id + i, LANES * sizeof *dst.id);
                memcpy(dst.flags + k, src.flags + i, LANES);
                continue;
            }
            SCATTER(dst.x, src.x + i, place + j, m);
            SCATTER(dst.y, src.y + i, place + j, m);
            SCATTER(dst.vx, src.vx + i, place + j, m);
            SCATTER(dst.vy, src.vy + i, place + j, m);
            SCATTER(dst.id, src.id + i, place + j, m);
            SCATTER(dst.flags, src.flags + i, place + j, m);
        }
        if (!hx) continue;
        for (uint32_t j = 0; j < len; j++) {
            const float vx = src.vx[first + j], vy = src.vy[first + j], s = sqrtf(vx * vx + vy * vy);
            hx[place[j]] = s > 0.0f ? vx / s : 0.0f;
            hy[place[j]] = s > 0.0f ? vy / s : 0.0f;
        }
    }
}

#undef SCATTER

/* The grid's build in parts (grid.h), each part moving its own agents. */
static void grid_count_task(void *ctx, int task, int thread)
{
    (void)thread;
    world_t *w = ctx;
    grid_count_part(&w->grid, w->n, w->cur.x, w->cur.y, task);
}

static void sort_task(void *ctx, int task, int thread)
{
    (void)thread;
    world_t *w = ctx;
    sort_part(w, grid_part_begin(&w->grid, w->n, task), grid_part_begin(&w->grid, w->n, task + 1),
              grid_part_cursor(&w->grid, task));
}

/* Bins the agents and re-sorts the state by grid cell (cur → next, then
 * swap), so that neighbours are close in memory for steering: on every
 * thread when the step runs on them. */
static void sort_by_cell(world_t *w)
{
    if (task_count(w) == 1 || !grid_in_parts(&w->grid)) {
        grid_bin(&w->grid, w->n, w->cur.x, w->cur.y);
        sort_part(w, 0, w->n, w->grid.cursor);
    } else {
        run_tasks(w, grid_count_task, w->threads);
        grid_sum_parts(&w->grid);
        run_tasks(w, sort_task, w->threads);
    }
    swap_arrays(&w->cur, &w->next, true);
}

/* Steers task's share of the agents: an equal count each, cut anywhere
 * (inside a cell too, so that a crowd in a few cells is shared). */
static void steer_task(void *ctx, int task, int thread)
{
    world_t *w = ctx;
    size_t n_tasks = (size_t)task_count(w);
    size_t begin = w->n * (size_t)task / n_tasks, end = w->n * (size_t)(task + 1) / n_tasks;
    w->task_pairs[task] = step_agents(w, (uint32_t)begin, (uint32_t)end, &w->scratch[2 * thread]);
}

/* Moving obstacles glide and bounce off the world's edges (they do not
 * wrap: a half-visible obstacle on both sides would be confusing). */
static void move_obstacles(world_t *w)
{
    for (size_t k = 0; k < w->n_obstacles; k++) {
        obstacle_t *o = &w->obstacles[k];
        if (o->vx == 0.0f && o->vy == 0.0f) continue;
        o->x += o->vx * w->dt;
        o->y += o->vy * w->dt;
        if (o->x < o->r) o->x = o->r, o->vx = fabsf(o->vx);
        if (o->x > w->width - o->r) o->x = w->width - o->r, o->vx = -fabsf(o->vx);
        if (o->y < o->r) o->y = o->r, o->vy = fabsf(o->vy);
        if (o->y > w->height - o->r) o->y = w->height - o->r, o->vy = -fabsf(o->vy);
    }
}

/* A target not moved for this long is standing still. */
#define TARGET_STILL_TICKS 15

/* The γ reference glides at its velocity, wrapping; targets come to rest. */
static void move_references(world_t *w)
{
    w->gamma_x += w->params.os_ref_vx * w->dt;
    w->gamma_y += w->params.os_ref_vy * w->dt;
    w->gamma_x -= w->width * floorf(w->gamma_x / w->width);
    w->gamma_y -= w->height * floorf(w->gamma_y / w->height);
    for (size_t k = 0; k < w->n_targets; k++)
        if (w->tick - w->targets[k].moved_tick > TARGET_STILL_TICKS) w->targets[k].vx = w->targets[k].vy = 0.0f;
}

void world_step(world_t *w)
{
    /* Obstacles move first, so that no agent is left inside one that moved
     * onto it: agents are pushed out against the obstacles' new places. */
    move_obstacles(w);
    /* The targets by place, for this step's nearest-target look-ups; the
     * commands between steps may move them, so it is valid only until the
     * step ends (look-ups outside a step scan). */
    target_index_build(&w->target_index, w->targets, w->n_targets, w->width, w->height,
                       w->params.border == BORDER_WRAP);
    motion_copy_places(w);

    sort_by_cell(w);

    /* Sense, steer and move every agent from cur into next. */
    int n_tasks = task_count(w);
    run_tasks(w, steer_task, n_tasks);
    swap_arrays(&w->cur, &w->next, false);

    uint64_t pairs = 0;
    for (int t = 0; t < n_tasks; t++) pairs += w->task_pairs[t];
    w->mean_neighbours = w->n ? (double)pairs / (double)w->n : 0.0;
    w->stepped_n = w->n;
    w->target_index.valid = w->target_index.places = w->places.valid = false;
    move_references(w);
    predators_hunt(w);
    w->tick++;
    if (w->history) record_history(w, (size_t)(w->tick % w->history_frames));
}

size_t world_memory_bytes(const world_t *w)
{
    const size_t per_agent = 4 * sizeof(float) + sizeof(uint32_t) + sizeof(uint8_t); /* x y vx vy id flags */
    size_t bytes = 2 * (w->cap + SENSE_LANES) * per_agent;                          /* cur and next */
    bytes += w->grid.agents_cap * 2 * sizeof(uint32_t);                             /* cell_of, order */
    bytes += (w->grid.cells_cap * 2 + 1) * sizeof(uint32_t);                        /* cell_start, cursor */
    bytes += 2 * (size_t)w->threads * ((size_t)SIM_MAX_CANDIDATES + 2 * SENSE_LANES) * 5 * sizeof(float);
    for (float **arr = feature_arrays_begin((world_t *)w); arr < feature_arrays_end((world_t *)w); arr++)
        if (*arr) bytes += (w->cap + SENSE_LANES) * sizeof(float); /* optional per-agent arrays */
    bytes += w->history_frames * 4 * (w->cap + SENSE_LANES) * sizeof(float);       /* delayed feedback */
    bytes += w->max_targets * sizeof(target_t) + sizeof *w;
    return bytes;
}

int world_agents_placed(world_t *w)
{
    w->stepped_n = 0; /* no step led to these velocities: no turn to measure */
    return w->history && history_configure(w) ? SIM_E_LIMIT : SIM_OK;
}
