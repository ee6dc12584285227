/* swarmcast-step-hashes: a fingerprint of the simulation's results, for
 * changes that must not change them (speed work, refactoring).
 *
 * For a fixed list of configurations — every model, species, predators,
 * wander, density-dependent radii, alignment by heading, delayed feedback,
 * every border, fields of view, obstacles, targets, the population
 * limit's crowds with every option — it builds a world of
 * 20,000 agents, steps it 40 times on the given number of threads and
 * prints a hash of the whole state (positions, velocities, ids, flags) per
 * line. Run it before and after a change and compare the output: equal
 * lines mean bit-identical results. It is a tool, not a test: a change
 * that is meant to alter the physics alters these lines.
 *
 *   swarmcast-step-hashes [threads]        (default 1) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/capacity.h"
#include "sim/params.h"
#include "sim/world.h"

/* FNV-1a over the state, agent by agent in array order. */
static uint64_t hash_world(const world_t *w)
{
    uint64_t h = 1469598103934665603ull;
    const uint64_t prime = 1099511628211ull;
    for (size_t i = 0; i < w->n; i++) {
        const float f[4] = {w->cur.x[i], w->cur.y[i], w->cur.vx[i], w->cur.vy[i]};
        for (int k = 0; k < 4; k++) {
            uint32_t u;
            memcpy(&u, &f[k], sizeof u);
            h = (h ^ u) * prime;
        }
        h = (h ^ w->cur.id[i]) * prime;
        h = (h ^ w->cur.flags[i]) * prime;
    }
    return h;
}

static int set(world_t *w, const char *name, double value)
{
    char msg[160];
    int index = params_find(name);
    if (index < 0 || world_set_param(w, (size_t)index, value, msg, sizeof msg) != SIM_OK) {
        fprintf(stderr, "cannot set %s = %g: %s\n", name, value, index < 0 ? "no such parameter" : msg);
        return -1;
    }
    return 0;
}

/* Parameter settings "name=value ...", plus OBS (three obstacles, one
 * moving), TGT (two client targets) and CROWDk: the population limit's
 * crowd case k (sim/capacity.h: its options, 64 overlapping obstacles over
 * the crowd, the predators in it, eight targets round it), every agent
 * packed into 40 x 40 u in the middle. */
static const char *const configs[] = {
    "",
    "model=1",
    "model=2",
    "model=3 OBS",
    "model=4",
    "species=3",
    "predators=3",
    "w_wander=1",
    "density_radii=1",
    "ali_mode=1",
    "delay_ticks=5",
    "delay_ticks=3 delay_mode=1",
    "delay_ticks=3 delay_mode=2",
    "border=1",
    "border=2",
    "leader_rule=1 arrive_radius=80 TGT",
    "w_target=0 TGT",
    "fov_sep=200 fov_coh=120",
    "fov_ali=120 fov_sep=120 fov_coh=120",
    "fov_ali=360 fov_sep=360 fov_coh=360",
    "coh_radius=70",
    "sep_radius=60",
    "OBS",
    "TGT",
    "OBS TGT species=2",
    "OBS border=1 TGT",
    "separation=1",
    "separation=1 species=2 TGT",
    "personal_space=0",
    "model=4 OBS TGT species=2",
    "model=4 predators=3 border=1",
    "model=4 leader_rule=1 TGT delay_ticks=3",
    "model=5",
    "model=5 OBS TGT species=2",
    "model=5 predators=3 border=1 cz_fov=360",
    "model=5 cz_noise=0 TGT delay_ticks=3",
    /* Staggered steering (issue 25): every model, with what coasting
     * agents must still respect (obstacles, borders) and the side state. */
    "steer_every=2",
    "steer_every=3 OBS TGT",
    "steer_every=3 border=1 w_wander=1 density_radii=1",
    "steer_every=2 ali_mode=1 species=2 predators=3 border=2",
    "steer_every=3 model=1",
    "steer_every=3 model=3 OBS TGT",
    "steer_every=3 model=4 OBS",
    "steer_every=3 model=5 OBS TGT species=2",
    "steer_every=8 delay_ticks=3 delay_mode=1",
    "CROWD1",
    "CROWD2",
    "CROWD3",
};

static int run(const char *config, int threads)
{
    const size_t n = 20000;
    const float side = sqrtf((float)n / 100000.0f) * 8090.0f; /* about ten neighbours each */
    world_config_t cfg = {side, side, 1.0f / 60.0f, 7, n, n, 8, threads};
    world_t w;
    if (world_init(&w, &cfg)) {
        fprintf(stderr, "cannot build a world\n");
        return -1;
    }
    char words[256];
    snprintf(words, sizeof words, "%s", config);
    int rc = 0;
    for (char *save = NULL, *t = strtok_r(words, " ", &save); t && !rc; t = strtok_r(NULL, " ", &save)) {
        if (!strcmp(t, "OBS")) {
            world_add_obstacle(&w, side * 0.3f, side * 0.3f, 60.0f, NULL);
            world_add_moving_obstacle(&w, side * 0.6f, side * 0.5f, 100.0f, 40.0f, -30.0f, NULL);
            world_add_obstacle(&w, side * 0.8f, side * 0.2f, 30.0f, NULL);
        } else if (!strncmp(t, "CROWD", 5)) {
            rc = capacity_dress_crowd(&w, atoi(t + 5), 0.5f * side, 0.5f * side, 40.0f, 8);
            if (!rc) capacity_pack_crowd(&w, 0.5f * side, 0.5f * side, 40.0f);
        } else if (!strcmp(t, "TGT")) {
            world_set_target(&w, 1, side * 0.5f, side * 0.5f);
            world_set_target(&w, 2, side * 0.1f, side * 0.9f);
        } else {
            char *eq = strchr(t, '=');
            if (!eq) {
                fprintf(stderr, "bad setting %s\n", t);
                rc = -1;
                break;
            }
            *eq = '\0';
            rc = set(&w, t, atof(eq + 1));
        }
    }
    if (!rc) {
        for (int s = 0; s < 40; s++) world_step(&w);
        printf("%-40s %016llx  neighbours %.2f\n", config[0] ? config : "(defaults)",
               (unsigned long long)hash_world(&w), w.mean_neighbours);
    }
    world_free(&w);
    return rc;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    if (argc > 2 || threads < 1) {
        fprintf(stderr, "usage: swarmcast-step-hashes [threads]\n");
        return 2;
    }
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++)
        if (run(configs[c], threads)) return 1;
    return 0;
}
