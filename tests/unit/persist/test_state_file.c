/* Unit tests of the state file (server/src/persist/state_file.c): a saved
 * set-up comes back into a fresh world; saved agents step on bit for bit;
 * a missing file is not an error; every kind of bad file is refused with a
 * message that names the problem and leaves the world exactly as it was;
 * a bad file is set aside without overwriting an earlier one; and a save
 * that fails leaves the previous file whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "persist/state_file.h"
#include "sim/world.h"

#define WIDTH 1600.0f
#define HEIGHT 900.0f
#define MAX_AGENTS 5000

/* ---- fixtures ------------------------------------------------------------ */

typedef struct fixture {
    char dir[64];
    char path[128];
} fixture_t;

static int setup(void **state)
{
    fixture_t *fx = calloc(1, sizeof *fx);
    if (!fx) return -1;
    snprintf(fx->dir, sizeof fx->dir, "/tmp/swarmcast-state-XXXXXX");
    if (!mkdtemp(fx->dir)) return -1;
    snprintf(fx->path, sizeof fx->path, "%s/state.json", fx->dir);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *fx = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
    int rc = system(cmd);
    free(fx);
    return rc;
}

static void make(world_t *w, uint32_t seed, size_t agents)
{
    world_config_t cfg = {.width = WIDTH, .height = HEIGHT, .dt = 1.0f / 60.0f, .seed = seed, .agents = agents,
                          .max_agents = MAX_AGENTS, .max_targets = 8, .threads = 1};
    assert_int_equal(world_init(w, &cfg), 0);
}

static void set(world_t *w, const char *name, double value)
{
    char msg[160];
    int i = params_find(name);
    assert_true(i >= 0);
    if (world_set_param(w, (size_t)i, value, msg, sizeof msg) != SIM_OK) fail_msg("%s: %s", name, msg);
}

static void set_species(world_t *w, int species, const char *name, double value)
{
    char msg[160];
    int i = params_find(name);
    assert_true(i >= 0);
    if (world_set_species_param(w, species, (size_t)i, value, msg, sizeof msg) != SIM_OK) fail_msg("%s: %s", name, msg);
}

static double get(const world_t *w, const char *name) { return params_get(&w->params, (size_t)params_find(name)); }

static char *read_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    text[n] = '\0';
    if (len) *len = (size_t)n;
    return text;
}

static void write_text(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static void save_ok(const char *path, const world_t *w, bool with_agents)
{
    char msg[300] = "";
    if (state_file_save(path, w, with_agents, msg, sizeof msg)) fail_msg("save failed: %s", msg);
}

static void load_ok(const char *path, world_t *w)
{
    char msg[300] = "";
    int rc = state_file_load(path, w, msg, sizeof msg);
    if (rc != STATE_FILE_OK) fail_msg("load returned %d: %s", rc, msg);
}

/* Everything a world is, hashed by the test itself (not by the code under
 * test): parameters, population, every agent array in storage order, the
 * optional per-agent arrays, obstacles with their ids, targets, predators,
 * tick, seed, generator and pause. */
typedef struct {
    uint64_t h;
} hash_t;

static void mix(hash_t *h, const void *data, size_t n)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < n; i++) h->h = (h->h ^ p[i]) * 0x100000001b3ull;
}

