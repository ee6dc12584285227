#include "sim/world_image.h"

#include <stdlib.h>
#include <string.h>

#include "sim/commands.h"

/* A copy of n elements of size bytes (at least one, so that NULL means
 * failure), or NULL. */
static void *copy_of(const void *src, size_t n, size_t size)
{
    void *dst = malloc((n ? n : 1) * size);
    if (dst && n) memcpy(dst, src, n * size);
    return dst;
}

void world_image_free(world_image_t *img)
{
    agents_free(&img->cur);
    free(img->radius_ali);
    free(img->radius_coh);
    free(img->wander);
    free(img->history);
    free(img->targets);
    memset(img, 0, sizeof *img);
}

int world_image_capture(world_image_t *img, const world_t *w)
{
    world_image_free(img);
    img->params = w->params;
    memcpy(img->species_params, w->species_params, sizeof img->species_params);
    img->seed = w->seed;
    img->tick = w->tick;
    img->rng = w->rng;
    img->paused = w->paused;
    img->gamma_x = w->gamma_x;
    img->gamma_y = w->gamma_y;
    img->mean_neighbours = w->mean_neighbours;
    size_t n = img->n = w->n;
    size_t m = n ? n : 1;
    img->cur = (agents_t){malloc(m * sizeof(float)), malloc(m * sizeof(float)),    malloc(m * sizeof(float)),
                          malloc(m * sizeof(float)), malloc(m * sizeof(uint32_t)), malloc(m)};
    bool ok = img->cur.x && img->cur.y && img->cur.vx && img->cur.vy && img->cur.id && img->cur.flags;
    if (ok) agents_copy(&img->cur, &w->cur, n);
    /* Per-id arrays: ids are 0 … n−1 (agents are only ever added, or all
     * drawn again by a reset). */
    if (w->radius_ali) ok = ok && (img->radius_ali = copy_of(w->radius_ali, n, sizeof(float)));
    if (w->radius_coh) ok = ok && (img->radius_coh = copy_of(w->radius_coh, n, sizeof(float)));
    if (w->wander) ok = ok && (img->wander = copy_of(w->wander, n, sizeof(float)));
    if (ok && w->history) {
        /* The world lays its frames out by capacity; the image by n. */
        size_t stride = w->cap + SENSE_LANES;
        img->history_frames = w->history_frames;
        size_t floats = img->history_frames * 4 * n;
        ok = (img->history = malloc((floats ? floats : 1) * sizeof(float))) != NULL;
        for (size_t f = 0; ok && f < img->history_frames * 4; f++)
            memcpy(img->history + f * n, w->history + f * stride, n * sizeof(float));
    }
    memcpy(img->obstacles, w->obstacles, w->n_obstacles * sizeof *w->obstacles);
    img->n_obstacles = w->n_obstacles;
    img->next_obstacle_id = w->next_obstacle_id;
    img->n_targets = w->n_targets;
    ok = ok && (img->targets = copy_of(w->targets, w->n_targets, sizeof *w->targets));
    memcpy(img->predators, w->predators, w->n_predators * sizeof *w->predators);
    img->n_predators = w->n_predators;
    if (ok) return 0;
    world_image_free(img);
    return -1;
}

int world_adopt_params(world_t *w, const sim_params_t *params, const sim_params_t species[SIM_MAX_SPECIES])
{
    char why[160];
    if (!memcmp(&w->params, params, sizeof w->params) && !memcmp(w->species_params, species, sizeof w->species_params))
        return 0;
    /* Every parameter for every species, then each species' own values.
     * Files written before world-only parameters were refused per species
     * may hold a species' own value of one: it never changed what the world
     * did, so it is ignored and the world's value kept. */
    for (size_t i = 0; i < params_count(); i++)
        if (world_set_param(w, i, params_get(params, i), why, sizeof why) != SIM_OK) return -1;
    for (int s = 1; s < SIM_MAX_SPECIES; s++)
        for (size_t i = 0; i < params_count(); i++) {
            if (params_world_only(i)) continue;
            double v = params_get(&species[s], i);
            if (v != params_get(&w->species_params[s], i) &&
                world_set_species_param(w, s, i, v, why, sizeof why) != SIM_OK)
                return -1;
        }
    return 0;
}

int world_image_restore(const world_image_t *img, world_t *w)
{
    if (world_adopt_params(w, &img->params, img->species_params)) return -1;
    /* The population at the image's size (this also sizes the arrays and
     * the delay memory by the world's capacity); then every value. */
    if (world_reset(w, img->seed, img->n) != SIM_OK) return -1;
    size_t n = img->n;
    agents_copy(&w->cur, &img->cur, n);
    if (w->radius_ali && img->radius_ali) memcpy(w->radius_ali, img->radius_ali, n * sizeof(float));
    if (w->radius_coh && img->radius_coh) memcpy(w->radius_coh, img->radius_coh, n * sizeof(float));
    if (w->wander && img->wander) memcpy(w->wander, img->wander, n * sizeof(float));
    if (w->history && img->history && w->history_frames == img->history_frames) {
        size_t stride = w->cap + SENSE_LANES;
        for (size_t f = 0; f < img->history_frames * 4; f++)
            memcpy(w->history + f * stride, img->history + f * n, n * sizeof(float));
    }
    w->tick = img->tick;
    w->rng = img->rng;
    w->paused = img->paused;
    w->gamma_x = img->gamma_x;
    w->gamma_y = img->gamma_y;
    w->mean_neighbours = img->mean_neighbours;
    w->stepped_n = 0;
    memcpy(w->obstacles, img->obstacles, img->n_obstacles * sizeof *img->obstacles);
    w->n_obstacles = img->n_obstacles;
    w->next_obstacle_id = img->next_obstacle_id;
    if (img->n_targets > w->max_targets) return -1;
    memcpy(w->targets, img->targets, img->n_targets * sizeof *img->targets);
    w->n_targets = img->n_targets;
    memcpy(w->predators, img->predators, img->n_predators * sizeof *img->predators);
    w->n_predators = img->n_predators;
    return 0;
}

size_t world_image_bytes(const world_image_t *img)
{
    size_t per_agent = 4 * sizeof(float) + sizeof(uint32_t) + 1;
    size_t features = (img->radius_ali != NULL) + (img->radius_coh != NULL) + (img->wander != NULL);
    return img->n * per_agent + features * img->n * sizeof(float) + img->history_frames * 4 * img->n * sizeof(float) +
           img->n_targets * sizeof(target_t) + sizeof *img;
}
