/* Fuzz target: a trusted proxy's headers (server/src/net/forwarded.c) and
 * the --trusted-proxy list (trusted_proxies.c), on any bytes. The input's
 * first byte picks what the rest is: X-Forwarded-For, Forwarded, both
 * (split at the first newline), or a CIDR list. Besides memory safety and
 * undefined behaviour it checks:
 *   - an address is reported only for the outcomes that name one, and it
 *     is never a trusted proxy unless every entry was one;
 *   - the same header read again gives the same answer;
 *   - a parsed CIDR list holds at most TRUSTED_PROXIES_MAX networks with
 *     no host bits set, each containing its own first address. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "net/forwarded.h"
#include "net/trusted_proxies.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    unsigned mode = data[0] % 4;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    if (mode == 3) {
        char *list = malloc(len + 1);
        if (!list) return 0;
        memcpy(list, text, len);
        list[len] = '\0';
        trusted_proxies_t t;
        char err[160];
        if (trusted_proxies_parse(list, &t, err, sizeof err)) {
            REQUIRE(t.n <= TRUSTED_PROXIES_MAX, "%zu networks", t.n);
            for (size_t i = 0; i < t.n; i++) {
                REQUIRE(t.nets[i].bits <= 128, "prefix %u", t.nets[i].bits);
                REQUIRE(trusted_proxies_contain(&t, &t.nets[i].net), "network %zu does not contain itself", i);
            }
        } else {
            REQUIRE(memchr(err, '\0', sizeof err) && err[0], "a refusal says why");
        }
        free(list);
        return 0;
    }
    trusted_proxies_t trusted;
    char err[160];
    REQUIRE(trusted_proxies_parse("10.0.0.0/8,127.0.0.1,2001:db8::/32", &trusted, err, sizeof err), "%s", err);
    const char *xff = NULL, *fwd = NULL;
    size_t xff_len = 0, fwd_len = 0;
    if (mode == 0) xff = text, xff_len = len;
    if (mode == 1) fwd = text, fwd_len = len;
    if (mode == 2) {
        const char *nl = memchr(text, '\n', len);
        size_t cut = nl ? (size_t)(nl - text) : len;
        xff = text, xff_len = cut;
        fwd = nl ? nl + 1 : text + len, fwd_len = nl ? len - cut - 1 : 0;
    }
    ip_addr_t a, b;
    memset(&a, 0x5a, sizeof a);
    memset(&b, 0xa5, sizeof b);
    forwarded_outcome_t o = forwarded_client(&trusted, xff, xff_len, fwd, fwd_len, &a);
    forwarded_outcome_t again = forwarded_client(&trusted, xff, xff_len, fwd, fwd_len, &b);
    REQUIRE(o < FORWARDED_OUTCOMES, "outcome %d", (int)o);
    REQUIRE(o == again, "two reads, two answers: %d %d", (int)o, (int)again);
    if (o == FORWARDED_CLIENT) {
        REQUIRE(memcmp(&a, &b, sizeof a) == 0, "two reads, two addresses");
        REQUIRE(!trusted_proxies_contain(&trusted, &a), "the client is a trusted proxy");
    }
    if (o == FORWARDED_ALL_TRUSTED) REQUIRE(trusted_proxies_contain(&trusted, &a), "all trusted, but not this one");
    return 0;
}
