/* trusted_proxies and forwarded: which proxies are believed, and the
 * client's address they report (X-Forwarded-For, RFC 7239 Forwarded),
 * read from the right so that nothing a client writes picks its address. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "net/forwarded.h"
#include "net/trusted_proxies.h"

static trusted_proxies_t trusted(const char *list)
{
    trusted_proxies_t t;
    char err[160] = "";
    if (!trusted_proxies_parse(list, &t, err, sizeof err)) fail_msg("refused %s: %s", list, err);
    return t;
}

static ip_addr_t ip(const char *text)
{
    ip_addr_t a;
    assert_true(ip_addr_parse(text, strlen(text), &a));
    return a;
}

static bool contains(const trusted_proxies_t *t, const char *text)
{
    ip_addr_t a = ip(text);
    return trusted_proxies_contain(t, &a);
}

/* The outcome for X-Forwarded-For xff and Forwarded fwd (NULL: absent);
 * the address found goes to got (as text). */
static forwarded_outcome_t client_of(const char *list, const char *xff, const char *fwd, char *got)
{
    trusted_proxies_t t = trusted(list);
    ip_addr_t c;
    memset(&c, 0xab, sizeof c);
    forwarded_outcome_t o = forwarded_client(&t, xff, xff ? strlen(xff) : 0, fwd, fwd ? strlen(fwd) : 0, &c);
    if (got) {
        got[0] = '\0';
        if (o == FORWARDED_CLIENT || o == FORWARDED_ALL_TRUSTED) {
            static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
            if (memcmp(c.b, mapped, 12) == 0) snprintf(got, 64, "%u.%u.%u.%u", c.b[12], c.b[13], c.b[14], c.b[15]);
            else
                snprintf(got, 64, "%x:%x:%x:%x:%x:%x:%x:%x", c.b[0] << 8 | c.b[1], c.b[2] << 8 | c.b[3],
                         c.b[4] << 8 | c.b[5], c.b[6] << 8 | c.b[7], c.b[8] << 8 | c.b[9], c.b[10] << 8 | c.b[11],
                         c.b[12] << 8 | c.b[13], c.b[14] << 8 | c.b[15]);
        }
    }
    return o;
}

static void trusted_networks_should_match_their_addresses_only(void **state)
{
    (void)state;
    trusted_proxies_t t = trusted("10.0.0.0/8, 192.168.1.7 ,2001:db8::/32,::1");
    assert_int_equal(t.n, 4);
    assert_true(contains(&t, "10.255.3.4"));
    assert_false(contains(&t, "11.0.0.1"));
    assert_true(contains(&t, "192.168.1.7"));
    assert_false(contains(&t, "192.168.1.8"));
    assert_true(contains(&t, "2001:db8:ffff::1"));
    assert_false(contains(&t, "2001:db9::1"));
    assert_true(contains(&t, "::1"));
    assert_false(contains(&t, "::2"));
    /* An IPv4 address written IPv4-mapped is that address. */
    assert_true(contains(&t, "::ffff:10.1.2.3"));
    /* /0 of IPv4 is every IPv4 address and no IPv6 one; ::/0 is everything. */
    trusted_proxies_t all4 = trusted("0.0.0.0/0");
    assert_true(contains(&all4, "203.0.113.9"));
    assert_false(contains(&all4, "2001:db8::1"));
    trusted_proxies_t all = trusted("::/0");
    assert_true(contains(&all, "203.0.113.9"));
    /* Prefixes not on a byte boundary. */
    trusted_proxies_t odd = trusted("172.16.0.0/12");
    assert_true(contains(&odd, "172.31.255.255"));
    assert_false(contains(&odd, "172.32.0.0"));
    /* Nothing listed, nothing trusted. */
    trusted_proxies_t none = trusted("");
    assert_int_equal(none.n, 0);
    assert_false(contains(&none, "127.0.0.1"));
}

