/* Fuzz target: the presence decoder (server/src/protocol/presence_decode.c)
 * on any text the strict JSON check lets through (the server calls it only
 * then). Besides memory safety and undefined behaviour it checks:
 *   - an accepted name is clean: cleaning it again gives it back unchanged,
 *     so it has 1–24 characters, no control characters, no outer spaces;
 *   - an accepted colour fits 24 bits, an accepted point lies in the world;
 *   - a refusal has one of the protocol's error codes, a printable ASCII
 *     message, and names its message type: the one the input's "type" is,
 *     and one the decoder recognises (both lists are the code's own:
 *     wire_errors.h, presence_kind_name). */
#include <cJSON.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "protocol/json_strict.h"
#include "protocol/presence_decode.h"
#include "protocol/wire_errors.h"

static const cmd_limits_t LIMITS = {.width = 1600, .height = 900, .max_agents = 100000};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    json_strict_error_t strict;
    if (json_strict_check(text, size, &strict) != JSON_STRICT_OK) return 0;
    presence_msg_t m;
    cmd_error_t err;
    int rc = presence_decode(text, size, &LIMITS, &m, &err);
    if (rc == PRESENCE_NOT_PRESENCE) return 0;
    if (rc == PRESENCE_DECODED) {
        REQUIRE(m.request_id >= -1 && m.request_id <= (int64_t)UINT32_MAX, "request_id %lld", (long long)m.request_id);
        if (m.has_name) {
            char again[PRESENCE_NAME_BYTES], why[160];
            REQUIRE(strlen(m.name) < PRESENCE_NAME_BYTES, "name of %zu bytes", strlen(m.name));
            REQUIRE(presence_clean_name(m.name, again, why, sizeof why) == 0, "an accepted name is refused: %s", why);
            REQUIRE(strcmp(again, m.name) == 0, "cleaning the name changed it");
        }
        REQUIRE(!m.has_color || m.color <= 0xffffffu, "color %x", m.color);
        if (m.has_point)
            REQUIRE(isfinite(m.x) && isfinite(m.y) && m.x >= 0 && m.x <= LIMITS.width && m.y >= 0 && m.y <= LIMITS.height,
                    "point (%g, %g)", m.x, m.y);
        REQUIRE(m.kind != PRESENCE_CURSOR || m.has_point, "a cursor without a point");
        return 0;
    }
    REQUIRE(rc == PRESENCE_INVALID, "rc %d", rc);
    REQUIRE(wire_error_index(err.code) >= 0, "code %s", err.code ? err.code : "(none)");
    REQUIRE(printable_message(err.message, sizeof err.message), "message \"%.200s\"", err.message);
    REQUIRE(err.cmd, "a refusal that names no message type");
    bool known = false;
    for (int k = 0; k < PRESENCE_KINDS; k++) known |= strcmp(err.cmd, presence_kind_name((presence_kind_t)k)) == 0;
    REQUIRE(known, "cmd %s is no presence message type", err.cmd);
    /* The type refused is the one sent, not merely some presence type. */
    cJSON *root = cJSON_ParseWithLength(text, size);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
    REQUIRE(cJSON_IsString(type) && strcmp(type->valuestring, err.cmd) == 0, "cmd %s for a message of another type",
            err.cmd);
    cJSON_Delete(root);
    return 0;
}
