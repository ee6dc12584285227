/* Fuzz target: the NATS pool's messages (server/src/experiment/pool_protocol.c),
 * what a stranger on swarmcast.exp.> may publish. Any input goes to the four
 * decoders. Invariants:
 *   - a refusal says why (a printable reason);
 *   - a decoded body lies inside the input, and a spec's parts add up to it;
 *   - an accepted result part ends inside its whole, and a failed result has
 *     no rows;
 *   - an accepted run encodes back to a message that decodes to the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/pool_protocol.h"
#include "fuzz_check.h"

static bool inside(const char *b, size_t n, const uint8_t *p, size_t len)
{
    return (const uint8_t *)b >= p && (const uint8_t *)b + n <= p + len;
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t len);
int LLVMFuzzerTestOneInput(const uint8_t *p, size_t len)
{
    const char *m = (const char *)p;
    char why[300];

    pool_spec_t s;
    if (pool_spec_decode(m, len, &s, why, sizeof why) == 0) {
        REQUIRE(inside(s.json, s.json_len, p, len) && inside(s.table, s.table_len, p, len), "spec body outside");
        REQUIRE(s.table == s.json + s.json_len && s.table + s.table_len == m + len, "spec parts do not add up");
    } else {
        REQUIRE(printable_message(why, sizeof why), "spec: no reason");
    }

    pool_run_t r;
    if (pool_run_decode(m, len, &r, why, sizeof why) == 0) {
        char *enc;
        size_t enc_len;
        REQUIRE(pool_run_encode(r.hash, r.spec_seq, r.index, r.run_id, &enc, &enc_len) == 0, "run: no re-encoding");
        pool_run_t again;
        REQUIRE(pool_run_decode(enc, enc_len - 1, &again, why, sizeof why) == 0, "run: re-encoding refused: %s", why);
        REQUIRE(memcmp(&again, &r, sizeof r) == 0, "run: re-encoding decodes differently");
        free(enc);
    } else {
        REQUIRE(printable_message(why, sizeof why), "run: no reason");
    }

    pool_result_t res;
    if (pool_result_decode(m, len, &res, why, sizeof why) == 0) {
        REQUIRE(inside(res.body, res.body_len, p, len), "result body outside");
        REQUIRE(res.offset + res.body_len <= res.bytes, "a part past its whole");
        REQUIRE(res.part < res.parts, "part %u of %u", res.part, res.parts);
        REQUIRE(res.ok || (res.bytes == 0 && res.why[0]), "a failed result with rows or without a reason");
    } else {
        REQUIRE(printable_message(why, sizeof why), "result: no reason");
    }

    uint64_t seq, deliveries;
    (void)pool_advisory_decode(m, len, &seq, &deliveries);
    return 0;
}