static uint64_t fingerprint(const world_t *w, bool with_obstacle_ids)
{
    hash_t h = {0xcbf29ce484222325ull};
    mix(&h, &w->params, sizeof w->params);
    mix(&h, w->species_params, sizeof w->species_params);
    mix(&h, &w->n, sizeof w->n);
    mix(&h, w->cur.x, w->n * sizeof(float));
    mix(&h, w->cur.y, w->n * sizeof(float));
    mix(&h, w->cur.vx, w->n * sizeof(float));
    mix(&h, w->cur.vy, w->n * sizeof(float));
    mix(&h, w->cur.id, w->n * sizeof(uint32_t));
    mix(&h, w->cur.flags, w->n);
    const float *optional[] = {w->radius_ali, w->radius_coh, w->wander};
    for (size_t k = 0; k < 3; k++) {
        bool has = optional[k] != NULL;
        mix(&h, &has, sizeof has);
        if (has) mix(&h, optional[k], w->n * sizeof(float));
    }
    mix(&h, &w->n_obstacles, sizeof w->n_obstacles);
    for (size_t i = 0; i < w->n_obstacles; i++) {
        const obstacle_t *o = &w->obstacles[i];
        float f[5] = {o->x, o->y, o->r, o->vx, o->vy};
        mix(&h, f, sizeof f);
        if (with_obstacle_ids) mix(&h, &o->id, sizeof o->id);
    }
    if (with_obstacle_ids) mix(&h, &w->next_obstacle_id, sizeof w->next_obstacle_id);
    mix(&h, &w->n_targets, sizeof w->n_targets);
    mix(&h, w->targets, w->n_targets * sizeof *w->targets);
    mix(&h, &w->n_predators, sizeof w->n_predators);
    mix(&h, w->predators, w->n_predators * sizeof *w->predators);
    mix(&h, &w->gamma_x, sizeof w->gamma_x);
    mix(&h, &w->gamma_y, sizeof w->gamma_y);
    mix(&h, &w->tick, sizeof w->tick);
    mix(&h, &w->seed, sizeof w->seed);
    mix(&h, &w->rng, sizeof w->rng);
    mix(&h, &w->paused, sizeof w->paused);
    return h.h;
}

/* A world set up the way an operator would: another model, changed and
 * per-species parameters, a larger population, a static and a moving
 * obstacle, paused. */
static void operator_world(world_t *w)
{
    make(w, 7, 500);
    set(w, "model", MODEL_OLFATI3);
    set(w, "border", BORDER_BOUNCE);
    set(w, "w_sep", 3.25);
    set(w, "fov_coh", 270);
    set(w, "species", 3);
    set_species(w, 2, "max_speed", 60);
    set_species(w, 1, "os_d", 31.5);
    assert_int_equal(world_add_agents(w, 200, true, 400, 300), SIM_OK);
    assert_int_equal(world_add_obstacle(w, 500, 300, 60, NULL), SIM_OK);
    assert_int_equal(world_add_moving_obstacle(w, 1150, 350, 45, 40, -25, NULL), SIM_OK);
    for (int k = 0; k < 5; k++) world_step(w);
    w->paused = true;
}

/* ---- what is kept ---------------------------------------------------------- */

static void a_saved_set_up_comes_back_into_a_fresh_world(void **state)
{
    fixture_t *fx = *state;
    world_t a, b;
    operator_world(&a);
    save_ok(fx->path, &a, false);
    make(&b, 99, 50);
    load_ok(fx->path, &b);

    assert_memory_equal(&b.params, &a.params, sizeof a.params);
    assert_memory_equal(b.species_params, a.species_params, sizeof a.species_params);
    assert_int_equal(b.params.model, MODEL_OLFATI3);
    assert_true(get(&b, "w_sep") == 3.25);
    assert_true(params_get(&b.species_params[2], (size_t)params_find("max_speed")) == 60);
    assert_true(params_get(&b.species_params[1], (size_t)params_find("os_d")) == 31.5);
    assert_true(b.paused);
    assert_int_equal(b.seed, 7);
    assert_int_equal(b.n, 700);
    assert_int_equal(b.n_obstacles, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_true(b.obstacles[i].x == a.obstacles[i].x && b.obstacles[i].y == a.obstacles[i].y);
        assert_true(b.obstacles[i].r == a.obstacles[i].r);
        assert_true(b.obstacles[i].vx == a.obstacles[i].vx && b.obstacles[i].vy == a.obstacles[i].vy);
    }
    /* The moving obstacle is kept where it had moved to, not where it began. */
    assert_true(b.obstacles[1].x != 1150.0f);
    world_free(&a);
    world_free(&b);
}

/* Visitors' obstacles go when their owners leave: a restart must not bring
 * them back. The operator's stay, in order. */
