/* Fuzz target: what people send, through the real builders of what goes
 * out (as tests/unit/people/test_outgoing_text.c does from random Unicode). The
 * input is a list of records, each an operation byte, a length byte and
 * that many bytes of text:
 *   op % 5 == 0  a hello with the text as its name (raw bytes inside the
 *                JSON string, so escapes, bad UTF-8 and quotes all come);
 *   op % 5 == 1  any command: the text is the whole message;
 *   op % 5 == 2  "<name> <text>" into the activity feed (the text as the
 *                bounded builder makes it of any bytes);
 *   op % 5 == 3  the client of slot op / 5 % SLOTS leaves and another joins;
 *   op % 5 == 4  a relay's KICK reason and the JSON string writer.
 * classify_message is what the simulation and every relay do with a
 * viewer's text; refusals become msg_error replies. Invariants: every
 * message is valid UTF-8 and one JSON object, every name shown cleans to
 * itself or is the one presence made up for that client (its guest name),
 * and a rename's sentence is "OLD is now NEW", whole. */
#include <cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "people/presence.h"
#include "protocol/classify.h"
#include "protocol/json_out.h"
#include "protocol/messages.h"
#include "protocol/utf8.h"

#define SLOTS 4

static const cmd_limits_t LIMITS = {.width = 1600, .height = 900, .max_agents = 100000};

/* Checks one message and frees it; returns it parsed (or NULL, when text
 * is NULL: nothing changed). */
static cJSON *check(char *text, const char *what)
{
    if (!text) return NULL;
    REQUIRE(utf8_valid(text, strlen(text)), "%s is not valid UTF-8", what);
    cJSON *root = cJSON_Parse(text);
    REQUIRE(cJSON_IsObject(root), "%s is not a JSON object: %.300s", what, text);
    free(text);
    return root;
}

/* The name shown for client id: clean, or one presence made up for it
 * (presence_guest_name, PRESENCE_NOBODY), which no client may choose. */
static void check_name(const cJSON *name, uint32_t id)
{
    REQUIRE(cJSON_IsString(name), "a name that is not a string");
    const char *s = name->valuestring;
    char again[PRESENCE_NAME_BYTES], why[200], guest[PRESENCE_NAME_BYTES];
    if (presence_clean_name(s, again, why, sizeof why) == 0) {
        REQUIRE(strcmp(again, s) == 0, "a name shown is not clean");
        return;
    }
    presence_guest_name(id, guest);
    REQUIRE(strcmp(s, guest) == 0 || strcmp(s, PRESENCE_NOBODY) == 0, "a name shown for client %u is refused: %s", id,
            why);
}

/* An entry's "id", the client it shows. */
static uint32_t entry_id(const cJSON *entry)
{
    const cJSON *id = cJSON_GetObjectItem(entry, "id");
    REQUIRE(cJSON_IsNumber(id) && id->valuedouble >= 0 && id->valuedouble <= UINT32_MAX, "an entry without an id");
    return (uint32_t)id->valuedouble;
}

static void check_all(presence_t *p, size_t slot, uint32_t id)
{
    cJSON *root = check(presence_take_list(p), "the presence list"), *c;
    if (root)
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "clients")) check_name(cJSON_GetObjectItem(c, "name"), entry_id(c));
    cJSON_Delete(root);
    root = check(presence_take_activity(p), "the activity feed");
    if (root)
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "items")) check_name(cJSON_GetObjectItem(c, "name"), entry_id(c));
    cJSON_Delete(root);
    cJSON_Delete(check(presence_take_cursors(p), "the cursors"));
    root = check(presence_hello_ack(p, slot, id, 1, 1), "a hello ack");
    if (root) check_name(cJSON_GetObjectItem(root, "name"), id);
    cJSON_Delete(root);
}

