/* utf8: the reader follows table 3-7 of Unicode 15; the text builder and
 * the JSON string writer give valid UTF-8 whatever they are given, cut only
 * between characters, and keep valid text byte for byte. */
#include <cJSON.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "protocol/json_out.h"
#include "protocol/utf8.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static void the_reader_should_take_well_formed_characters_and_nothing_else(void **state)
{
    (void)state;
    static const struct {
        const char *bytes;
        size_t len;
        uint32_t cp; /* 0: refused */
    } cases[] = {
        {"A", 1, 'A'},
        {"\xc3\xa9", 2, 0xe9},
        {"\xe2\x82\xac", 3, 0x20ac},
        {"\xf0\x9f\x98\x80", 4, 0x1f600},
        {"\xf4\x8f\xbf\xbf", 4, 0x10ffff},
        {"\xc0\xaf", 2, 0},             /* overlong '/' */
        {"\xe0\x80\xaf", 3, 0},         /* overlong */
        {"\xed\xa0\x80", 3, 0},         /* a surrogate */
        {"\xf4\x90\x80\x80", 4, 0},     /* past U+10FFFF */
        {"\xf0\x9f\x98", 3, 0},         /* cut short */
        {"\x80", 1, 0},                 /* a lone continuation byte */
        {"\xff", 1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t cp = 0;
        size_t n = utf8_next((const unsigned char *)cases[i].bytes, cases[i].len, &cp);
        if (cases[i].cp) {
            assert_int_equal(n, cases[i].len);
            assert_int_equal(cp, cases[i].cp);
            assert_true(utf8_valid(cases[i].bytes, cases[i].len));
        } else {
            assert_int_equal(n, 0);
            assert_false(utf8_valid(cases[i].bytes, cases[i].len));
        }
    }
}

static void a_text_should_be_cut_before_the_character_that_does_not_fit(void **state)
{
    (void)state;
    char buf[7];
    text_t t;
    text_init(&t, buf, sizeof buf);
    text_add(&t, "ab\xf0\x9f\x98\x80"); /* "ab😀": 6 bytes and the NUL need 7 */
    assert_string_equal(buf, "ab\xf0\x9f\x98\x80");
    assert_false(t.cut);
    text_init(&t, buf, 6);
    text_add(&t, "ab\xf0\x9f\x98\x80");
    assert_string_equal(buf, "ab"); /* not "ab\xf0\x9f\x98" */
    assert_true(t.cut);
    /* Nothing is added after a cut, even what would fit. */
    text_add(&t, "c");
    assert_string_equal(buf, "ab");
    /* An ill-formed byte becomes U+FFFD. */
    text_init(&t, buf, sizeof buf);
    text_add(&t, "a\xff");
    assert_string_equal(buf, "a" UTF8_REPLACEMENT);
    /* A formatted piece longer than the scratch is cut between characters too. */
    char long_buf[301];
    char rows[400] = "";
    for (int k = 0; k < 100; k++) strcat(rows, "\xe2\x82\xac"); /* 300 bytes of "€" */
    text_init(&t, long_buf, sizeof long_buf);
    text_addf(&t, "x%s", rows); /* 301 bytes: the last "€" does not fit */
    assert_true(t.cut);
    assert_int_equal(strlen(long_buf), 298);
    assert_true(utf8_valid(long_buf, strlen(long_buf)));
}

/* Random bytes, mostly pieces of real characters, into every capacity:
 * always valid, NUL-terminated, within the capacity, and when it is not
 * cut it is exactly the input (for valid input). */
static void any_bytes_into_any_capacity_should_give_valid_text(void **state)
{
    (void)state;
    static const char *const pieces[] = {"a", " ", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xcc\x81",
                                         "\xe0\xa4\x95", "\xd8\xb9", "\xe4\xb8\xad", "\x80", "\xf0\x9f", "\xed\xa0\x80",
                                         "\xff", "\xc0\xaf"};
    for (int round = 0; round < 20000; round++) {
        char in[64] = "";
        size_t n = 0;
        bool valid = true;
        int parts = (int)(next_random() % 12);
        for (int k = 0; k < parts; k++) {
            size_t p = next_random() % (sizeof pieces / sizeof pieces[0]);
            size_t len = strlen(pieces[p]);
            memcpy(in + n, pieces[p], len);
            n += len;
            valid &= p < 9;
        }
        in[n] = '\0';
        size_t cap = 1 + next_random() % 40;
        char out[48];
        bool whole = text_copy(out, cap, in, n);
        size_t len = strlen(out);
        assert_true(len < cap);
        assert_true(utf8_valid(out, len));
        if (valid) {
            assert_true(whole ? strcmp(out, in) == 0 : strncmp(out, in, len) == 0 && len < n);
            if (!whole) { /* cut before a character that would not fit */
                uint32_t cp;
                size_t next = utf8_next((const unsigned char *)in + len, n - len, &cp);
                assert_true(next > 0 && len + next >= cap);
            }
        }
        /* The JSON writer: valid UTF-8 and valid JSON, the same text back
         * when the input was valid. */
        jbuf_t b;
        jb_init_growing(&b);
        jb_string(&b, in);
        assert_false(b.failed);
        assert_true(utf8_valid(b.buf, b.len));
        cJSON *s = cJSON_Parse(b.buf);
        assert_non_null(s);
        assert_true(cJSON_IsString(s));
        if (valid) assert_string_equal(s->valuestring, in);
        cJSON_Delete(s);
        jb_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_reader_should_take_well_formed_characters_and_nothing_else),
        cmocka_unit_test(a_text_should_be_cut_before_the_character_that_does_not_fit),
        cmocka_unit_test(any_bytes_into_any_capacity_should_give_valid_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
