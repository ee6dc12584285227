/* Unit tests of the option table (server/src/config_options.c) that --help,
 * the manual page, the completion and the env file are printed from: every
 * option config.c parses is in it once, with a unique name and variable; a
 * default it states is the value a server starts with (given again as a
 * flag or as its variable, it changes nothing; config.c applies them, so an
 * unparsable one stops every start); and --help lists them all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_help.h"
#include "config_options.h"

static void test_every_option_once(void **state)
{
    (void)state;
    for (int id = OPT_BIND; id <= OPT_ENV_FILE; id++) {
        int seen = 0;
        for (size_t i = 0; i < config_options_count(); i++) seen += config_option(i)->id == id;
        if (seen != 1) fail_msg("option id %d is in the table %d times", id, seen);
    }
    for (size_t i = 0; i < config_options_count(); i++) {
        const config_option_t *a = config_option(i);
        if (!a->id) continue;
        assert_non_null(a->help);
        for (size_t k = i + 1; k < config_options_count(); k++) {
            const config_option_t *b = config_option(k);
            if (!b->id) continue;
            if (!strcmp(a->name, b->name)) fail_msg("--%s twice", a->name);
            if (a->env && b->env && !strcmp(a->env, b->env)) fail_msg("%s twice", a->env);
        }
    }
}

/* The settings a flag or variable sets, without the record of who gave them. */
static void load(config_t *c, int argc, char **argv)
{
    FILE *devnull = fopen("/dev/null", "w");
    assert_int_equal(config_load(c, argc, argv, devnull, devnull), CONFIG_RUN);
    fclose(devnull);
    c->seed_given = c->agents_given = c->world_given = c->steps_given = false;
}

static void test_defaults_parse_and_hold(void **state)
{
    (void)state;
    static config_t plain, flagged, from_env;
    char *none[] = {"swarmcast", NULL};
    load(&plain, 1, none);
    int n = 0;
    for (size_t i = 0; i < config_options_count(); i++) {
        const config_option_t *o = config_option(i);
        if (!o->def) continue;
        /* The table's own string: the same pointer the default left in c. */
        char flag[64];
        snprintf(flag, sizeof flag, "--%s", o->name);
        char *argv[] = {"swarmcast", flag, (char *)o->def, NULL};
        load(&flagged, 3, argv);
        if (memcmp(&plain, &flagged, sizeof plain)) fail_msg("%s %s is not the default", flag, o->def);
        if (o->env) {
            setenv(o->env, o->def, 1);
            load(&from_env, 1, none);
            unsetenv(o->env);
            /* A string setting keeps the environment's copy: compare what it says. */
            if (memcmp(&plain, &from_env, sizeof plain) && o->id != OPT_BIND && o->id != OPT_NATS_PREFIX)
                fail_msg("%s=%s is not the default", o->env, o->def);
        }
        n++;
    }
    assert_true(n >= 25);
    assert_string_equal(plain.bind, config_option_by_id(OPT_BIND)->def);
}

static void test_help_lists_every_option(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    config_help(f);
    fclose(f);
    for (size_t i = 0; i < config_options_count(); i++) {
        const config_option_t *o = config_option(i);
        if (!o->id) continue;
        char flag[64];
        snprintf(flag, sizeof flag, "  --%s", o->name);
        if (!strstr(text, flag)) fail_msg("--help does not list --%s", o->name);
        if (o->env && !strstr(text, o->env)) fail_msg("--help does not name %s", o->env);
        const char *def = config_option_default(o);
        if (def) {
            char shown[128];
            snprintf(shown, sizeof shown, "(%.*s", (int)strcspn(def, "\n"), def);
            if (!strstr(text, shown)) fail_msg("--help does not show --%s's default %s", o->name, def);
        }
    }
    free(text);
}

/* An option nobody has is a usage error that names itself and prints
 * nothing on the output (getopt's '?' is no option's id: once it was the
 * bash completion's, and `swarmcast --bogus` printed the completion). */
static void test_an_unknown_option_is_a_usage_error(void **state)
{
    (void)state;
    for (size_t i = 0; i < config_options_count(); i++) {
        const config_option_t *o = config_option(i);
        if (o->id) assert_true(o->id > 255); /* past every character getopt_long returns */
    }
    static config_t c;
    char *out_text = NULL, *err_text = NULL;
    size_t out_len = 0, err_len = 0;
    FILE *out = open_memstream(&out_text, &out_len), *err = open_memstream(&err_text, &err_len);
    char *argv[] = {"swarmcast", "--bogus", NULL};
    assert_int_equal(config_load(&c, 2, argv, out, err), CONFIG_EXIT_USAGE);
    fclose(out);
    fclose(err);
    assert_int_equal(out_len, 0);
    assert_non_null(strstr(err_text, "see --help"));
    free(out_text);
    free(err_text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_option_once),
        cmocka_unit_test(test_defaults_parse_and_hold),
        cmocka_unit_test(test_help_lists_every_option),
        cmocka_unit_test(test_an_unknown_option_is_a_usage_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
