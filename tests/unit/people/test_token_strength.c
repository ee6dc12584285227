/* token_strength: the start-up warning about a guessable control token. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "people/token_strength.h"

static void weak_tokens_should_be_named_and_random_ones_pass(void **state)
{
    (void)state;
    char why[96];
    const char *weak[] = {"secret", "abc", "aaaaaaaaaaaaaaaaaaaa", "1234567890123456",
                          "abcdefghijklmnop", "correcthorsebatt", "MyPassword-2026-x!", "Swarmcast-Demo-Room-42",
                          "xq7Ra9-abcd-Zt31Lp"};
    for (size_t i = 0; i < sizeof weak / sizeof weak[0]; i++) {
        const char *r = token_weakness(weak[i], why, sizeof why);
        if (!r) fail_msg("\"%s\" should be weak", weak[i]);
    }
    const char *strong[] = {"q3J9v+2kLxPz0aYw/Tn4mB8e", "Rk0QzN1y4Wc8JmTb7Xs2", "correcthorsebatterystaple"};
    for (size_t i = 0; i < sizeof strong / sizeof strong[0]; i++) {
        const char *r = token_weakness(strong[i], why, sizeof why);
        if (r) fail_msg("\"%s\" should pass, but: %s", strong[i], r);
    }
    assert_string_equal(token_weakness("secret", why, sizeof why), "6 characters, fewer than 16");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(weak_tokens_should_be_named_and_random_ones_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
