/* Fuzz target: the timeline's message decoder
 * (server/src/protocol/timeline_decode.c) on any text the strict JSON check
 * lets through (the server calls it only then). Besides memory safety and
 * undefined behaviour it checks that what is accepted is within the
 * ranges of PROTOCOL.md ("Timeline") and that a refusal says why. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "protocol/json_strict.h"
#include "protocol/timeline_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    json_strict_error_t strict;
    if (json_strict_check(text, size, &strict) != JSON_STRICT_OK) return 0;
    timeline_request_t req;
    cmd_error_t err;
    int rc = timeline_decode(text, size, &req, &err);
    if (rc == TIMELINE_NOT_TIMELINE) return 0;
    if (rc == TIMELINE_DECODED) {
        REQUIRE(req.op <= TIMELINE_SHARE, "op %d", (int)req.op);
        REQUIRE(req.request_id >= -1 && req.request_id <= (int64_t)UINT32_MAX, "request_id %lld", (long long)req.request_id);
        REQUIRE(req.tick <= 9007199254740992ull, "tick %llu", (unsigned long long)req.tick);
        REQUIRE(isfinite(req.speed) && fabs(req.speed) >= TIMELINE_MIN_SPEED && fabs(req.speed) <= TIMELINE_MAX_SPEED,
                "speed %g", req.speed);
        REQUIRE(req.by != 0 && req.by >= -TIMELINE_MAX_STEP && req.by <= TIMELINE_MAX_STEP, "by %lld", (long long)req.by);
        return 0;
    }
    REQUIRE(rc == TIMELINE_INVALID, "rc %d", rc);
    REQUIRE(strcmp(err.code, "bad_request") == 0 && strcmp(err.cmd, "timeline") == 0, "code %s", err.code);
    REQUIRE(printable_message(err.message, sizeof err.message), "a refusal without a printable reason");
    return 0;
}