static void bad_networks_should_be_refused_with_the_reason(void **state)
{
    (void)state;
    static const char *const bad[] = {"10.0.0.0/33", "2001:db8::/129", "10.0.0.1/8", "localhost", "10.0.0.0/",
                                      "10.0.0.0/x", "10.0.0", "1.2.3.4,nope", "[::1]", "10.0.0.0/1234"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        trusted_proxies_t t;
        char err[160] = "";
        assert_false(trusted_proxies_parse(bad[i], &t, err, sizeof err));
        assert_true(strlen(err) > 5);
    }
    char err[160];
    trusted_proxies_t t;
    assert_false(trusted_proxies_parse("10.0.0.1/8", &t, err, sizeof err));
    assert_non_null(strstr(err, "10.0.0.1/8"));
    /* More than 32 networks. */
    char many[33 * 16] = "";
    for (int i = 0; i < 33; i++) snprintf(many + strlen(many), sizeof many - strlen(many), "10.0.0.%d,", i);
    assert_false(trusted_proxies_parse(many, &t, err, sizeof err));
}

static void the_nearest_untrusted_address_should_be_the_client(void **state)
{
    (void)state;
    char got[64];
    /* Caddy's header: the client it saw. */
    assert_int_equal(client_of("127.0.0.1", "127.0.0.2", NULL, got), FORWARDED_CLIENT);
    assert_string_equal(got, "127.0.0.2");
    /* A client's forged entries lie left of what the trusted proxy appended. */
    assert_int_equal(client_of("127.0.0.1", "6.6.6.6, 1.1.1.1, 203.0.113.5", NULL, got), FORWARDED_CLIENT);
    assert_string_equal(got, "203.0.113.5");
    /* Trusted hops on the right are skipped. */
    assert_int_equal(client_of("10.0.0.0/8", "198.51.100.1, 203.0.113.5,10.1.1.1 , 10.2.2.2", NULL, got),
                     FORWARDED_CLIENT);
    assert_string_equal(got, "203.0.113.5");
    /* Junk left of the client is never read. */
    assert_int_equal(client_of("10.0.0.0/8", "not an address,,, 203.0.113.5", NULL, got), FORWARDED_CLIENT);
    assert_string_equal(got, "203.0.113.5");
    /* Ports, brackets and bare IPv6. */
    assert_int_equal(client_of("10.0.0.1", "203.0.113.5:4711", NULL, got), FORWARDED_CLIENT);
    assert_string_equal(got, "203.0.113.5");
    assert_int_equal(client_of("10.0.0.1", "2001:db8::7", NULL, got), FORWARDED_CLIENT);
    assert_string_equal(got, "2001:db8:0:0:0:0:0:7");
    assert_int_equal(client_of("10.0.0.1", "[2001:db8::7]:443", NULL, got), FORWARDED_CLIENT);
    assert_string_equal(got, "2001:db8:0:0:0:0:0:7");
    assert_int_equal(client_of("10.0.0.1", "[2001:db8::7]", NULL, got), FORWARDED_CLIENT);
    assert_string_equal(got, "2001:db8:0:0:0:0:0:7");
    /* Only trusted proxies: the farthest. */
    assert_int_equal(client_of("10.0.0.0/8", "10.9.9.9, 10.1.1.1", NULL, got), FORWARDED_ALL_TRUSTED);
    assert_string_equal(got, "10.9.9.9");
}

