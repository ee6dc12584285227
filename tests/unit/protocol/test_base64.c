/* Unit tests of base64 (server/src/protocol/base64.c): RFC 4648's test
 * vectors, a round trip of every length, and the strict decoder refusing
 * whatever is not the one text of some bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "protocol/base64.h"

static void rfc4648_vectors_encode_and_decode(void **state)
{
    (void)state;
    static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const coded[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (size_t i = 0; i < 7; i++) {
        char text[16] = {0};
        size_t n = strlen(plain[i]);
        assert_int_equal(base64_encoded_len(n), strlen(coded[i]));
        base64_encode((const uint8_t *)plain[i], n, text);
        assert_string_equal(text, coded[i]);
        uint8_t back[16];
        assert_int_equal(base64_decode(coded[i], strlen(coded[i]), back, sizeof back), (long)n);
        assert_memory_equal(back, plain[i], n);
    }
}

static void every_byte_string_up_to_a_length_round_trips(void **state)
{
    (void)state;
    uint8_t in[300], out[300];
    char text[400];
    for (size_t i = 0; i < sizeof in; i++) in[i] = (uint8_t)(i * 151 + 7);
    for (size_t n = 0; n <= sizeof in; n++) {
        base64_encode(in, n, text);
        assert_int_equal(base64_decode(text, base64_encoded_len(n), out, n), (long)n);
        assert_memory_equal(out, in, n);
    }
}

static void text_that_is_not_strict_base64_is_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "Zg=",      /* length not a multiple of four */
        "Zh==",     /* bits the padding drops are not zero */
        "Zm9=",     /* the same, one byte of padding */
        "Zg==Zg==", /* padding before the end */
        "Z===",     /* too much padding */
        "Zm9v\n",   /* whitespace */
        "Zm-v",     /* the URL alphabet */
        "Zm9v====",
    };
    uint8_t out[16];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (base64_decode(bad[i], strlen(bad[i]), out, sizeof out) >= 0) fail_msg("\"%s\" was accepted", bad[i]);
}

static void decoding_never_writes_past_the_room_given(void **state)
{
    (void)state;
    uint8_t out[4] = {0xAA, 0xAA, 0xAA, 0xAA};
    assert_int_equal(base64_decode("Zm9vYmFy", 8, out, 3), -1);
    assert_int_equal(out[3], 0xAA);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rfc4648_vectors_encode_and_decode),
        cmocka_unit_test(every_byte_string_up_to_a_length_round_trips),
        cmocka_unit_test(text_that_is_not_strict_base64_is_refused),
        cmocka_unit_test(decoding_never_writes_past_the_room_given),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
