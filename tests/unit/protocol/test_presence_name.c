/* presence_name: names are visible and honest. Invisible and format
 * characters go, a name with nothing visible left is refused, marks are
 * capped, spaces collapse, the page's own labels are refused, and cleaning
 * a cleaned name gives it back. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "protocol/presence_name.h"
#include "protocol/utf8.h"
#include "../random_unicode.h"

static char out[PRESENCE_NAME_BYTES], why[200];

static const char *clean(const char *in)
{
    return presence_clean_name(in, out, why, sizeof why) == 0 ? out : NULL;
}

static void invisible_and_format_characters_should_be_removed(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"A\xe2\x80\x8b" "da", "Ada"},              /* U+200B zero width space */
        {"A\xe2\x80\x8d" "da", "Ada"},              /* U+200D zero width joiner */
        {"\xef\xbb\xbf" "Ada", "Ada"},              /* U+FEFF */
        {"A\xc2\xad" "da", "Ada"},                  /* U+00AD soft hyphen */
        {"Ada\xe2\x81\xa0", "Ada"},                 /* U+2060 word joiner */
        {"Ada\xe2\xa0\x80", "Ada"},                 /* U+2800 blank braille */
        {"\xe3\x85\xa4" "Ada", "Ada"},              /* U+3164 Hangul filler */
        {"Ada\xef\xbe\xa0", "Ada"},                 /* U+FFA0 */
        {"Ada\xe1\x85\x9f", "Ada"},                 /* U+115F */
        {"A\xd8\x9c" "da", "Ada"},                  /* U+061C Arabic letter mark */
        {"Ada\xf3\xa0\x80\x81", "Ada"},             /* U+E0001 language tag */
        {"\xef\xb8\x8f" "Ada", "Ada"},              /* U+FE0F with nothing to vary */
        {"\xe2\x9d\xa4\xef\xb8\x8f", "\xe2\x9d\xa4\xef\xb8\x8f"}, /* ❤️ keeps its selector */
        {"\xcc\x81" "Ada", "Ada"},                  /* a combining mark with no base */
        {"e\xcc\x81", "\xc3\xa9"},                  /* NFC: e + U+0301 is é */
        {"  A \xe3\x80\x80\xc2\xa0 B  ", "A B"},    /* any spaces: one between words */
        {"\xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8\xe0\xa5\x8d\xe0\xa4\xa4\xe0\xa5\x87", /* नमस्ते, unchanged */
         "\xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8\xe0\xa5\x8d\xe0\xa4\xa4\xe0\xa5\x87"},
        {"Guest", "Guest"},                          /* only "Guest N" is the server's */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = clean(cases[i].in);
        if (!got) fail_msg("case %zu refused: %s", i, why);
        assert_string_equal(got, cases[i].out);
    }
}

static void a_name_with_nothing_visible_should_be_refused(void **state)
{
    (void)state;
    static const char *const invisible[] = {
        "\xe2\x80\x8b",                 /* U+200B */
        "\xe2\x80\x8d\xe2\x80\x8d",     /* U+200D U+200D */
        "\xe2\xa0\x80\xe2\xa0\x80",     /* U+2800 U+2800 */
        "\xe3\x85\xa4",                 /* U+3164 */
        "\xef\xb8\x8f",                 /* U+FE0F */
        " \xcc\x81 ",                   /* a lone mark between spaces */
        "\xe3\x80\x80",                 /* U+3000 ideographic space */
        "",
    };
    for (size_t i = 0; i < sizeof invisible / sizeof invisible[0]; i++) {
        assert_null(clean(invisible[i]));
        assert_non_null(strstr(why, "no visible character"));
    }
}

static void control_bidi_private_and_unassigned_characters_should_be_refused(void **state)
{
    (void)state;
    static const char *const refused[] = {
        "A\x07", "A\nB", "A\xc2\x85",  /* C0, C1 */
        "A\xe2\x80\xa8" "B",           /* U+2028 line separator */
        "A\xe2\x80\xae" "B",           /* U+202E right-to-left override */
        "A\xe2\x81\xa7" "B",           /* U+2067 right-to-left isolate */
        "A\xee\x80\x80",               /* U+E000 private use */
        "A\xef\xbf\xbf",               /* U+FFFF noncharacter */
        "A\xcd\xb8",                   /* U+0378 unassigned */
        "A\xff",                       /* not UTF-8 */
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        assert_null(clean(refused[i]));
        for (const char *c = why; *c; c++) assert_true(*c >= 0x20 && *c < 0x7f); /* the reason is plain ASCII */
    }
}

