/* Unit tests of a live server's --scenario (server/src/world_setup.c,
 * world_setup_resolve): the file's world size, population and seed go into
 * the flags, flags given on the command line win over the file, the
 * resolved flags build the very world the headless run starts from, and a
 * bad file (or a target id that viewers would collide with) is refused with
 * a reason before anything is served. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "world_setup.h"

/* A scenario in a temporary file; its path in path[]. */
static void write_scenario(char path[64], const char *json)
{
    strcpy(path, "/tmp/swarmcast-world-setup-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
    close(fd);
}

/* A live server's flags as config_load leaves them with no options (the
 * defaults that matter here); the tests then set what a flag would. */
static void defaults(config_t *c, const char *scenario)
{
    *c = (config_t){
        .agents = 1000, .seed = 1, .tick_hz = 60, .snapshot_hz = 30, .world_width = 1600, .world_height = 900,
        .max_clients = 512, .max_agents = 1000000, .threads = 1, .scenario = scenario,
    };
}

static const char SCENARIO[] = "{\"seed\": 77, \"agents\": 120, \"world\": {\"width\": 640, \"height\": 480}, "
                               "\"model\": \"olfati2\", \"params\": {\"border\": \"bounce\"}, "
                               "\"obstacles\": [{\"x\": 320, \"y\": 240, \"radius\": 30}], "
                               "\"targets\": [{\"x\": 500, \"y\": 100, \"client_id\": 7}]}";

static void the_file_sets_size_population_and_seed(void **state)
{
    (void)state;
    char path[64];
    write_scenario(path, SCENARIO); /* no "steps": a live server needs none */
    config_t c, r;
    defaults(&c, path);
    char msg[400] = "";
    assert_int_equal(world_setup_resolve(&c, &r, msg, sizeof msg), SETUP_OK);
    assert_true(r.world_width == 640 && r.world_height == 480);
    assert_int_equal(r.agents, 120);
    assert_int_equal(r.seed, 77);
    assert_true(r.world_given && r.agents_given && r.seed_given);
    unlink(path);
}

static void flags_win_over_the_file(void **state)
{
    (void)state;
    char path[64];
    write_scenario(path, SCENARIO);
    config_t c, r;
    defaults(&c, path); /* --agents 40 --seed 9 --world 900x700 */
    c.agents = 40;
    c.seed = 9;
    c.world_width = 900;
    c.world_height = 700;
    c.agents_given = c.seed_given = c.world_given = true;
    char msg[400] = "";
    assert_int_equal(world_setup_resolve(&c, &r, msg, sizeof msg), SETUP_OK);
    assert_true(r.world_width == 900 && r.world_height == 700);
    assert_int_equal(r.agents, 40);
    assert_int_equal(r.seed, 9);
    unlink(path);
}

/* What the live server builds from the resolved flags is what the headless
 * run builds from the file: every agent, obstacle and target, every parameter. */
static void resolved_flags_build_the_headless_world(void **state)
{
    (void)state;
    char path[64];
    write_scenario(path, SCENARIO);
    config_t c, r;
    defaults(&c, path);
    char msg[400] = "";
    assert_int_equal(world_setup_resolve(&c, &r, msg, sizeof msg), SETUP_OK);
    world_t live, headless;
    assert_int_equal(world_setup(&r, &live, NULL, msg, sizeof msg), SETUP_OK);
    config_t h = c;
    h.steps = 10;
    h.steps_given = true;
    uint64_t steps = 0;
    assert_int_equal(world_setup(&h, &headless, &steps, msg, sizeof msg), SETUP_OK);
    assert_int_equal(steps, 10);
    assert_int_equal(live.n, headless.n);
    assert_memory_equal(live.cur.x, headless.cur.x, live.n * sizeof *live.cur.x);
    assert_memory_equal(live.cur.vy, headless.cur.vy, live.n * sizeof *live.cur.vy);
    assert_memory_equal(&live.params, &headless.params, sizeof live.params);
    assert_int_equal(live.n_obstacles, 1);
    assert_int_equal(live.n_targets, 1);
    assert_int_equal(live.targets[0].client_id, 7);
    for (int k = 0; k < 5; k++) {
        world_step(&live);
        world_step(&headless);
    }
    assert_memory_equal(live.cur.x, headless.cur.x, live.n * sizeof *live.cur.x);
    world_free(&live);
    world_free(&headless);
    unlink(path);
}

static void bad_files_are_refused_with_a_reason(void **state)
{
    (void)state;
    static const struct {
        const char *json, *reason;
    } cases[] = {
        {"{\"agents\": 10,", "scenario"},
        {"{\"params\": {\"no_such_param\": 1}}", "no_such_param"},
        {"{\"world\": {\"width\": 400, \"height\": 300}, \"obstacles\": [{\"x\": 900, \"y\": 10, \"radius\": 5}]}",
         "obstacles"},
        {"{\"targets\": [{\"x\": 10, \"y\": 10, \"client_id\": 65536}]}", "client_id 65536 is above 65535"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[64];
        write_scenario(path, cases[i].json);
        config_t c, r;
        defaults(&c, path);
        char msg[400] = "";
        assert_int_equal(world_setup_resolve(&c, &r, msg, sizeof msg), SETUP_E_INPUT);
        if (!strstr(msg, cases[i].reason)) fail_msg("case %zu: '%s' does not say '%s'", i, msg, cases[i].reason);
        unlink(path);
    }
    /* The largest id a viewer may not take is allowed. */
    char path[64];
    write_scenario(path, "{\"targets\": [{\"x\": 10, \"y\": 10, \"client_id\": 65535}]}");
    config_t c, r;
    defaults(&c, path);
    char msg[400] = "";
    assert_int_equal(world_setup_resolve(&c, &r, msg, sizeof msg), SETUP_OK);
    unlink(path);
}

static void without_a_scenario_the_flags_stay(void **state)
{
    (void)state;
    config_t c, r;
    defaults(&c, NULL);
    c.agents = 55;
    c.agents_given = true;
    char msg[400] = "";
    assert_int_equal(world_setup_resolve(&c, &r, msg, sizeof msg), SETUP_OK);
    assert_memory_equal(&c, &r, sizeof c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_file_sets_size_population_and_seed),
        cmocka_unit_test(flags_win_over_the_file),
        cmocka_unit_test(resolved_flags_build_the_headless_world),
        cmocka_unit_test(bad_files_are_refused_with_a_reason),
        cmocka_unit_test(without_a_scenario_the_flags_stay),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
