/* room_code: codes people type (alphabet, case, dashes), random codes and
 * tokens, and the token comparison. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "rooms/room_code.h"

static void typed_codes_normalize(void **state)
{
    (void)state;
    char out[ROOM_CODE_LEN + 1];
    assert_true(room_code_normalize("K7PXM3QD", out));
    assert_string_equal(out, "K7PXM3QD");
    assert_true(room_code_normalize("k7px-m3qd", out));
    assert_string_equal(out, "K7PXM3QD");
    assert_true(room_code_normalize(" k7px m3qd ", out));
    assert_string_equal(out, "K7PXM3QD");
    assert_true(room_code_normalize("K7.PX.M3.QD", out));
    assert_string_equal(out, "K7PXM3QD");
}

static void confusable_and_wrong_lengths_are_refused(void **state)
{
    (void)state;
    char out[ROOM_CODE_LEN + 1];
    /* 0, O, 1, I and L are not in the alphabet, in either case. */
    const char *bad[] = {"K7PXM3Q0", "K7PXM3QO", "K7PXM3Q1", "K7PXM3QI", "K7PXM3QL", "k7pxm3ql", "k7pxm3qi",
                         "K7PXM3Q", "K7PXM3QDD", "", "--------", "K7PX_M3QD", "K7PXM3Q\xc3\xa9", "K7PXM3Q/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) assert_false(room_code_normalize(bad[i], out));
}

static void every_character_of_the_alphabet_is_typeable(void **state)
{
    (void)state;
    const char *alphabet = ROOM_CODE_ALPHABET;
    assert_int_equal(strlen(alphabet), 31);
    for (const char *c = "0O1IL"; *c; c++) assert_null(strchr(alphabet, *c));
    char typed[ROOM_CODE_LEN + 1], out[ROOM_CODE_LEN + 1];
    for (size_t i = 0; alphabet[i]; i++) {
        memset(typed, alphabet[i], ROOM_CODE_LEN);
        typed[ROOM_CODE_LEN] = 0;
        assert_true(room_code_normalize(typed, out));
    }
}

static void random_codes_are_valid_and_spread(void **state)
{
    (void)state;
    int seen[128] = {0};
    char code[ROOM_CODE_LEN + 1], again[ROOM_CODE_LEN + 1], prev[ROOM_CODE_LEN + 1] = "";
    for (int i = 0; i < 4000; i++) {
        assert_int_equal(room_code_random(code), 0);
        assert_int_equal(strlen(code), ROOM_CODE_LEN);
        assert_true(room_code_normalize(code, again));
        assert_string_equal(code, again);
        assert_string_not_equal(code, prev);
        strcpy(prev, code);
        for (int k = 0; k < ROOM_CODE_LEN; k++) seen[(int)code[k]]++;
    }
    /* 32,000 characters over 31: each about 1032 times; none far off (a
     * biased draw, say modulo 256, would show up as some at 8/7 of others). */
    for (const char *c = ROOM_CODE_ALPHABET; *c; c++) {
        assert_in_range(seen[(int)*c], 880, 1190);
    }
}

static void display_groups_in_fours(void **state)
{
    (void)state;
    char out[ROOM_CODE_LEN + 2];
    room_code_display("K7PXM3QD", out);
    assert_string_equal(out, "K7PX-M3QD");
}

static void tokens_are_128_bits_with_their_prefix(void **state)
{
    (void)state;
    char a[ROOM_TOKEN_BYTES + 1], b[ROOM_TOKEN_BYTES + 1];
    assert_int_equal(room_token_random(a), 0);
    assert_int_equal(room_token_random(b), 0);
    assert_int_equal(strlen(a), ROOM_TOKEN_BYTES);
    assert_memory_equal(a, "r_", 2);
    for (size_t i = 2; i < ROOM_TOKEN_BYTES; i++) assert_non_null(strchr("0123456789abcdef", a[i]));
    assert_string_not_equal(a, b);
    assert_true(room_token_shaped(a));
    assert_false(room_token_shaped("swordfish"));
    assert_true(room_token_equal(a, a));
    assert_false(room_token_equal(b, a));
    /* A prefix, a longer one, and an empty room token never match. */
    char prefix[ROOM_TOKEN_BYTES];
    memcpy(prefix, a, ROOM_TOKEN_BYTES - 1);
    prefix[ROOM_TOKEN_BYTES - 1] = 0;
    assert_false(room_token_equal(prefix, a));
    char longer[ROOM_TOKEN_BYTES + 3];
    snprintf(longer, sizeof longer, "%sxx", a);
    assert_false(room_token_equal(longer, a));
    assert_false(room_token_equal("", ""));
    assert_false(room_token_equal("r_", ""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(typed_codes_normalize),
        cmocka_unit_test(confusable_and_wrong_lengths_are_refused),
        cmocka_unit_test(every_character_of_the_alphabet_is_typeable),
        cmocka_unit_test(random_codes_are_valid_and_spread),
        cmocka_unit_test(display_groups_in_fours),
        cmocka_unit_test(tokens_are_128_bits_with_their_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
