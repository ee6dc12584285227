/* Unit tests of the protocol v2 bit primitives (server/src/protocol/wire2_bits.c)
 * against protocol/PROTOCOL.md "Bit primitives". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "protocol/wire2_bits.h"

/* EG(k) of v written bit by bit straight from the spec's definition, as a
 * string of '0'/'1' in stream order. */
static void spec_eg(uint64_t v, unsigned k, char *out)
{
    uint64_t w = v + ((uint64_t)1 << k);
    unsigned b = 0;
    while (b < 64 && (w >> b)) b++;
    size_t n = 0;
    for (unsigned i = 0; i < b - k - 1; i++) out[n++] = '0';
    out[n++] = '1';
    for (unsigned i = 0; i + 1 < b; i++) out[n++] = (char)('0' + ((w >> i) & 1u)); /* u(b−1): LSB first */
    out[n] = '\0';
}

static void stream_bits(const uint8_t *buf, size_t nbits, char *out)
{
    for (size_t i = 0; i < nbits; i++) out[i] = (char)('0' + ((buf[i >> 3] >> (i & 7)) & 1u));
    out[nbits] = '\0';
}

static void u_fields_are_written_least_significant_bit_first(void **state)
{
    (void)state;
    wire2_bitw_t w = {0};
    wire2_put_u(&w, 1, 1);    /* bit 0 */
    wire2_put_u(&w, 0x6, 3);  /* bits 1..3 = 0,1,1 */
    wire2_put_u(&w, 0xab, 8); /* straddles the byte */
    assert_int_equal(wire2_bitw_finish(&w), 2);
    /* byte 0: bits 0..7 = 1,0,1,1, then 0xab's low nibble b=1011 LSB first → 1,1,0,1 */
    assert_int_equal(w.buf[0], 0x01 | 0x0c | (0xb << 4));
    assert_int_equal(w.buf[1], 0x0a);
    wire2_bitw_free(&w);
}

static void eg_codes_match_the_spec_bit_for_bit(void **state)
{
    (void)state;
    static const uint64_t values[] = {0, 1, 2, 3, 7, 8, 15, 16, 255, 1000, 65535, 1u << 20, 4294967295u};
    char expect[256], got[256];
    for (unsigned k = 0; k < 16; k++) {
        for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
            wire2_bitw_t w = {0};
            wire2_put_eg(&w, values[i], k);
            size_t bits = wire2_bitw_bits(&w);
            wire2_bitw_finish(&w);
            spec_eg(values[i], k, expect);
            stream_bits(w.buf, bits, got);
            assert_string_equal(got, expect);
            assert_int_equal(bits, wire2_eg_bits(values[i], k));
            wire2_bitw_free(&w);
        }
    }
}

static void values_round_trip_through_every_primitive_including_2_to_the_32_minus_1(void **state)
{
    (void)state;
    static const uint64_t values[] = {0, 1, 2, 5, 31, 32, 1023, 1024, 99999, 0x7fffffffu, 0x80000000u, 4294967294u,
                                      4294967295u};
    wire2_bitw_t w = {0};
    for (unsigned k = 0; k < 16; k++) {
        for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
            uint64_t v = values[i];
            wire2_put_u(&w, (uint32_t)v, 32);
            wire2_put_u(&w, (uint32_t)v, (unsigned)(k + 1));
            wire2_put_eg(&w, v, k);
            /* SE: zigzag values up to 2^32 − 1, i.e. s in [−2^31, 2^31 − 1] */
            wire2_put_se(&w, (int64_t)(v >> 1), k);
            wire2_put_se(&w, -(int64_t)(v >> 1), k);
            wire2_put_se(&w, -(int64_t)(v >> 1) - 1, k);
        }
    }
    size_t len = wire2_bitw_finish(&w);
    assert_false(w.failed);
    wire2_bitr_t r;
    wire2_bitr_init(&r, w.buf, len);
    for (unsigned k = 0; k < 16; k++) {
        for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
            uint64_t v = values[i];
            assert_int_equal(wire2_get_u(&r, 32), (uint32_t)v);
            assert_int_equal(wire2_get_u(&r, k + 1), (uint32_t)(v & ((1u << (k + 1)) - 1u)));
            assert_int_equal(wire2_get_eg(&r, k), v);
            assert_int_equal(wire2_get_se(&r, k), (int64_t)(v >> 1));
            assert_int_equal(wire2_get_se(&r, k), -(int64_t)(v >> 1));
            assert_int_equal(wire2_get_se(&r, k), -(int64_t)(v >> 1) - 1);
        }
    }
    assert_true(wire2_bitr_ok(&r));
    assert_true(r.len_bits - r.pos < 8); /* only padding is left */
    wire2_bitw_free(&w);
}

