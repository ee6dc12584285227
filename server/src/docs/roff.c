#include "docs/roff.h"

#include <string.h>

void roff_text(FILE *f, const char *s, size_t n)
{
    int at_line_start = 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (at_line_start && (ch == '.' || ch == '\'')) fputs("\\&", f);
        at_line_start = ch == '\n';
        if (ch == '\\')
            fputs("\\e", f);
        else if (ch == '-')
            fputs("\\-", f);
        else if (ch >= 0xc0) {
            /* One UTF-8 sequence: its code point. */
            int more = ch >= 0xf0 ? 3 : ch >= 0xe0 ? 2 : 1;
            unsigned cp = ch & (0x3f >> more);
            for (int k = 0; k < more && i + 1 < n; k++) cp = (cp << 6) | ((unsigned char)s[++i] & 0x3f);
            fprintf(f, "\\[u%04X]", cp);
        } else
            fputc(ch, f);
    }
}

void roff_words(FILE *f, const char *s)
{
    for (const char *line = s; line;) {
        const char *nl = strchr(line, '\n');
        roff_text(f, line, nl ? (size_t)(nl - line) : strlen(line));
        if (nl) fputc(' ', f);
        line = nl ? nl + 1 : NULL;
    }
}
