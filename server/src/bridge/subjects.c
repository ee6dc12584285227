#include "bridge/subjects.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rooms/room_code.h"

bool subject_prefix_valid(const char *prefix)
{
    if (!prefix || !*prefix || strlen(prefix) > SUBJECT_PREFIX_MAX) return false;
    bool token_empty = true;
    for (const char *c = prefix; *c; c++) {
        if (*c == '.') {
            if (token_empty) return false;
            token_empty = true;
            continue;
        }
        bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
                  *c == '_';
        if (!ok) return false;
        token_empty = false;
    }
    return !token_empty;
}

static int subject_printf(char *out, size_t cap, const char *fmt, ...)
{
    if (!cap) return -1;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, cap, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap) {
        out[0] = '\0';
        return -1;
    }
    return 0;
}

int subject_room_prefix(char *out, size_t cap, const char *prefix, const char *code)
{
    if (!code || !code[0]) return subject_printf(out, cap, "%s", prefix);
    char canonical[ROOM_CODE_LEN + 1];
    /* Only a code in its canonical form: one room, one subject. */
    if (!room_code_normalize(code, canonical) || strcmp(canonical, code) != 0) {
        if (cap) out[0] = '\0';
        return -1;
    }
    return subject_printf(out, cap, "%s.r.%s", prefix, code);
}

int subject_rooms_any(char *out, size_t cap, const char *prefix) { return subject_printf(out, cap, "%s.r.>", prefix); }

int subject_frame(char *out, size_t cap, const char *prefix) { return subject_printf(out, cap, "%s.frame", prefix); }
int subject_news(char *out, size_t cap, const char *prefix) { return subject_printf(out, cap, "%s.news", prefix); }
int subject_shared(char *out, size_t cap, const char *prefix) { return subject_printf(out, cap, "%s.shared", prefix); }
int subject_lease_any(char *out, size_t cap, const char *prefix) { return subject_printf(out, cap, "%s.lease.*", prefix); }
int subject_cmd_any(char *out, size_t cap, const char *prefix) { return subject_printf(out, cap, "%s.cmd.*", prefix); }

int subject_lease(char *out, size_t cap, const char *prefix, unsigned tag)
{
    return subject_printf(out, cap, "%s.lease.%u", prefix, tag);
}

int subject_cmd(char *out, size_t cap, const char *prefix, unsigned tag)
{
    return subject_printf(out, cap, "%s.cmd.%u", prefix, tag);
}

unsigned subject_tag_of(const char *subject)
{
    const char *dot = subject ? strrchr(subject, '.') : NULL;
    if (!dot) return 0;
    const char *d = dot + 1;
    if (*d < '1' || *d > '9') return 0; /* empty, a sign, a leading zero */
    unsigned tag = 0;
    for (; *d; d++) {
        if (*d < '0' || *d > '9') return 0;
        tag = tag * 10 + (unsigned)(*d - '0');
        if (tag > SUBJECT_TAG_MAX) return 0;
    }
    return tag;
}

int subject_reply(char *out, size_t cap, const char *prefix, unsigned tag)
{
    return subject_printf(out, cap, "%s.reply.%u", prefix, tag);
}

int subject_view(char *out, size_t cap, const char *prefix, wire2_mode_t m, wire2_rect_t r)
{
    if ((m != WIRE2_DETAIL && m != WIRE2_LOD) || !wire2_rect_valid(r)) {
        if (cap) out[0] = '\0';
        return -1;
    }
    return subject_printf(out, cap, "%s.view.%c.%u.%u.%u.%u.%u", prefix, m == WIRE2_DETAIL ? 'd' : 'l',
                          (unsigned)r.level, (unsigned)r.x0, (unsigned)r.y0, (unsigned)r.x1, (unsigned)r.y1);
}
