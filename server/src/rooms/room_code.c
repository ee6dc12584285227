#include "rooms/room_code.h"

#include <stdint.h>
#include <string.h>
#include <sys/random.h>

static const char ALPHABET[] = ROOM_CODE_ALPHABET;
#define ALPHABET_SIZE (sizeof ALPHABET - 1)

bool room_code_normalize(const char *typed, char *out)
{
    size_t n = 0;
    for (const char *p = typed; *p; p++) {
        char c = *p;
        if (c == '-' || c == ' ' || c == '.') continue;
        if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
        if (!memchr(ALPHABET, c, ALPHABET_SIZE) || n == ROOM_CODE_LEN) return false;
        out[n++] = c;
    }
    out[n] = 0;
    return n == ROOM_CODE_LEN;
}

/* Fills buf with random bytes; -1 when the kernel has none to give. */
static int random_bytes(uint8_t *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = getrandom(buf + got, len - got, 0);
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

int room_code_random(char *out)
{
    /* Bytes of 248 and above are drawn again: 248 = 8 × 31, so that every
     * character is equally likely. */
    size_t n = 0;
    uint8_t buf[32];
    while (n < ROOM_CODE_LEN) {
        if (random_bytes(buf, sizeof buf)) return -1;
        for (size_t i = 0; i < sizeof buf && n < ROOM_CODE_LEN; i++)
            if (buf[i] < 248) out[n++] = ALPHABET[buf[i] % ALPHABET_SIZE];
    }
    out[n] = 0;
    return 0;
}

void room_code_display(const char *code, char *out)
{
    size_t half = ROOM_CODE_LEN / 2, len = strnlen(code, ROOM_CODE_LEN);
    if (len != ROOM_CODE_LEN) {
        memcpy(out, code, len);
        out[len] = 0;
        return;
    }
    memcpy(out, code, half);
    out[half] = '-';
    memcpy(out + half + 1, code + half, ROOM_CODE_LEN - half);
    out[ROOM_CODE_LEN + 1] = 0;
}

int room_token_random(char *out)
{
    uint8_t raw[16];
    if (random_bytes(raw, sizeof raw)) return -1;
    static const char hex[] = "0123456789abcdef";
    size_t p = strlen(ROOM_TOKEN_PREFIX);
    memcpy(out, ROOM_TOKEN_PREFIX, p);
    for (size_t i = 0; i < sizeof raw; i++) {
        out[p++] = hex[raw[i] >> 4];
        out[p++] = hex[raw[i] & 15];
    }
    out[p] = 0;
    return 0;
}

bool room_token_shaped(const char *token)
{
    return strncmp(token, ROOM_TOKEN_PREFIX, strlen(ROOM_TOKEN_PREFIX)) == 0;
}

bool room_token_equal(const char *sent, const char *room_token)
{
    size_t len = strlen(room_token), sent_len = strlen(sent);
    if (!len) return false; /* a room without a token has no operators by token */
    unsigned diff = sent_len != len;
    for (size_t i = 0; i < len; i++) diff |= (unsigned)(uint8_t)(i < sent_len ? sent[i] : 0) ^ (uint8_t)room_token[i];
    return diff == 0;
}