static void only_the_operators_obstacles_are_kept(void **state)
{
    fixture_t *fx = *state;
    world_t a, b;
    make(&a, 5, 100);
    uint32_t id;
    assert_int_equal(world_add_owned_obstacle(&a, 100, 100, 20, 0, 0, 0, &id), SIM_OK);
    assert_int_equal(world_add_owned_obstacle(&a, 200, 100, 30, 0, 0, 42, &id), SIM_OK); /* visitor 42's */
    assert_int_equal(world_add_owned_obstacle(&a, 300, 100, 40, 0, 0, 0, &id), SIM_OK);
    save_ok(fx->path, &a, false);
    make(&b, 6, 10);
    load_ok(fx->path, &b);
    assert_int_equal(b.n_obstacles, 2);
    assert_true(b.obstacles[0].r == 20.0f && b.obstacles[1].r == 40.0f);
    assert_int_equal(b.obstacles[0].owner, 0);
    assert_int_equal(b.obstacles[1].owner, 0);
    world_free(&a);
    world_free(&b);
}

static void without_agents_the_population_is_drawn_from_the_seed_as_a_reset_would(void **state)
{
    fixture_t *fx = *state;
    world_t a, b, reference;
    operator_world(&a);
    save_ok(fx->path, &a, false);
    make(&b, 99, 50);
    load_ok(fx->path, &b);
    /* The same parameters, then `reset` with the saved seed and population. */
    make(&reference, 1, 0);
    for (size_t i = 0; i < params_count(); i++) {
        char msg[160];
        assert_int_equal(world_set_param(&reference, i, params_get(&a.params, i), msg, sizeof msg), SIM_OK);
        /* (a world-only parameter has no species' own value to set) */
        for (int s = 1; s < SIM_MAX_SPECIES && !params_world_only(i); s++)
            assert_int_equal(world_set_species_param(&reference, s, i, params_get(&a.species_params[s], i), msg,
                                                     sizeof msg),
                             SIM_OK);
    }
    assert_int_equal(world_reset(&reference, 7, 700), SIM_OK);
    assert_int_equal(b.tick, 0);
    assert_memory_equal(b.cur.x, reference.cur.x, 700 * sizeof(float));
    assert_memory_equal(b.cur.vy, reference.cur.vy, 700 * sizeof(float));
    assert_memory_equal(b.cur.flags, reference.cur.flags, 700);
    world_free(&a);
    world_free(&b);
    world_free(&reference);
}

/* Worlds whose every piece of moving state matters to the next steps. */
static void reynolds_with_everything(world_t *w)
{
    make(w, 3, 900);
    set(w, "border", BORDER_BOUNCE);
    set(w, "species", 2);
    set(w, "w_wander", 1.5);
    set(w, "density_radii", 1);
    set(w, "predators", 3);
    set(w, "ali_mode", ALIGN_HEADING);
    set_species(w, 1, "w_coh", 2.5);
    assert_int_equal(world_add_moving_obstacle(w, 700, 400, 50, 90, 35, NULL), SIM_OK);
    assert_int_equal(world_set_target(w, 1, 1200, 300), SIM_OK);
}

static void unicycle_respawning(world_t *w)
{
    make(w, 11, 600);
    set(w, "model", MODEL_UNICYCLE);
    set(w, "border", BORDER_RESPAWN);
    set(w, "species", 4);
}

static void olfati_with_a_gliding_reference(world_t *w)
{
    make(w, 5, 400);
    set(w, "model", MODEL_OLFATI3);
    set(w, "os_ref_vx", 35);
    set(w, "os_ref_vy", -20);
    assert_int_equal(world_add_obstacle(w, 800, 450, 80, NULL), SIM_OK);
}

static void expect_same_motion(const world_t *a, const world_t *b, const char *what, int step)
{
    if (fingerprint(a, false) != fingerprint(b, false))
        fail_msg("%s: the restored world differs from the saved one after %d steps", what, step);
}

