#include "net/utf8.h"

bool utf8_valid(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned char c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        /* Lead byte: how many continuation bytes, and the allowed range of
         * the first one (which rules out overlong forms and surrogates). */
        size_t more;
        unsigned char lo = 0x80, hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf) more = 1;
        else if (c == 0xe0) more = 2, lo = 0xa0;
        else if (c == 0xed) more = 2, hi = 0x9f;
        else if (c >= 0xe1 && c <= 0xef) more = 2;
        else if (c == 0xf0) more = 3, lo = 0x90;
        else if (c >= 0xf1 && c <= 0xf3) more = 3;
        else if (c == 0xf4) more = 3, hi = 0x8f;
        else return false;
        if (len - i <= more) return false;
        if (s[i + 1] < lo || s[i + 1] > hi) return false;
        for (size_t k = 2; k <= more; k++)
            if ((s[i + k] & 0xc0) != 0x80) return false;
        i += more + 1;
    }
    return true;
}