static void the_labels_of_the_page_should_be_refused_in_any_case_and_width(void **state)
{
    (void)state;
    static const char *const labels[] = {"you", "You", " YOU ", "\xef\xbd\x99\xef\xbd\x8f\xef\xbd\x95" /* ｙｏｕ */,
                                         "y\xe2\x80\x8bou", "someone", "Operator", "visitor", "Guest 7", "guest7",
                                         "GUEST  12", "#3", "\xef\xbc\x83\xef\xbc\x94" /* ＃４ */};
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
        if (clean(labels[i])) fail_msg("label %zu accepted as \"%s\"", i, out);
        assert_non_null(strstr(why, "labels the page uses"));
    }
    assert_string_equal(clean("your"), "your");
    assert_string_equal(clean("Guest star"), "Guest star");
    assert_string_equal(clean("#3a"), "#3a");
}

static void combining_marks_should_be_capped_on_each_character(void **state)
{
    (void)state;
    char zalgo[256] = "Z";
    for (int k = 0; k < 20; k++) strcat(zalgo, "\xcc\x8d"); /* U+030D twenty times */
    strcat(zalgo, "a");
    const char *got = clean(zalgo);
    assert_non_null(got);
    char want[64] = "Z";
    for (int k = 0; k < PRESENCE_NAME_MARKS; k++) strcat(want, "\xcc\x8d");
    strcat(want, "a");
    assert_string_equal(got, want);
}

static void the_length_should_count_characters_after_cleaning(void **state)
{
    (void)state;
    char name[512] = "";
    for (int k = 0; k < PRESENCE_NAME_CHARS; k++) strcat(name, "\xf0\x9f\x98\x80\xe2\x80\x8b"); /* 😀 and a ZWSP */
    const char *got = clean(name);
    assert_non_null(got);
    assert_int_equal(strlen(got), PRESENCE_NAME_CHARS * 4);
    strcat(name, "\xf0\x9f\x98\x80");
    assert_null(clean(name));
    assert_non_null(strstr(why, "at most 24"));
}

/* Random code points from every kind the rule treats: what is accepted is
 * valid UTF-8 within the limits, has no invisible or format character, and
 * comes back unchanged when cleaned again. */
static void any_accepted_name_should_be_clean_and_stay_so(void **state)
{
    (void)state;
    uint64_t rng = 0x2545f4914f6cdd1dull;
    size_t accepted = 0;
    for (int round = 0; round < 20000; round++) {
        char in[256];
        text_t t;
        text_init(&t, in, sizeof in);
        random_unicode(&rng, &t, 40);
        if (!clean(in)) continue;
        accepted++;
        size_t len = strlen(out);
        assert_true(len > 0 && len < PRESENCE_NAME_BYTES);
        assert_true(utf8_valid(out, len));
        assert_true(out[0] != ' ' && out[len - 1] != ' ' && !strstr(out, "  "));
        static const char *const never[] = {"\xe2\x80\x8b", "\xe2\x80\x8d", "\xef\xbb\xbf", "\xe2\xa0\x80",
                                            "\xe3\x85\xa4", "\xef\xbe\xa0", "\xf3\xa0\x80", "\xf3\xa0\x81"};
        for (size_t i = 0; i < sizeof never / sizeof never[0]; i++) assert_null(strstr(out, never[i]));
        char again[PRESENCE_NAME_BYTES];
        assert_int_equal(presence_clean_name(out, again, why, sizeof why), 0);
        assert_string_equal(again, out);
    }
    assert_true(accepted > 1000); /* the rules above were really exercised */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(invisible_and_format_characters_should_be_removed),
        cmocka_unit_test(a_name_with_nothing_visible_should_be_refused),
        cmocka_unit_test(control_bidi_private_and_unassigned_characters_should_be_refused),
        cmocka_unit_test(the_labels_of_the_page_should_be_refused_in_any_case_and_width),
        cmocka_unit_test(combining_marks_should_be_capped_on_each_character),
        cmocka_unit_test(the_length_should_count_characters_after_cleaning),
        cmocka_unit_test(any_accepted_name_should_be_clean_and_stay_so),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