static void saved_agents_step_on_bit_for_bit(void **state)
{
    fixture_t *fx = *state;
    void (*const make_world[])(world_t *) = {reynolds_with_everything, unicycle_respawning,
                                             olfati_with_a_gliding_reference};
    const char *const names[] = {"reynolds with wander, density radii, predators and species", "unicycle, respawn",
                                 "olfati3 with a gliding reference"};
    for (size_t k = 0; k < 3; k++) {
        world_t a, b;
        make_world[k](&a);
        for (int s = 0; s < 40; s++) world_step(&a);
        /* Targets belong to connected clients, who are gone after a restart. */
        world_clear_target(&a, 1);
        save_ok(fx->path, &a, true);
        make(&b, 1234, 10);
        load_ok(fx->path, &b);
        assert_int_equal(b.tick, a.tick);
        assert_int_equal(b.n, a.n);
        expect_same_motion(&a, &b, names[k], 0);
        for (int s = 1; s <= 60; s++) {
            world_step(&a);
            world_step(&b);
            expect_same_motion(&a, &b, names[k], s);
        }
        /* The generator too: agents added later are the same agents. */
        assert_int_equal(world_add_agents(&a, 25, false, 0, 0), SIM_OK);
        assert_int_equal(world_add_agents(&b, 25, false, 0, 0), SIM_OK);
        expect_same_motion(&a, &b, names[k], 61);
        print_message("%s: %zu agents, identical for 60 steps after the restore\n", names[k], a.n);
        world_free(&a);
        world_free(&b);
    }
}

static void a_restored_world_saves_to_the_same_bytes(void **state)
{
    fixture_t *fx = *state;
    char second[160];
    snprintf(second, sizeof second, "%s/again.json", fx->dir);
    for (int with_agents = 0; with_agents < 2; with_agents++) {
        world_t a, b;
        reynolds_with_everything(&a);
        world_clear_target(&a, 1);
        for (int s = 0; s < 10; s++) world_step(&a);
        save_ok(fx->path, &a, with_agents);
        make(&b, 42, 3);
        load_ok(fx->path, &b);
        save_ok(second, &b, with_agents);
        size_t n1, n2;
        char *t1 = read_text(fx->path, &n1), *t2 = read_text(second, &n2);
        assert_int_equal(n1, n2);
        assert_memory_equal(t1, t2, n1);
        free(t1);
        free(t2);
        world_free(&a);
        world_free(&b);
    }
}

static void a_file_written_by_hand_needs_only_what_it_changes_among_the_parameters(void **state)
{
    fixture_t *fx = *state;
    const char *text = "{\"format\":\"swarmcast-state\",\"version\":1,\"world\":{\"width\":1600,\"height\":900},"
                       "\"seed\":3,\"agents\":10,\"paused\":true,\"params\":{\"w_sep\":2,\"border\":\"bounce\"},"
                       "\"species_params\":{},\"obstacles\":[{\"x\":100,\"y\":200,\"radius\":30}]}";
    write_text(fx->path, text, strlen(text));
    world_t w;
    make(&w, 1, 100);
    set(&w, "w_ali", 7); /* not in the file: back to its default */
    load_ok(fx->path, &w);
    assert_true(get(&w, "w_sep") == 2);
    assert_int_equal(w.params.border, BORDER_BOUNCE);
    assert_true(get(&w, "w_ali") == params_desc((size_t)params_find("w_ali"))->def);
    assert_int_equal(w.n, 10);
    assert_true(w.paused);
    assert_int_equal(w.n_obstacles, 1);
    assert_true(w.obstacles[0].vx == 0.0f && w.obstacles[0].r == 30.0f);
    world_free(&w);
}

/* Before set_param refused a species' own value of a world-only parameter,
 * a state file could hold one (it changed nothing the world did): such a
 * file still loads, the species' own value ignored, the world's kept, and
 * the species' other values applied. */
static void a_species_own_value_of_a_world_only_parameter_in_an_older_file_is_ignored(void **state)
{
    fixture_t *fx = *state;
    const char *text = "{\"format\":\"swarmcast-state\",\"version\":1,\"world\":{\"width\":1600,\"height\":900},"
                       "\"seed\":3,\"agents\":10,\"paused\":true,"
                       "\"params\":{\"species\":3,\"steer_every\":2,\"border\":\"bounce\"},"
                       "\"species_params\":{\"2\":{\"steer_every\":5,\"border\":\"respawn\",\"w_coh\":2.5}},"
                       "\"obstacles\":[]}";
    write_text(fx->path, text, strlen(text));
    world_t w;
    make(&w, 1, 100);
    load_ok(fx->path, &w);
    const int steer_every = params_find("steer_every"), border = params_find("border"), w_coh = params_find("w_coh");
    for (int s = 0; s < SIM_MAX_SPECIES; s++) {
        assert_true(params_get(&w.species_params[s], (size_t)steer_every) == 2);
        assert_true(params_get(&w.species_params[s], (size_t)border) == BORDER_BOUNCE);
    }
    assert_int_equal(world_steer_every(&w), 2);
    assert_int_equal(w.params.border, BORDER_BOUNCE);
    assert_true(params_get(&w.species_params[2], (size_t)w_coh) == 2.5);
    assert_true(params_get(&w.species_params[1], (size_t)w_coh) == params_desc((size_t)w_coh)->def);
    world_free(&w);
}