static void zigzag_and_wrap_follow_the_spec(void **state)
{
    (void)state;
    assert_int_equal(wire2_zigzag(0), 0);
    assert_int_equal(wire2_zigzag(-1), 1);
    assert_int_equal(wire2_zigzag(1), 2);
    assert_int_equal(wire2_zigzag(-2), 3);
    assert_int_equal(wire2_unzigzag(3), -2);
    assert_int_equal(wire2_wrap_h(512), -512);
    assert_int_equal(wire2_wrap_h(511), 511);
    assert_int_equal(wire2_wrap_h(-513), 511);
    assert_int_equal(wire2_wrap_h(1023), -1);
    assert_int_equal(wire2_wrap_l(32), -32);
    assert_int_equal(wire2_wrap_l(-33), 31);
    assert_int_equal(wire2_wrap_l(63), -1);
}

static void reading_past_the_end_reports_an_overrun(void **state)
{
    (void)state;
    const uint8_t one[1] = {0xff};
    wire2_bitr_t r;
    wire2_bitr_init(&r, one, 1);
    assert_int_equal(wire2_get_u(&r, 8), 0xff);
    assert_true(wire2_bitr_ok(&r));
    (void)wire2_get_u(&r, 1);
    assert_true(r.overrun);

    /* An EG whose suffix runs past the end. */
    const uint8_t eg[1] = {0x08}; /* 3 zeros, a one, then 3 bits + missing */
    wire2_bitr_init(&r, eg, 1);
    (void)wire2_get_eg(&r, 2);
    assert_true(r.overrun);
    assert_false(r.malformed);

    /* Only zeros until the end: an overrun, not a malformed prefix. */
    const uint8_t zeros[2] = {0, 0};
    wire2_bitr_init(&r, zeros, 2);
    (void)wire2_get_eg(&r, 0);
    assert_true(r.overrun);
}

static void an_eg_prefix_of_more_than_32_zeros_is_malformed(void **state)
{
    (void)state;
    uint8_t buf[8] = {0, 0, 0, 0, 0x02, 0xff, 0xff, 0xff}; /* 33 zeros then a one */
    wire2_bitr_t r;
    wire2_bitr_init(&r, buf, sizeof buf);
    (void)wire2_get_eg(&r, 0);
    assert_true(r.malformed);

    uint8_t ok[12] = {0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}; /* exactly 32 zeros */
    wire2_bitr_init(&r, ok, sizeof ok);
    uint64_t v = wire2_get_eg(&r, 0);
    assert_true(wire2_bitr_ok(&r));
    assert_int_equal(v, ((uint64_t)1 << 33) - 2); /* 2^32 | (2^32 − 1) − 1 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(u_fields_are_written_least_significant_bit_first),
        cmocka_unit_test(eg_codes_match_the_spec_bit_for_bit),
        cmocka_unit_test(values_round_trip_through_every_primitive_including_2_to_the_32_minus_1),
        cmocka_unit_test(zigzag_and_wrap_follow_the_spec),
        cmocka_unit_test(reading_past_the_end_reports_an_overrun),
        cmocka_unit_test(an_eg_prefix_of_more_than_32_zeros_is_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