static void rfc7239_forwarded_should_be_read_the_same_way(void **state)
{
    (void)state;
    char got[64];
    assert_int_equal(client_of("10.0.0.1", NULL, "for=192.0.2.60;proto=http;by=203.0.113.43", got), FORWARDED_CLIENT);
    assert_string_equal(got, "192.0.2.60");
    assert_int_equal(client_of("10.0.0.1", NULL, "For=\"[2001:db8:cafe::17]:4711\"", got), FORWARDED_CLIENT);
    assert_string_equal(got, "2001:db8:cafe:0:0:0:0:17");
    assert_int_equal(client_of("10.0.0.0/8", NULL, "for=192.0.2.43, for=198.51.100.17;proto=https, for=10.3.3.3", got),
                     FORWARDED_CLIENT);
    assert_string_equal(got, "198.51.100.17");
    /* A quoted comma does not separate elements. */
    assert_int_equal(client_of("10.0.0.1", NULL, "for=192.0.2.1;x=\"a,b\\\"c\", for=\"198.51.100.2:80\"", got),
                     FORWARDED_CLIENT);
    assert_string_equal(got, "198.51.100.2");
    /* unknown and obfuscated identifiers name no one. */
    assert_int_equal(client_of("10.0.0.1", NULL, "for=unknown", got), FORWARDED_UNKNOWN);
    assert_int_equal(client_of("10.0.0.1", NULL, "for=192.0.2.1, for=_hidden", got), FORWARDED_UNKNOWN);
    assert_int_equal(client_of("10.0.0.1", "unknown", NULL, got), FORWARDED_UNKNOWN);
    /* An obfuscated port leaves the address. */
    assert_int_equal(client_of("10.0.0.1", NULL, "for=\"[2001:db8::1]:_p1\"", got), FORWARDED_CLIENT);
    /* X-Forwarded-For wins: a Forwarded from the client is passed through by proxies that write X-Forwarded-For. */
    assert_int_equal(client_of("10.0.0.1", "203.0.113.5", "for=6.6.6.6", got), FORWARDED_CLIENT);
    assert_string_equal(got, "203.0.113.5");
    assert_int_equal(client_of("10.0.0.1", NULL, NULL, got), FORWARDED_ABSENT);
}

static void malformed_headers_should_be_reported_not_guessed(void **state)
{
    (void)state;
    static const char *const bad_xff[] = {"", "203.0.113.5,", "banana", "1.2.3.4:99999", "1.2.3.4:", "[1.2.3.4]:80",
                                          "[2001:db8::1", "[2001:db8::1]x", "1.2.3.4.5", "2001:db8::1:80:xyz",
                                          "fe80::1%eth0", "203.0.113.5 6"};
    for (size_t i = 0; i < sizeof bad_xff / sizeof bad_xff[0]; i++)
        assert_int_equal(client_of("10.0.0.1", bad_xff[i], NULL, NULL), FORWARDED_MALFORMED);
    static const char *const bad_fwd[] = {"", "for", "for=", "for=\"1.2.3.4", "for=1.2.3.4;", "for=1.2.3.4,",
                                          "proto=https", "for=1.2.3.4;for=5.6.7.8", "for=1.2.3.4 x", "=1.2.3.4",
                                          "for=[2001:db8::1]", "for=\"1.2.3.4\\"};
    for (size_t i = 0; i < sizeof bad_fwd / sizeof bad_fwd[0]; i++)
        assert_int_equal(client_of("10.0.0.1", NULL, bad_fwd[i], NULL), FORWARDED_MALFORMED);
    /* A long chain: only the newest entries are kept, and they decide. */
    char chain[4096] = "";
    for (int i = 0; i < 200; i++) strcat(chain, "10.0.0.9, ");
    strcat(chain, "203.0.113.5, 10.0.0.9");
    assert_int_equal(client_of("10.0.0.0/8", chain, NULL, NULL), FORWARDED_CLIENT);
    /* Names for the metrics. */
    assert_string_equal(forwarded_outcome_name(FORWARDED_MALFORMED), "malformed");
    assert_string_equal(forwarded_outcome_name(FORWARDED_CLIENT), "client");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trusted_networks_should_match_their_addresses_only),
        cmocka_unit_test(bad_networks_should_be_refused_with_the_reason),
        cmocka_unit_test(the_nearest_untrusted_address_should_be_the_client),
        cmocka_unit_test(rfc7239_forwarded_should_be_read_the_same_way),
        cmocka_unit_test(malformed_headers_should_be_reported_not_guessed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