/* ---- what is refused --------------------------------------------------------- */

static void a_missing_file_is_not_an_error_and_changes_nothing(void **state)
{
    fixture_t *fx = *state;
    world_t w;
    operator_world(&w);
    uint64_t before = fingerprint(&w, true);
    char msg[300] = "";
    assert_int_equal(state_file_load(fx->path, &w, msg, sizeof msg), STATE_FILE_MISSING);
    assert_non_null(strstr(msg, fx->path));
    assert_true(fingerprint(&w, true) == before);
    world_free(&w);
}

static void a_directory_in_place_of_the_file_is_unreadable_not_bad(void **state)
{
    fixture_t *fx = *state;
    assert_int_equal(mkdir(fx->path, 0755), 0);
    world_t w;
    operator_world(&w);
    uint64_t before = fingerprint(&w, true);
    char msg[300] = "";
    assert_int_equal(state_file_load(fx->path, &w, msg, sizeof msg), STATE_FILE_UNREADABLE);
    assert_non_null(strstr(msg, "not a regular file"));
    assert_true(fingerprint(&w, true) == before);
    world_free(&w);
}

/* Replaces the first `from` in text with `to` (which must be there). */
static char *edit(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at) fail_msg("'%s' is not in the saved file", from);
    size_t head = (size_t)(at - text), nf = strlen(from), nt = strlen(to), n = strlen(text);
    char *out = malloc(n - nf + nt + 1);
    assert_non_null(out);
    memcpy(out, text, head);
    memcpy(out + head, to, nt);
    memcpy(out + head + nt, at + nf, n - head - nf + 1);
    return out;
}

typedef struct bad_case {
    const char *what, *from, *to; /* an edit of the good file; from NULL: `to` is the whole file */
    const char *expect;           /* in the message */
} bad_case_t;

static void expect_refused(const fixture_t *fx, const char *what, const char *text, size_t len, const char *expect)
{
    write_text(fx->path, text, len);
    world_t w;
    operator_world(&w);
    uint64_t before = fingerprint(&w, true);
    char msg[400] = "";
    int rc = state_file_load(fx->path, &w, msg, sizeof msg);
    if (rc != STATE_FILE_INVALID) fail_msg("%s: load returned %d (%s), expected INVALID", what, rc, msg);
    if (!strstr(msg, expect)) fail_msg("%s: the message \"%s\" does not say \"%s\"", what, msg, expect);
    if (fingerprint(&w, true) != before) fail_msg("%s: the world changed", what);
    print_message("%-40s -> %s\n", what, msg);
    world_free(&w);
}