/* The text a classify_message call refuses or applies. */
static void on_text(presence_t *p, size_t slot, uint32_t id, const char *msg, size_t len)
{
    classified_t m;
    classify_message(msg, len, &LIMITS, id, &m);
    if (m.kind == CLASSIFIED_INVALID) {
        cJSON_Delete(check(msg_error(m.err.code, m.err.message, m.err.request_id, m.err.cmd), "an error reply"));
        return;
    }
    if (m.kind != CLASSIFIED_PRESENCE || m.presence.kind != PRESENCE_HELLO) return;
    cJSON *ack = check(presence_hello_ack(p, slot, id, -1, 0), "a hello ack");
    char old[PRESENCE_NAME_BYTES];
    strcpy(old, cJSON_GetObjectItem(ack, "name")->valuestring);
    cJSON_Delete(ack);
    presence_hello(p, slot, id, &m.presence, 0);
    if (!m.presence.has_name || strcmp(old, m.presence.name) == 0) return;
    cJSON *feed = check(presence_take_activity(p), "the activity feed");
    if (!feed) return;
    const cJSON *items = cJSON_GetObjectItem(feed, "items");
    char want[2 * PRESENCE_NAME_BYTES + 16];
    snprintf(want, sizeof want, "%s is now %s", old, m.presence.name);
    char joined[PRESENCE_NAME_BYTES + 8];
    snprintf(joined, sizeof joined, "%s joined", m.presence.name);
    /* A first name may rewrite the join instead ("Ada joined"). */
    bool told = false;
    const cJSON *item;
    cJSON_ArrayForEach(item, items) {
        const char *t = cJSON_GetObjectItem(item, "text")->valuestring;
        told |= strcmp(t, want) == 0 || strcmp(t, joined) == 0;
    }
    REQUIRE(told, "the rename of \"%s\" to \"%s\" is not told whole", old, m.presence.name);
    cJSON_Delete(feed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    presence_t *p = presence_new(SLOTS);
    if (!p) return 0;
    uint32_t ids[SLOTS], next_id = 1;
    for (size_t s = 0; s < SLOTS; s++) presence_join(p, s, ids[s] = next_id++, false, 0);
    for (size_t at = 0; at + 2 <= size;) {
        uint8_t op = data[at], len = data[at + 1];
        at += 2;
        size_t n = len < size - at ? len : size - at;
        const char *text = (const char *)data + at;
        at += n;
        size_t slot = (size_t)(op / 5) % SLOTS;
        switch (op % 5) {
        case 0: {
            char msg[300];
            memcpy(msg, "{\"type\":\"hello\",\"name\":\"", 24);
            memcpy(msg + 24, text, n);
            memcpy(msg + 24 + n, "\"}", 2);
            on_text(p, slot, ids[slot], msg, 24 + n + 2);
            break;
        }
        case 1: on_text(p, slot, ids[slot], text, n); break;
        case 2: {
            char what[PRESENCE_WHAT_BYTES];
            text_copy(what, sizeof what, text, n);
            presence_activity(p, ids[slot], what, 0);
            break;
        }
        case 3:
            presence_leave(p, slot, ids[slot], 0);
            presence_join(p, slot, ids[slot] = next_id++, false, 0);
            break;
        default: {
            char reason[124], copy[256];
            text_copy(reason, sizeof reason, text, n);
            REQUIRE(strlen(reason) <= 123 && utf8_valid(reason, strlen(reason)), "a close reason");
            memcpy(copy, text, n);
            copy[n] = '\0';
            jbuf_t b;
            jb_init_growing(&b);
            jb_string(&b, copy);
            REQUIRE(!b.failed && utf8_valid(b.buf, b.len), "jb_string's output");
            cJSON *s = cJSON_Parse(b.buf);
            REQUIRE(cJSON_IsString(s), "jb_string's output is not a JSON string");
            cJSON_Delete(s);
            jb_free(&b);
        }
        }
        check_all(p, slot, ids[slot]);
    }
    presence_free(p);
    return 0;
}
