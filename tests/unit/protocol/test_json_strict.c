/* Unit tests of the strict JSON check (server/src/protocol/json_strict.c)
 * against "Strict JSON" in protocol/PROTOCOL.md: what it accepts, what it
 * refuses, and that each refusal says what and at which byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/json_strict.h"

/* Checks text[0, len) from an exact-size heap copy, so that ASan reports any
 * read past len. */
static int check(const char *text, size_t len, json_strict_error_t *err)
{
    char *exact = malloc(len ? len : 1);
    assert_non_null(exact);
    memcpy(exact, text, len);
    int rc = json_strict_check(exact, len, err);
    free(exact);
    return rc;
}

static void assert_printable_ascii(const char *s)
{
    for (size_t i = 0; s[i]; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
            fail_msg("byte 0x%02x at offset %zu of \"%s\" is not printable ASCII", (unsigned char)s[i], i, s);
}

static void accepted_n(const char *text, size_t len)
{
    json_strict_error_t err;
    int rc = check(text, len, &err);
    if (rc != JSON_STRICT_OK) print_message("refused %.200s\n  with \"%s\"\n", text, err.message);
    assert_int_equal(rc, JSON_STRICT_OK);
    /* What the strict check accepts, cJSON must read whole. */
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!root) print_message("cJSON refused %.200s\n", text);
    assert_non_null(root);
    while (end < text + len && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')) end++;
    assert_ptr_equal(end, text + len);
    cJSON_Delete(root);
}

static void accepted(const char *text) { accepted_n(text, strlen(text)); }

/* Refused with a message that contains `what` and ends "at byte <offset>". */
static void refused_n(const char *text, size_t len, size_t offset, const char *what)
{
    json_strict_error_t err;
    int rc = check(text, len, &err);
    char tail[40];
    snprintf(tail, sizeof tail, " at byte %zu", offset);
    size_t m = strlen(err.message), t = strlen(tail);
    bool ok = rc == JSON_STRICT_E_INVALID && err.offset == offset && strstr(err.message, what) &&
              m >= t && strcmp(err.message + m - t, tail) == 0;
    if (!ok)
        print_message("input %.200s\n  expected: \"%s\" at byte %zu\n  got: rc %d, offset %zu, \"%s\"\n", text, what,
                      offset, rc, err.offset, err.message);
    assert_true(ok);
    assert_printable_ascii(err.message);
}

static void refused(const char *text, size_t offset, const char *what) { refused_n(text, strlen(text), offset, what); }

/* ------------------------------------------------------------ accepted */

static void every_kind_of_json_value_should_be_accepted(void **state)
{
    (void)state;
    accepted("{}");
    accepted("[]");
    accepted(" \t\r\n{ \"type\" : \"pause\" , \"id\" : 1 } \n");
    accepted("{\"a\":[1,-2,3.5,-0.25e+3,1E5,1e-5,0,-0,0.0],\"b\":{\"c\":null},\"d\":true,\"e\":false,\"f\":\"\"}");
    accepted("0");
    accepted("-0.0e+00");
    accepted("123.456E-7");
    accepted("\"pause\"");
    accepted("true");
    accepted("null");
}

static void escapes_and_utf8_in_strings_should_be_accepted(void **state)
{
    (void)state;
    accepted("{\"s\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\\u00e9\\u20AC\\ud83d\\ude00\\uFFFF\"}");
    /* raw UTF-8 of 2, 3 and 4 bytes, the highest code point, and DEL (not a control character in JSON) */
    accepted("{\"s\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\x7f\"}");
}

static void equal_keys_in_different_objects_should_be_accepted(void **state)
{
    (void)state;
    accepted("{\"a\":{\"a\":1,\"b\":2},\"b\":{\"a\":{\"a\":3}},\"c\":[{\"a\":1},{\"a\":2}]}");
}

static void many_distinct_keys_should_be_accepted(void **state)
{
    (void)state;
    /* more keys than fit the check's inline table */
    char text[4096];
    int n = snprintf(text, sizeof text, "{");
    for (int i = 0; i < 200; i++) n += snprintf(text + n, sizeof text - (size_t)n, "%s\"k%d\":%d", i ? "," : "", i, i);
    snprintf(text + n, sizeof text - (size_t)n, "}");
    accepted(text);
}

static void nesting_of_exactly_the_limit_should_be_accepted(void **state)
{
    (void)state;
    char text[2 * JSON_STRICT_MAX_DEPTH + 1];
    for (int i = 0; i < JSON_STRICT_MAX_DEPTH; i++) {
        text[i] = '[';
        text[2 * JSON_STRICT_MAX_DEPTH - 1 - i] = ']';
    }
    text[2 * JSON_STRICT_MAX_DEPTH] = '\0';
    accepted(text);
}

static void a_number_of_the_longest_allowed_length_should_be_accepted(void **state)
{
    (void)state;
    char text[JSON_STRICT_MAX_NUMBER_CHARS + 1];
    memset(text, '1', JSON_STRICT_MAX_NUMBER_CHARS);
    text[JSON_STRICT_MAX_NUMBER_CHARS] = '\0';
    accepted(text);
}

/* ------------------------------------------------------------ refused */

static void a_byte_order_mark_should_be_refused(void **state)
{
    (void)state;
    refused("\xef\xbb\xbf{\"type\":\"pause\"}", 0, "byte-order mark");
}

static void an_empty_or_blank_text_should_be_refused(void **state)
{
    (void)state;
    refused("", 0, "empty");
    refused(" \r\n\t", 4, "only whitespace");
}

static void numbers_outside_the_json_grammar_should_be_refused(void **state)
{
    (void)state;
    refused("{\"a\":01}", 5, "leading zero in a number");
    refused("{\"a\":-01}", 5, "leading zero in a number");
    refused("{\"a\":00}", 5, "leading zero in a number");
    refused("{\"a\":1.}", 6, "'.' must be followed by a digit");
    refused("{\"a\":1.e5}", 6, "'.' must be followed by a digit");
    refused("{\"a\":.5}", 5, "not '.'");
    refused("{\"a\":+1}", 5, "may not start with '+'");
    refused("{\"a\":1e}", 6, "exponent has no digits");
    refused("{\"a\":1E+}", 6, "exponent has no digits");
    refused("{\"a\":0x10}", 6, "unexpected 'x' in a number");
    refused("{\"a\":1.5.2}", 8, "unexpected '.' in a number");
    refused("{\"a\":NaN}", 5, "NaN and Infinity");
    refused("{\"a\":Infinity}", 5, "NaN and Infinity");
    refused("{\"a\":-Infinity}", 5, "'-' must be followed by a digit");
    refused("{\"a\":-}", 5, "'-' must be followed by a digit");
    refused("1.", 1, "'.' must be followed by a digit");
}

static void a_number_longer_than_the_limit_should_be_refused(void **state)
{
    (void)state;
    char text[JSON_STRICT_MAX_NUMBER_CHARS + 8];
    int n = snprintf(text, sizeof text, "[0.");
    memset(text + n, '5', JSON_STRICT_MAX_NUMBER_CHARS - 1);
    snprintf(text + n + JSON_STRICT_MAX_NUMBER_CHARS - 1, 8, "]");
    refused(text, 1, "a number longer than 63 characters");
}

static void text_after_the_value_should_be_refused(void **state)
{
    (void)state;
    refused("{\"type\":\"pause\"} x", 17, "text after the JSON value");
    refused("{\"type\":\"pause\"}{}", 16, "text after the JSON value");
    refused("{}]", 2, "text after the JSON value");
    refused_n("{}\0", 3, 2, "text after the JSON value (a NUL byte)");
}

static void control_characters_and_nul_should_be_refused(void **state)
{
    (void)state;
    refused("{\"a\":\"x\ty\"}", 7, "control character 0x09 in a string");
    refused("{\"a\":\"x\x1fy\"}", 7, "control character 0x1f in a string");
    refused_n("{\"a\":\"x\0y\"}", 11, 7, "NUL byte in a string");
    refused_n("{\"a\":1\0}", 8, 6, "found a NUL byte");
    refused("\x0c{}", 0, "found control character 0x0c");
    refused("{\"a\":\x01" "1}", 5, "found control character 0x01");
    refused("{\"a\":\"\\u0000\"}", 6, "escaped NUL");
}

static void unterminated_strings_and_containers_should_be_refused(void **state)
{
    (void)state;
    refused("{\"a\":\"abc", 5, "unterminated string");
    refused("{\"a\":\"abc\\", 5, "unterminated string");
    refused("{\"ab", 1, "unterminated string");
    refused("{\"a\":1", 6, "ends inside the object opened at byte 0");
    refused("{\"a\":[1,2", 9, "ends inside the array opened at byte 5");
    refused("{\"a\":", 5, "expected a value, found the end of the text");
}

static void bad_escapes_and_lone_surrogates_should_be_refused(void **state)
{
    (void)state;
    refused("{\"a\":\"\\x41\"}", 6, "invalid escape: backslash followed by 'x'");
    refused("{\"a\":\"\\'\"}", 6, "invalid escape");
    refused("{\"a\":\"\\u12\"}", 6, "four hex digits");
    refused("{\"a\":\"\\u12g4\"}", 6, "four hex digits");
    refused("{\"a\":\"\\ud800\"}", 6, "unpaired UTF-16 surrogate \\ud800");
    refused("{\"a\":\"\\ud800\\u0041\"}", 6, "unpaired UTF-16 surrogate");
    refused("{\"a\":\"\\ud800\\ud800\"}", 6, "unpaired UTF-16 surrogate");
    refused("{\"a\":\"\\udc00\\ud800\"}", 6, "unpaired UTF-16 surrogate \\udc00");
    refused("{\"a\":\"x\\ude00\"}", 7, "unpaired UTF-16 surrogate");
}

static void invalid_utf8_should_be_refused(void **state)
{
    (void)state;
    refused("{\"a\":\"\xc0\xaf\"}", 6, "invalid UTF-8");          /* overlong '/' */
    refused("{\"a\":\"\xe0\x80\xaf\"}", 6, "invalid UTF-8");      /* overlong */
    refused("{\"a\":\"\xed\xa0\x80\"}", 6, "invalid UTF-8");      /* a surrogate */
    refused("{\"a\":\"\xf4\x90\x80\x80\"}", 6, "invalid UTF-8");  /* above U+10FFFF */
    refused("{\"a\":\"x\x80\"}", 7, "invalid UTF-8");             /* a lone continuation byte */
    refused("{\"a\":\"\xff\"}", 6, "invalid UTF-8");
    refused("{\"a\":\"\xe2\x82\"}", 6, "invalid UTF-8");          /* cut short by the quote */
    refused("{\"a\":\"\xe2\x82", 6, "invalid UTF-8");             /* cut short by the end */
    refused("{\"\xc3\xa9\":1,\xc3\xa9}", 8, "found byte 0xc3");      /* UTF-8 outside strings */
}

static void duplicate_keys_should_be_refused(void **state)
{
    (void)state;
    refused("{\"a\":1,\"a\":2}", 7, "duplicate key 'a'");
    refused("{\"type\":\"pause\",\"id\":1,\"type\":\"reset\"}", 23, "duplicate key 'type'");
    /* equal once unescaped */
    refused("{\"type\":\"pause\",\"typ\\u0065\":\"reset\"}", 16, "duplicate key 'type'");
    refused("{\"\xc3\xa9\":1,\"\\u00e9\":2}", 8, "duplicate key '?'");
    /* inside a nested object, and the first repeat in text order */
    refused("{\"o\":{\"k\":1,\"j\":2,\"j\":3,\"k\":4}}", 18, "duplicate key 'j'");
    refused("{\"\":1,\"\":2}", 6, "duplicate key ''");
    /* among more keys than the inline table holds */
    char text[4096];
    int n = snprintf(text, sizeof text, "{");
    for (int i = 0; i < 100; i++) n += snprintf(text + n, sizeof text - (size_t)n, "\"k%d\":%d,", i, i);
    size_t at = (size_t)n;
    snprintf(text + n, sizeof text - (size_t)n, "\"k7\":0}");
    refused(text, at, "duplicate key 'k7'");
}

static void nesting_deeper_than_the_limit_should_be_refused(void **state)
{
    (void)state;
    char deep[8 * JSON_STRICT_MAX_DEPTH];
    int m = 0;
    for (int i = 0; i <= JSON_STRICT_MAX_DEPTH; i++) m += snprintf(deep + m, sizeof deep - (size_t)m, "[");
    refused(deep, JSON_STRICT_MAX_DEPTH, "nested deeper than 16 levels");
    m = 0;
    for (int i = 0; i <= JSON_STRICT_MAX_DEPTH; i++) m += snprintf(deep + m, sizeof deep - (size_t)m, "{\"a\":");
    refused(deep, 5u * JSON_STRICT_MAX_DEPTH, "nested deeper than 16 levels");
}

static void structural_mistakes_should_be_refused(void **state)
{
    (void)state;
    refused("{'type':'pause'}", 1, "expected a key (a string), found '''");
    refused("{type:1}", 1, "expected a key");
    refused("{\"a\" 1}", 5, "expected ':' after a key");
    refused("{\"a\":1 \"b\":2}", 7, "expected ',' or '}'");
    refused("[1 2]", 3, "expected ',' or ']'");
    refused("{\"a\":1,}", 6, "trailing comma before '}'");
    refused("[1,]", 2, "trailing comma before ']'");
    refused("[,1]", 1, "expected a value, found ','");
    refused("{\"a\":tru}", 5, "bare word");
    refused("{\"a\":nul}", 5, "bare word");
    refused("{\"a\":True}", 5, "expected a value, found 'T'");
    refused("hello", 0, "expected a value, found 'h'");
}

/* Every prefix of a valid text, and every one-byte change of it, is decided
 * without reading past its end (ASan) and with a printable message. */
static void every_prefix_and_byte_change_should_be_decided_safely(void **state)
{
    (void)state;
    static const char text[] = "{\"type\":\"set_param\",\"name\":\"w\\u00e9\",\"value\":[-1.5e+3,true,null],\"id\":7}";
    const size_t len = sizeof text - 1;
    json_strict_error_t err;
    for (size_t n = 0; n < len; n++) {
        assert_int_equal(check(text, n, &err), JSON_STRICT_E_INVALID);
        assert_true(err.offset <= n);
        assert_printable_ascii(err.message);
    }
    assert_int_equal(check(text, len, &err), JSON_STRICT_OK);
    char changed[sizeof text];
    for (size_t i = 0; i < len; i++)
        for (int b = 0; b < 256; b++) {
            memcpy(changed, text, len);
            changed[i] = (char)b;
            int rc = check(changed, len, &err);
            if (rc == JSON_STRICT_OK) {
                accepted_n(changed, len);
            } else {
                assert_int_equal(rc, JSON_STRICT_E_INVALID);
                assert_true(err.offset <= len);
                assert_printable_ascii(err.message);
            }
        }
}

int main(void)
{
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_kind_of_json_value_should_be_accepted),
        cmocka_unit_test(escapes_and_utf8_in_strings_should_be_accepted),
        cmocka_unit_test(equal_keys_in_different_objects_should_be_accepted),
        cmocka_unit_test(many_distinct_keys_should_be_accepted),
        cmocka_unit_test(nesting_of_exactly_the_limit_should_be_accepted),
        cmocka_unit_test(a_number_of_the_longest_allowed_length_should_be_accepted),
        cmocka_unit_test(a_byte_order_mark_should_be_refused),
        cmocka_unit_test(an_empty_or_blank_text_should_be_refused),
        cmocka_unit_test(numbers_outside_the_json_grammar_should_be_refused),
        cmocka_unit_test(a_number_longer_than_the_limit_should_be_refused),
        cmocka_unit_test(text_after_the_value_should_be_refused),
        cmocka_unit_test(control_characters_and_nul_should_be_refused),
        cmocka_unit_test(unterminated_strings_and_containers_should_be_refused),
        cmocka_unit_test(bad_escapes_and_lone_surrogates_should_be_refused),
        cmocka_unit_test(invalid_utf8_should_be_refused),
        cmocka_unit_test(duplicate_keys_should_be_refused),
        cmocka_unit_test(nesting_deeper_than_the_limit_should_be_refused),
        cmocka_unit_test(structural_mistakes_should_be_refused),
        cmocka_unit_test(every_prefix_and_byte_change_should_be_decided_safely),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
