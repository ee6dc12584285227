/* Fuzz target: the state-file reader (server/src/persist/state_file.c), on
 * any bytes as a file's content, for a 1600 x 900 world of at most 1000
 * agents. Besides memory safety, undefined behaviour and leaks it checks that
 * an accepted image lies within that world, and that the image written again
 * (state_image_print, what the server saves) reads back the same. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_check.h"
#include "persist/state_file.h"
#include "sim/params.h"

static const cmd_limits_t LIMITS = {.width = 1600, .height = 900, .max_agents = 1000};

static bool in_world(float x, float y) { return x >= 0 && x <= LIMITS.width && y >= 0 && y <= LIMITS.height; }

static bool same_bits(const void *a, const void *b, size_t n) { return n == 0 || memcmp(a, b, n) == 0; }

static bool same_params(const sim_params_t *a, const sim_params_t *b)
{
    for (size_t i = 0; i < params_count(); i++) {
        double va = params_get(a, i), vb = params_get(b, i);
        if (!same_bits(&va, &vb, sizeof va)) return false;
    }
    return true;
}

static void check_image(const state_image_t *img)
{
    REQUIRE(img->width == LIMITS.width && img->height == LIMITS.height, "world %g x %g", img->width, img->height);
    REQUIRE(img->agents <= LIMITS.max_agents, "agents %zu", img->agents);
    REQUIRE(img->n_obstacles <= SIM_MAX_OBSTACLES, "%zu obstacles", img->n_obstacles);
    for (size_t k = 0; k < img->n_obstacles; k++) {
        const obstacle_t *o = &img->obstacles[k];
        REQUIRE(in_world(o->x, o->y) && o->r >= SIM_OBSTACLE_MIN_RADIUS && o->r <= SIM_OBSTACLE_MAX_RADIUS &&
                    fabsf(o->vx) <= SIM_OBSTACLE_MAX_SPEED && fabsf(o->vy) <= SIM_OBSTACLE_MAX_SPEED,
                "obstacle %zu", k);
    }
    if (!img->has_agents) return;
    for (size_t i = 0; i < img->agents; i++)
        REQUIRE(in_world(img->list.x[i], img->list.y[i]) && img->list.id[i] < img->agents, "agent %zu", i);
}

static void check_same(const state_image_t *a, const state_image_t *b)
{
    REQUIRE(a->seed == b->seed && a->agents == b->agents && a->paused == b->paused, "seed, agents, paused");
    REQUIRE(same_params(&a->params, &b->params), "params");
    for (int s = 0; s < SIM_MAX_SPECIES; s++) REQUIRE(same_params(&a->species_params[s], &b->species_params[s]), "species %d", s);
    REQUIRE(a->n_obstacles == b->n_obstacles, "%zu obstacles, then %zu", a->n_obstacles, b->n_obstacles);
    for (size_t k = 0; k < a->n_obstacles; k++) {
        const obstacle_t *p = &a->obstacles[k], *q = &b->obstacles[k]; /* ids are not kept */
        REQUIRE(same_bits(&p->x, &q->x, 4) && same_bits(&p->y, &q->y, 4) && same_bits(&p->r, &q->r, 4) &&
                    same_bits(&p->vx, &q->vx, 4) && same_bits(&p->vy, &q->vy, 4),
                "obstacle %zu", k);
    }
    REQUIRE(a->has_agents == b->has_agents, "has_agents");
    if (!a->has_agents) return;
    size_t n = a->agents;
    REQUIRE(a->tick == b->tick && a->rng.state == b->rng.state && a->rng.inc == b->rng.inc &&
                same_bits(&a->gamma_x, &b->gamma_x, 4) && same_bits(&a->gamma_y, &b->gamma_y, 4),
            "tick, generator, gamma");
    REQUIRE(a->n_predators == b->n_predators && same_bits(a->predators, b->predators, a->n_predators * sizeof *a->predators),
            "predators");
    REQUIRE(same_bits(a->list.x, b->list.x, n * 4) && same_bits(a->list.y, b->list.y, n * 4) &&
                same_bits(a->list.vx, b->list.vx, n * 4) && same_bits(a->list.vy, b->list.vy, n * 4) &&
                same_bits(a->list.id, b->list.id, n * 4) && same_bits(a->list.flags, b->list.flags, n),
            "agents");
    REQUIRE(!a->radius_ali == !b->radius_ali && !a->wander == !b->wander, "optional arrays");
    if (a->radius_ali)
        REQUIRE(same_bits(a->radius_ali, b->radius_ali, n * 4) && same_bits(a->radius_coh, b->radius_coh, n * 4),
                "radii");
    if (a->wander) REQUIRE(same_bits(a->wander, b->wander, n * 4), "wander");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    state_image_t img;
    char msg[512] = "";
    int rc = state_file_parse((const char *)data, size, &LIMITS, &img, msg, sizeof msg);
    REQUIRE(rc == STATE_FILE_OK || rc == STATE_FILE_INVALID || rc == STATE_FILE_NO_MEMORY, "rc %d", rc);
    if (rc != STATE_FILE_OK) {
        REQUIRE(msg[0] != '\0' && memchr(msg, '\0', sizeof msg), "a refusal without a reason");
        return 0;
    }
    check_image(&img);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    REQUIRE(f, "open_memstream");
    REQUIRE(state_image_print(f, &img) == 0, "state_image_print failed");
    fclose(f);
    state_image_t again;
    rc = state_file_parse(text, len, &LIMITS, &again, msg, sizeof msg);
    REQUIRE(rc == STATE_FILE_OK, "the image as written is refused: %s", msg);
    check_same(&img, &again);
    state_image_free(&again);
    state_image_free(&img);
    free(text);
    return 0;
}
