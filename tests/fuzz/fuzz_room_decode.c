/* Fuzz target: the decoder of the messages about rooms
 * (server/src/protocol/room_decode.c) on any text the strict JSON check
 * lets through (the server calls it only then). Besides memory safety and
 * undefined behaviour it checks:
 *   - an accepted name is clean: cleaning it again gives it back unchanged;
 *   - an accepted code is canonical (it normalizes to itself);
 *   - an accepted scenario name is 1-48 of a-z, 0-9 and '-' (it becomes a
 *     file name: nothing else may reach the disk);
 *   - a refusal has a wire code (wire_errors.h), a printable ASCII message,
 *     and names the message type it refused, one of the decoder's own
 *     (room_msg_names), the one that was sent. */
/* memmem */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "protocol/json_strict.h"
#include "protocol/room_decode.h"
#include "protocol/wire_errors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    json_strict_error_t strict;
    if (json_strict_check(text, size, &strict) != JSON_STRICT_OK) return 0;
    room_msg_t m;
    cmd_error_t err;
    int rc = room_decode(text, size, &m, &err);
    if (rc == ROOM_NOT_ROOM) return 0;
    if (rc == ROOM_DECODED) {
        REQUIRE(m.kind < ROOM_MSG_KINDS, "kind %d", (int)m.kind);
        REQUIRE(m.request_id >= -1 && m.request_id <= (int64_t)UINT32_MAX, "request_id %lld", (long long)m.request_id);
        if (m.has_name) {
            char again[PRESENCE_NAME_BYTES], why[160];
            REQUIRE(presence_clean_name(m.name, again, why, sizeof why) == 0, "an accepted name is refused: %s", why);
            REQUIRE(strcmp(again, m.name) == 0, "cleaning the name changed it");
        }
        if (m.has_code) {
            char again[ROOM_CODE_LEN + 1];
            REQUIRE(room_code_normalize(m.code, again) && strcmp(again, m.code) == 0, "code %s is not canonical", m.code);
        }
        if (m.kind == ROOM_MSG_CREATE && m.from == ROOM_FROM_NAMED_SCENARIO) {
            size_t n = strlen(m.scenario);
            REQUIRE(n >= 1 && n <= ROOM_SCENARIO_NAME_BYTES, "scenario name of %zu bytes", n);
            for (size_t i = 0; i < n; i++)
                REQUIRE((m.scenario[i] >= 'a' && m.scenario[i] <= 'z') || (m.scenario[i] >= '0' && m.scenario[i] <= '9') ||
                            m.scenario[i] == '-',
                        "scenario name byte %02x", (unsigned)(uint8_t)m.scenario[i]);
        }
        return 0;
    }
    REQUIRE(rc == ROOM_INVALID, "rc %d", rc);
    REQUIRE(wire_error_index(err.code) >= 0, "code %s is none of the protocol's", err.code ? err.code : "(none)");
    REQUIRE(printable_message(err.message, sizeof err.message), "message \"%.200s\"", err.message);
    bool known = false;
    for (int k = 0; k < ROOM_MSG_KINDS; k++) known |= err.cmd && !strcmp(err.cmd, room_msg_names[k]);
    REQUIRE(known, "cmd %s", err.cmd ? err.cmd : "(none)");
    /* The input is not NUL-terminated: memmem, not strstr (which read past
     * its end on a refused rename the fuzzer found). */
    REQUIRE(memmem(text, size, err.cmd, strlen(err.cmd)) != NULL, "cmd %s is not the type that was sent", err.cmd);
    return 0;
}
