/* http_headers: the security headers of every HTTP response, and the
 * checks on --allow-frame and --public-url. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "net/http_headers.h"

/* What libwebsockets 4.1's best-practices option sent (captured with curl
 * from the server before it was replaced). */
#define LWS_CSP                                                                                         \
    "default-src 'none'; img-src 'self' data: ; script-src 'self'; font-src 'self'; style-src 'self'; " \
    "connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none';form-action 'self';"

static void origins_are_scheme_host_and_port_only(void **state)
{
    (void)state;
    const char *good[] = {"https://example.org", "http://127.0.0.1:8123", "https://a.example.org,http://[::1]:9000",
                          "http://localhost:1", "https://Example.ORG:65535"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) assert_true(http_frame_origins_valid(good[i]));
    const char *bad[] = {"",
                         "example.org",
                         "ftp://example.org",
                         "https://",
                         "https://example.org/",
                         "https://example.org/path",
                         "https://user@example.org",
                         "https://example.org:0",
                         "https://example.org:65536",
                         "https://example.org:",
                         "https://example.org:123456",
                         "https://example.org,",
                         ",https://example.org",
                         "https://example.org https://other.org",
                         "https://exa mple.org",
                         "https://example.org;script-src *",
                         "'none'",
                         "*",
                         "https://*.example.org",
                         "https://[::1",
                         "https://[]",
                         "https://.example.org",
                         "HTTPS://example.org",
                         "https://example.org\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) assert_false(http_frame_origins_valid(bad[i]));
    assert_false(http_frame_origins_valid(NULL));
}

static void origin_lists_are_bounded(void **state)
{
    (void)state;
    char list[HTTP_ALLOW_FRAME_MAX + 64] = "";
    for (int i = 0; i < HTTP_ALLOW_FRAME_ORIGINS; i++) {
        if (i) strcat(list, ",");
        strcat(list, "http://h:1");
    }
    assert_true(http_frame_origins_valid(list));
    strcat(list, ",http://h:1");
    assert_false(http_frame_origins_valid(list)); /* one origin too many */
    char longest[HTTP_ALLOW_FRAME_MAX + 2];
    memset(longest, 'a', sizeof longest - 1);
    longest[sizeof longest - 1] = '\0';
    memcpy(longest, "https://", 8);
    assert_false(http_frame_origins_valid(longest)); /* one byte too long */
}

static void public_urls_are_http_urls_of_printable_ascii(void **state)
{
    (void)state;
    const char *good[] = {"https://flock.example.org", "http://10.0.0.5:8080/", "https://example.org/demo?room=1#x",
                          "https://example.org/%C3%A9"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) assert_true(http_public_url_valid(good[i]));
    const char *bad[] = {"",
                         "example.org",
                         "javascript:alert(1)",
                         "ws://example.org",
                         "https://",
                         "https:///path",
                         "https://example.org/a b",
                         "https://example.org/\"><script>",
                         "https://example.org/\x01",
                         "https://example.org/\x7f",
                         "https://example.org/\xc3\xa9",
                         "https://example.org/\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) assert_false(http_public_url_valid(bad[i]));
    char longest[HTTP_PUBLIC_URL_MAX + 2];
    memset(longest, 'a', sizeof longest - 1);
    longest[sizeof longest - 1] = '\0';
    memcpy(longest, "https://", 8);
    assert_false(http_public_url_valid(longest));
    longest[HTTP_PUBLIC_URL_MAX] = '\0';
    assert_true(http_public_url_valid(longest));
}

static const char *header(const struct lws_protocol_vhost_options *h, const char *name)
{
    for (; h; h = h->next)
        if (strcmp(h->name, name) == 0) return h->value;
    return NULL;
}

static size_t count(const struct lws_protocol_vhost_options *h)
{
    size_t n = 0;
    for (; h; h = h->next) n++;
    return n;
}

static void without_allowed_sites_the_headers_are_libwebsockets_own(void **state)
{
    (void)state;
    http_headers_t h;
    const struct lws_protocol_vhost_options *list = http_headers_build(&h, NULL);
    assert_non_null(list);
    assert_int_equal(count(list), 5);
    assert_string_equal(header(list, "content-security-policy:"), LWS_CSP);
    assert_string_equal(header(list, "x-content-type-options:"), "nosniff");
    assert_string_equal(header(list, "x-xss-protection:"), "1; mode=block");
    assert_string_equal(header(list, "x-frame-options:"), "deny");
    assert_string_equal(header(list, "referrer-policy:"), "no-referrer");
}

static void allowed_sites_go_into_frame_ancestors_and_x_frame_options_goes(void **state)
{
    (void)state;
    http_headers_t h;
    const struct lws_protocol_vhost_options *list =
        http_headers_build(&h, "https://example.org,http://127.0.0.1:8123");
    assert_non_null(list);
    assert_int_equal(count(list), 4);
    assert_null(header(list, "x-frame-options:"));
    char want[sizeof LWS_CSP + 64];
    strcpy(want, LWS_CSP);
    char *at = strstr(want, "'none'; base-uri");
    const char *sites = "https://example.org http://127.0.0.1:8123; base-uri 'none';form-action 'self';";
    strcpy(at, sites);
    assert_string_equal(header(list, "content-security-policy:"), want);
    assert_string_equal(header(list, "referrer-policy:"), "no-referrer");
    assert_null(http_headers_build(&h, "https://example.org/evil; script-src *"));
}

static void the_policy_never_overflows(void **state)
{
    (void)state;
    char small[32];
    assert_int_equal(http_csp_format(small, sizeof small, NULL), -1);
    char exact[sizeof LWS_CSP];
    assert_int_equal(http_csp_format(exact, sizeof exact, NULL), (int)strlen(LWS_CSP));
    assert_int_equal(http_csp_format(exact, sizeof exact - 1, NULL), -1);
    assert_int_equal(http_csp_format(exact, sizeof exact, "http://a:1"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(origins_are_scheme_host_and_port_only),
        cmocka_unit_test(origin_lists_are_bounded),
        cmocka_unit_test(public_urls_are_http_urls_of_printable_ascii),
        cmocka_unit_test(without_allowed_sites_the_headers_are_libwebsockets_own),
        cmocka_unit_test(allowed_sites_go_into_frame_ancestors_and_x_frame_options_goes),
        cmocka_unit_test(the_policy_never_overflows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