static void bad_files_are_refused_with_a_message_and_change_nothing(void **state)
{
    fixture_t *fx = *state;
    world_t good;
    reynolds_with_everything(&good);
    world_clear_target(&good, 1);
    for (int s = 0; s < 5; s++) world_step(&good);
    good.obstacles[0] = (obstacle_t){good.obstacles[0].id, 700, 400, 50, 90, 35, 0};
    save_ok(fx->path, &good, true);
    size_t len;
    char *text = read_text(fx->path, &len);

    static const bad_case_t cases[] = {
        {"garbage", NULL, "\x01\xff swarm", "not valid JSON (near line 1 of 8 bytes)"},
        {"an empty file", NULL, "", "not valid JSON"},
        {"a JSON array", NULL, "[1,2]", "one JSON object"},
        {"another format", "\"format\":\"swarmcast-state\"", "\"format\":\"swarmcast-record\"", "not a swarmcast state file"},
        {"a later version", "\"version\":1", "\"version\":2", "version 2 is not supported"},
        {"a world of another size", "\"width\":1600", "\"width\":800", "for a 800x900 world; this one is 1600x900"},
        {"a parameter out of range", "\"w_sep\":1.5", "\"w_sep\":25", "w_sep: 25 is above the maximum 20"},
        {"a parameter too large for a double", "\"w_sep\":1.5", "\"w_sep\":1e999", "params.w_sep: value must be a finite number"},
        {"a parameter of the wrong type", "\"border\":\"bounce\"", "\"border\":\"sideways\"", "border has no value 'sideways'"},
        {"an unknown parameter", "\"w_sep\":1.5", "\"w_spe\":1.5", "no parameter named 'w_spe'"},
        {"a parameter given twice", "\"w_sep\":1.5", "\"w_sep\":1.5,\"w_sep\":2", "params.w_sep: given twice"},
        {"a bad species parameter", "\"species_params\":{\"1\":{\"w_coh\":2.5}}",
         "\"species_params\":{\"1\":{\"w_coh\":-1}}", "species_params.1.w_coh"},
        {"a species that does not exist", "\"species_params\":{\"1\"", "\"species_params\":{\"4\"", "unknown field '4'"},
        {"NaN instead of a number", "\"seed\":3", "\"seed\":NaN", "not valid JSON"},
        {"a seed that is not whole", "\"seed\":3", "\"seed\":3.5", "'seed' must be a whole number"},
        {"more agents than the world allows", "\"agents\":900", "\"agents\":900000", "'agents' is 900000"},
        {"a population the arrays do not have", "\"agents\":900", "\"agents\":899", "base64 of 899 agents"},
        {"an unknown field", "\"paused\":false", "\"paused\":false,\"colour\":\"red\"", "unknown field 'colour'"},
        {"a field given twice", "\"paused\":false", "\"paused\":false,\"paused\":true", "'paused' is given twice"},
        {"a missing field", "\"paused\":false,", "", "'paused' must be true or false"},
        {"an obstacle outside the world", "{\"x\":700,\"y\":400,\"radius\":50", "{\"x\":7000,\"y\":400,\"radius\":50",
         "obstacles[0]: field 'x' is 7000, must be in [0, 1600]"},
        {"an obstacle too large", "\"radius\":50", "\"radius\":600", "obstacles[0]: field 'radius' is 600"},
        {"an obstacle with an unknown field", "\"radius\":50", "\"radius\":50,\"owner\":3", "obstacles[0]: unknown field 'owner'"},
        {"predators the parameter does not make", "\"predators\":[{", "\"predators\":[{\"x\":1,\"y\":1,\"vx\":0,\"vy\":0},{",
         "4 predators, but the parameter 'predators' is 3"},
        {"a generator that cannot be", "\"inc\":\"", "\"inc\":\"x", "16 lower-case hex digits"},
        {"agents that are not base64", "\"x\":\"", "\"x\":\"*", "'x' must be base64 of 900 agents"},
        {"text after the object", NULL, NULL, "text after the JSON object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const bad_case_t *c = &cases[i];
        if (!c->from && c->to) {
            expect_refused(fx, c->what, c->to, strlen(c->to), c->expect);
        } else if (!c->from) { /* text after the object */
            char *more = edit(text, "}}\n", "}}\n{}");
            expect_refused(fx, c->what, more, strlen(more), c->expect);
            free(more);
        } else {
            char *bad = edit(text, c->from, c->to);
            expect_refused(fx, c->what, bad, strlen(bad), c->expect);
            free(bad);
        }
    }
    /* Cut off anywhere: at the start, in the parameters, in the agents, one
     * byte before the end. */
    size_t cuts[] = {1, 200, len / 2, len - 3};
    for (size_t i = 0; i < 4; i++) {
        char what[64];
        snprintf(what, sizeof what, "cut off after %zu of %zu bytes", cuts[i], len);
        expect_refused(fx, what, text, cuts[i], "the file ends too early");
    }
    free(text);
    world_free(&good);
}

static void agents_no_world_could_have_are_refused(void **state)
{
    fixture_t *fx = *state;
    /* Values poked into a world's arrays travel in the file as they are;
     * loading must refuse each. */
    struct {
        const char *what, *expect;
        void (*poke)(world_t *);
    } cases[] = {
        {"a NaN position", "is not finite or outside", NULL},
        {"a position outside the world", "outside the 1600x900 world", NULL},
        {"an infinite velocity", "faster than", NULL},
        {"a velocity faster than any parameter allows", "faster than", NULL},
        {"an id given twice", "given twice", NULL},
        {"an id beyond the population", "not below the population", NULL},
        {"flags of another species", "its id gives species", NULL},
        {"a NaN wander angle", "wander angle", NULL},
        {"a negative perception radius", "perception radius", NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        world_t w;
        reynolds_with_everything(&w);
        world_clear_target(&w, 1);
        world_step(&w);
        size_t i = 17;
        uint32_t id = w.cur.id[i];
        switch (k) {
        case 0: w.cur.x[i] = NAN; break;
        case 1: w.cur.y[i] = HEIGHT + 1; break;
        case 2: w.cur.vx[i] = INFINITY; break;
        case 3: w.cur.vx[i] = 900, w.cur.vy[i] = 900; break;
        case 4: w.cur.id[i] = w.cur.id[i + 1]; break;
        case 5: w.cur.id[i] = (uint32_t)w.n; break;
        case 6: w.cur.flags[i] ^= 1u << AGENT_SPECIES_SHIFT; break;
        case 7: w.wander[id] = NAN; break;
        case 8: w.radius_coh[id] = -1; break;
        }
        save_ok(fx->path, &w, true);
        size_t len;
        char *text = read_text(fx->path, &len);
        expect_refused(fx, cases[k].what, text, len, cases[k].expect);
        free(text);
        world_free(&w);
    }
}

static void a_file_larger_than_any_state_file_is_refused_unread(void **state)
{
    fixture_t *fx = *state;
    FILE *f = fopen(fx->path, "wb");
    assert_non_null(f);
    /* Sparse: no disk is spent. */
    assert_int_equal(ftruncate(fileno(f), (off_t)(1 << 20) + (off_t)MAX_AGENTS * 80 + 1), 0);
    fclose(f);
    world_t w;
    make(&w, 1, 10);
    uint64_t before = fingerprint(&w, true);
    char msg[300];
    assert_int_equal(state_file_load(fx->path, &w, msg, sizeof msg), STATE_FILE_INVALID);
    assert_non_null(strstr(msg, "more than a state file for this world can be"));
    assert_true(fingerprint(&w, true) == before);
    world_free(&w);
}

/* ---- set aside --------------------------------------------------------------- */

static void a_bad_file_is_set_aside_and_an_earlier_one_is_never_overwritten(void **state)
{
    fixture_t *fx = *state;
    char names[3][200];
    const char *contents[3] = {"first bad", "second bad", "third bad"};
    for (int k = 0; k < 3; k++) {
        write_text(fx->path, contents[k], strlen(contents[k]));
        assert_int_equal(state_file_set_aside(fx->path, names[k], sizeof names[k]), 0);
        assert_false(exists(fx->path));
        /* PATH.bad-YYYYmmdd-HHMMSS[-N] */
        size_t n = strlen(fx->path);
        assert_memory_equal(names[k], fx->path, n);
        assert_memory_equal(names[k] + n, ".bad-", 5);
        const char *stamp = names[k] + n + 5;
        for (int c = 0; c < 15; c++)
            if (c == 8 ? stamp[c] != '-' : (stamp[c] < '0' || stamp[c] > '9')) fail_msg("odd name %s", names[k]);
        print_message("set aside as %s\n", names[k]);
    }
    /* Three moves in a few milliseconds share a second: three names, each
     * file with its own content. */
    for (int k = 0; k < 3; k++) {
        for (int j = 0; j < k; j++) assert_string_not_equal(names[j], names[k]);
        char *text = read_text(names[k], NULL);
        assert_string_equal(text, contents[k]);
        free(text);
    }
}

static void setting_aside_a_missing_file_fails(void **state)
{
    fixture_t *fx = *state;
    char moved[200] = "unchanged";
    assert_int_equal(state_file_set_aside(fx->path, moved, sizeof moved), -1);
    assert_int_equal(errno, ENOENT);
    assert_string_equal(moved, "unchanged");
}

/* ---- atomic writes ------------------------------------------------------------- */

static void a_save_replaces_the_file_and_leaves_no_temporary(void **state)
{
    fixture_t *fx = *state;
    char tmp[160];
    snprintf(tmp, sizeof tmp, "%s.tmp", fx->path);
    world_t w;
    operator_world(&w);
    save_ok(fx->path, &w, false);
    assert_false(exists(tmp));
    char *first = read_text(fx->path, NULL);
    w.paused = false;
    save_ok(fx->path, &w, true);
    assert_false(exists(tmp));
    char *second = read_text(fx->path, NULL);
    assert_non_null(strstr(first, "\"paused\":true"));
    assert_non_null(strstr(second, "\"paused\":false"));
    assert_non_null(strstr(second, "\"agent_state\""));
    free(first);
    free(second);
    world_free(&w);
}

/* The previous file survives a save that fails when the temporary cannot be
 * created, and one that fails in the middle of writing it. */
static void a_failed_save_leaves_the_previous_file_whole(void **state)
{
    fixture_t *fx = *state;
    char tmp[160];
    snprintf(tmp, sizeof tmp, "%s.tmp", fx->path);
    world_t w;
    operator_world(&w);
    save_ok(fx->path, &w, false);
    size_t len;
    char *before = read_text(fx->path, &len);
    w.paused = false;
    set(&w, "w_sep", 9);

    /* The temporary's name is taken by a directory: it cannot be opened. */
    assert_int_equal(mkdir(tmp, 0755), 0);
    char msg[300] = "";
    assert_true(state_file_save(fx->path, &w, true, msg, sizeof msg) < 0);
    assert_non_null(strstr(msg, ".tmp"));
    print_message("temporary not creatable: %s\n", msg);
    assert_int_equal(rmdir(tmp), 0);

    /* The temporary is a full disk: the write fails part-way. */
    assert_int_equal(symlink("/dev/full", tmp), 0);
    msg[0] = '\0';
    assert_true(state_file_save(fx->path, &w, true, msg, sizeof msg) < 0);
    assert_non_null(strstr(msg, strerror(ENOSPC)));
    print_message("disk full: %s\n", msg);
    assert_false(exists(tmp)); /* cleaned up */

    size_t len_after;
    char *after = read_text(fx->path, &len_after);
    assert_int_equal(len_after, len);
    assert_memory_equal(after, before, len);
    /* And it still loads as the world it was. */
    world_t back;
    make(&back, 2, 2);
    load_ok(fx->path, &back);
    assert_true(back.paused);
    assert_true(get(&back, "w_sep") == 3.25);
    free(before);
    free(after);
    world_free(&back);
    world_free(&w);
}

static void a_save_into_a_missing_directory_fails_with_a_message(void **state)
{
    fixture_t *fx = *state;
    char path[200];
    snprintf(path, sizeof path, "%s/no/such/dir/state.json", fx->dir);
    world_t w;
    make(&w, 1, 10);
    char msg[300] = "";
    assert_true(state_file_save(path, &w, false, msg, sizeof msg) < 0);
    assert_non_null(strstr(msg, strerror(ENOENT)));
    world_free(&w);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(a_saved_set_up_comes_back_into_a_fresh_world),
        T(only_the_operators_obstacles_are_kept),
        T(without_agents_the_population_is_drawn_from_the_seed_as_a_reset_would),
        T(saved_agents_step_on_bit_for_bit),
        T(a_restored_world_saves_to_the_same_bytes),
        T(a_file_written_by_hand_needs_only_what_it_changes_among_the_parameters),
        T(a_species_own_value_of_a_world_only_parameter_in_an_older_file_is_ignored),
        T(a_missing_file_is_not_an_error_and_changes_nothing),
        T(a_directory_in_place_of_the_file_is_unreadable_not_bad),
        T(bad_files_are_refused_with_a_message_and_change_nothing),
        T(agents_no_world_could_have_are_refused),
        T(a_file_larger_than_any_state_file_is_refused_unread),
        T(a_bad_file_is_set_aside_and_an_earlier_one_is_never_overwritten),
        T(setting_aside_a_missing_file_fails),
        T(a_save_replaces_the_file_and_leaves_no_temporary),
        T(a_failed_save_leaves_the_previous_file_whole),
        T(a_save_into_a_missing_directory_fails_with_a_message),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
