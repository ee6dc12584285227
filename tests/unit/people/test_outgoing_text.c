/* Outgoing text: every message built from what people send — the presence
 * list, the activity feed, hello acks, and the error replies to commands —
 * is valid UTF-8 and valid JSON, whatever Unicode the names, colours,
 * parameters and commands hold (4-byte characters, combining marks,
 * invisible characters, every length up to the limits and past them). The
 * real builders run here: classify_message (what the simulation and every
 * relay do with a viewer's text), presence (server/src/people/presence.c),
 * msg_error, and the bounded copy a relay makes of a KICK's reason. A
 * browser fails the whole WebSocket on one invalid text frame. */
#include <cJSON.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "people/presence.h"
#include "protocol/classify.h"
#include "protocol/messages.h"
#include "protocol/utf8.h"
#include "../random_unicode.h"

#define SLOTS 6
#define ROUNDS 6000

static const cmd_limits_t LIMITS = {1000, 600, 5000};

/* A message that must be valid UTF-8 and one JSON object; returns it parsed
 * (the caller deletes it) and frees the text. */
static cJSON *check_message(char *text, const char *what)
{
    assert_non_null(text);
    if (!utf8_valid(text, strlen(text))) fail_msg("%s is not valid UTF-8: %s", what, text);
    cJSON *root = cJSON_Parse(text);
    if (!cJSON_IsObject(root)) fail_msg("%s is not a JSON object: %s", what, text);
    free(text);
    return root;
}

/* A name as shown: a clean name (cleaning it gives it back), or one the
 * server makes ("Guest N", "someone"). */
static void check_shown_name(const char *name)
{
    if (strncmp(name, "Guest ", 6) == 0 || strcmp(name, "someone") == 0) return;
    char again[PRESENCE_NAME_BYTES], why[200];
    if (presence_clean_name(name, again, why, sizeof why) != 0) fail_msg("a name shown is not clean (%s): %s", why, name);
    assert_string_equal(again, name);
}

/* A command of a random type with random Unicode in its string fields, as
 * JSON text (cJSON escapes it as a page's JSON.stringify would). */
static char *random_command(uint64_t *rng)
{
    static const char *const types[] = {"hello", "hello", "hello", "set_param", "set_model", "auth", "view", NULL};
    char field[512];
    text_t t;
    cJSON *o = cJSON_CreateObject();
    const char *type = types[random_unicode_step(rng) % (sizeof types / sizeof types[0])];
    if (type) {
        cJSON_AddStringToObject(o, "type", type);
    } else { /* an unknown type, echoed (as an excerpt) in the error */
        text_init(&t, field, sizeof field);
        random_unicode(rng, &t, 80);
        cJSON_AddStringToObject(o, "type", field);
    }
    static const char *const fields[] = {"name", "color", "value", "model", "token"};
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        if (random_unicode_step(rng) % 3 == 0) continue;
        if (f == 1 && random_unicode_step(rng) % 2) { /* a valid colour, so that hellos get through */
            snprintf(field, sizeof field, "#%06x", (unsigned)(random_unicode_step(rng) & 0xffffff));
            cJSON_AddStringToObject(o, fields[f], field);
            continue;
        }
        text_init(&t, field, sizeof field);
        if (f == 0 && random_unicode_step(rng) % 4 == 0) {
            /* The longest name there is: 24 four-byte characters. */
            for (int k = 0; k < PRESENCE_NAME_CHARS; k++) text_add_cp(&t, 0x1f300 + (uint32_t)(random_unicode_step(rng) % 0x350));
        } else {
            /* Names near and past the limit as often as short ones. */
            random_unicode(rng, &t, random_unicode_step(rng) % 3 ? PRESENCE_NAME_CHARS + 4 : 120);
        }
        cJSON_AddStringToObject(o, fields[f], field);
    }
    if (random_unicode_step(rng) % 4 == 0) cJSON_AddNumberToObject(o, "id", (double)(random_unicode_step(rng) % 1000));
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

static void check_presence_messages(presence_t *p, size_t slot, uint32_t id)
{
    char *text;
    if ((text = presence_take_list(p))) {
        cJSON *root = check_message(text, "the presence list");
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "clients")) check_shown_name(cJSON_GetObjectItem(c, "name")->valuestring);
        cJSON_Delete(root);
    }
    if ((text = presence_take_activity(p))) {
        cJSON *root = check_message(text, "the activity feed");
        const cJSON *item;
        cJSON_ArrayForEach(item, cJSON_GetObjectItem(root, "items")) {
            const char *name = cJSON_GetObjectItem(item, "name")->valuestring;
            check_shown_name(name);
            /* The sentence starts with its subject's whole name. */
            assert_memory_equal(cJSON_GetObjectItem(item, "text")->valuestring, name, strlen(name));
        }
        cJSON_Delete(root);
    }
    if ((text = presence_take_cursors(p))) cJSON_Delete(check_message(text, "the cursors"));
    if ((text = presence_hello_ack(p, slot, id, 7, 42))) {
        cJSON *root = check_message(text, "a hello ack");
        check_shown_name(cJSON_GetObjectItem(root, "name")->valuestring);
        cJSON_Delete(root);
    }
}

/* Returns the newest sentence of the feed (malloc'd), taking the feed. */
static char *newest_sentence(presence_t *p)
{
    char *text = presence_take_activity(p);
    cJSON *root = check_message(text, "the activity feed");
    const cJSON *items = cJSON_GetObjectItem(root, "items");
    char *s = strdup(cJSON_GetObjectItem(cJSON_GetArrayItem(items, cJSON_GetArraySize(items) - 1), "text")->valuestring);
    cJSON_Delete(root);
    return s;
}

static void random_commands_should_give_valid_replies_and_presence_messages(void **state)
{
    (void)state;
    uint64_t rng = 0x853c49e6748fea9bull;
    presence_t *p = presence_new(SLOTS);
    assert_non_null(p);
    uint32_t ids[SLOTS] = {0}, next_id = 1;
    bool named[SLOTS] = {false};
    size_t renames = 0, refusals = 0, longest = 0;
    for (int round = 0; round < ROUNDS; round++) {
        size_t slot = random_unicode_step(&rng) % SLOTS;
        if (!ids[slot] || random_unicode_step(&rng) % 40 == 0) { /* someone leaves, someone joins */
            if (ids[slot]) presence_leave(p, slot, ids[slot], round);
            ids[slot] = next_id++;
            named[slot] = false;
            presence_join(p, slot, ids[slot], false, round);
        }
        char *cmd = random_command(&rng);
        classified_t m;
        classify_message(cmd, strlen(cmd), &LIMITS, ids[slot], &m);
        if (m.kind == CLASSIFIED_INVALID) {
            refusals++;
            cJSON_Delete(check_message(msg_error(m.err.code, m.err.message, m.err.request_id, m.err.cmd), "an error"));
        } else if (m.kind == CLASSIFIED_PRESENCE && m.presence.has_name) {
            /* The previous name, from the ack, to check the rename's sentence. */
            cJSON *ack = check_message(presence_hello_ack(p, slot, ids[slot], -1, 0), "a hello ack");
            char old[PRESENCE_NAME_BYTES];
            snprintf(old, sizeof old, "%s", cJSON_GetObjectItem(ack, "name")->valuestring);
            cJSON_Delete(ack);
            bool was_named = named[slot];
            presence_hello(p, slot, ids[slot], &m.presence, round);
            named[slot] = true;
            if (was_named && strcmp(old, m.presence.name) != 0) {
                /* "OLD is now NEW", whole, whatever the two names are. */
                char want[2 * PRESENCE_NAME_BYTES + 16];
                snprintf(want, sizeof want, "%s is now %s", old, m.presence.name);
                char *got = newest_sentence(p);
                assert_string_equal(got, want);
                free(got);
                renames++;
                longest += strlen(old) == PRESENCE_NAME_BYTES - 1 && strlen(m.presence.name) == PRESENCE_NAME_BYTES - 1;
            }
        }
        free(cmd);
        /* Things done, told in the feed, some of them long. */
        if (random_unicode_step(&rng) % 5 == 0) {
            char what[PRESENCE_WHAT_BYTES];
            text_t t;
            text_init(&t, what, sizeof what);
            random_unicode(&rng, &t, 200);
            presence_activity(p, ids[random_unicode_step(&rng) % SLOTS], what, round);
        }
        if (random_unicode_step(&rng) % 3 == 0)
            presence_cursor(p, slot, ids[slot], (float)(random_unicode_step(&rng) % 1000), 5.5f);
        check_presence_messages(p, slot, ids[slot]);
    }
    printf("# %d random commands: %zu refused with an error, %zu renames told whole (%zu between two names of 96 bytes)\n",
           ROUNDS, refusals, renames, longest);
    assert_true(renames > 200 && refusals > 1000 && longest > 5); /* every path was really taken */
    presence_free(p);
}

/* A relay closes a viewer with the reason a KICK carries: whatever bytes
 * come from NATS, the close frame's reason is valid UTF-8 of at most 123
 * bytes. */
static void a_kick_reason_should_be_valid_utf8_of_at_most_123_bytes(void **state)
{
    (void)state;
    uint64_t rng = 0x1234567887654321ull;
    for (int round = 0; round < 20000; round++) {
        unsigned char raw[200];
        size_t n = random_unicode_step(&rng) % sizeof raw;
        for (size_t i = 0; i < n; i++) raw[i] = (unsigned char)(i % 4 ? 0x80 | (random_unicode_step(&rng) & 0x3f) : random_unicode_step(&rng));
        char reason[124];
        text_copy(reason, sizeof reason, (const char *)raw, n);
        assert_true(strlen(reason) <= 123);
        assert_true(utf8_valid(reason, strlen(reason)));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_commands_should_give_valid_replies_and_presence_messages),
        cmocka_unit_test(a_kick_reason_should_be_valid_utf8_of_at_most_123_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
