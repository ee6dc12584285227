#include "people/presence.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/json_out.h"
#include "protocol/utf8.h"

typedef struct member {
    uint32_t client_id; /* 0: the slot is free */
    char name[PRESENCE_NAME_BYTES];
    uint32_t color;
    bool operator;
    bool named; /* has said hello with a name (else the generated one) */
    bool has_target, has_cursor;
    float tx, ty, cx, cy;
} member_t;

typedef struct sentence {
    uint64_t seq;
    double t;
    uint32_t client_id;
    char name[PRESENCE_NAME_BYTES];
    char text[PRESENCE_SENTENCE_BYTES];
} sentence_t;

struct presence {
    member_t *members;
    size_t slots;
    sentence_t feed[PRESENCE_ACTIVITY]; /* ring: the oldest at head once full */
    size_t feed_head, feed_len;
    uint64_t next_seq;
    bool list_dirty, feed_dirty, cursors_dirty;
};

presence_t *presence_new(size_t slots)
{
    presence_t *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->members = calloc(slots ? slots : 1, sizeof *p->members);
    if (!p->members) {
        free(p);
        return NULL;
    }
    p->slots = slots;
    p->next_seq = 1;
    return p;
}

void presence_free(presence_t *p)
{
    if (!p) return;
    free(p->members);
    free(p);
}

/* The member in slot when it still holds this client, else NULL. */
static member_t *member(presence_t *p, size_t slot, uint32_t client_id)
{
    if (slot >= p->slots || client_id == 0 || p->members[slot].client_id != client_id) return NULL;
    return &p->members[slot];
}

static const member_t *member_by_id(const presence_t *p, uint32_t client_id)
{
    for (size_t s = 0; s < p->slots; s++)
        if (client_id && p->members[s].client_id == client_id) return &p->members[s];
    return NULL;
}

/* A colour per client id: hues a golden angle apart (neighbours in id
 * differ most), saturated and light enough to read on the dark canvas. */
static uint32_t default_color(uint32_t client_id)
{
    double h = (double)(client_id * 137.508f) / 60.0;
    h -= 6.0 * (double)(long)(h / 6.0);
    const double s = 0.65, l = 0.60, c = (1.0 - (2 * l - 1 < 0 ? 1 - 2 * l : 2 * l - 1)) * s;
    double hm = h - 2.0 * (double)(long)(h / 2.0), x = c * (1.0 - (hm - 1 < 0 ? 1 - hm : hm - 1)), m = l - c / 2;
    double r = 0, g = 0, b = 0;
    switch ((int)h) {
    case 0: r = c, g = x; break;
    case 1: r = x, g = c; break;
    case 2: g = c, b = x; break;
    case 3: g = x, b = c; break;
    case 4: r = x, b = c; break;
    default: r = c, b = x; break;
    }
    uint32_t R = (uint32_t)((r + m) * 255 + 0.5), G = (uint32_t)((g + m) * 255 + 0.5), B = (uint32_t)((b + m) * 255 + 0.5);
    return R << 16 | G << 8 | B;
}

static void add_sentence(presence_t *p, uint32_t client_id, const char *name, const char *what, double now_s)
{
    sentence_t *s;
    if (p->feed_len < PRESENCE_ACTIVITY) {
        s = &p->feed[(p->feed_head + p->feed_len++) % PRESENCE_ACTIVITY];
    } else { /* the oldest goes */
        s = &p->feed[p->feed_head];
        p->feed_head = (p->feed_head + 1) % PRESENCE_ACTIVITY;
    }
    s->seq = p->next_seq++;
    s->t = now_s;
    s->client_id = client_id;
    text_copy(s->name, sizeof s->name, name, strlen(name));
    /* The name and the sentence: "Ada set separation weight to 2.5". */
    text_t t;
    text_init(&t, s->text, sizeof s->text);
    text_addf(&t, "%s %s", name, what);
    p->feed_dirty = true;
}

/* Rewrites "<old> joined" of this client, if the feed still holds it. */
static bool rename_join(presence_t *p, uint32_t client_id, const char *old, const char *name)
{
    char joined[PRESENCE_SENTENCE_BYTES];
    text_t t;
    text_init(&t, joined, sizeof joined);
    text_addf(&t, "%s joined", old);
    for (size_t k = 0; k < p->feed_len; k++) {
        sentence_t *s = &p->feed[(p->feed_head + k) % PRESENCE_ACTIVITY];
        if (s->client_id != client_id || strcmp(s->text, joined) != 0) continue;
        text_copy(s->name, sizeof s->name, name, strlen(name));
        text_init(&t, s->text, sizeof s->text);
        text_addf(&t, "%s joined", name);
        return true;
    }
    return false;
}

void presence_guest_name(uint32_t client_id, char out[PRESENCE_NAME_BYTES])
{
    snprintf(out, PRESENCE_NAME_BYTES, "Guest %u", (unsigned)client_id);
}

void presence_join(presence_t *p, size_t slot, uint32_t client_id, bool operator, double now_s)
{
    if (slot >= p->slots || client_id == 0) return;
    member_t *m = &p->members[slot];
    *m = (member_t){.client_id = client_id, .color = default_color(client_id), .operator = operator};
    _Static_assert(sizeof m->name == PRESENCE_NAME_BYTES, "a guest name fills a member's name");
    presence_guest_name(client_id, m->name);
    p->list_dirty = true;
    add_sentence(p, client_id, m->name, "joined", now_s);
}

void presence_leave(presence_t *p, size_t slot, uint32_t client_id, double now_s)
{
    member_t *m = member(p, slot, client_id);
    if (!m) return;
    add_sentence(p, client_id, m->name, "left", now_s);
    if (m->has_cursor) p->cursors_dirty = true;
    *m = (member_t){0};
    p->list_dirty = true;
}

void presence_hello(presence_t *p, size_t slot, uint32_t client_id, const presence_msg_t *msg, double now_s)
{
    member_t *m = member(p, slot, client_id);
    if (!m) return;
    if (msg->has_name && strcmp(m->name, msg->name) != 0) {
        /* A page says its name as it connects: its join is told under
         * that name, not as "Guest 7 joined", "Guest 7 is now Ada". */
        if (!m->named && rename_join(p, client_id, m->name, msg->name)) {
            p->feed_dirty = true;
        } else {
            char what[PRESENCE_WHAT_BYTES];
            text_t t;
            text_init(&t, what, sizeof what);
            text_addf(&t, "is now %s", msg->name);
            add_sentence(p, client_id, m->name, what, now_s);
        }
        text_copy(m->name, sizeof m->name, msg->name, strlen(msg->name));
        p->list_dirty = true;
    }
    m->named |= msg->has_name;
    if (msg->has_color && m->color != msg->color) {
        m->color = msg->color;
        p->list_dirty = true;
    }
}

void presence_set_role(presence_t *p, size_t slot, uint32_t client_id, bool operator)
{
    member_t *m = member(p, slot, client_id);
    if (!m || m->operator == operator) return;
    m->operator = operator;
    p->list_dirty = true;
}

void presence_set_target(presence_t *p, size_t slot, uint32_t client_id, bool has, float x, float y)
{
    member_t *m = member(p, slot, client_id);
    if (!m || (m->has_target == has && (!has || (m->tx == x && m->ty == y)))) return;
    m->has_target = has, m->tx = x, m->ty = y;
    p->list_dirty = true;
}

void presence_cursor(presence_t *p, size_t slot, uint32_t client_id, float x, float y)
{
    member_t *m = member(p, slot, client_id);
    if (!m || (m->has_cursor && m->cx == x && m->cy == y)) return;
    m->has_cursor = true, m->cx = x, m->cy = y;
    p->cursors_dirty = true;
}

void presence_activity(presence_t *p, uint32_t client_id, const char *what, double now_s)
{
    const member_t *m = member_by_id(p, client_id);
    add_sentence(p, client_id, m ? m->name : PRESENCE_NOBODY, what, now_s);
}

static char *finish(jbuf_t *b)
{
    if (b->failed) {
        jb_free(b);
        return NULL;
    }
    return b->buf;
}

char *presence_hello_ack(const presence_t *p, size_t slot, uint32_t client_id, int64_t request_id, uint64_t tick)
{
    if (slot >= p->slots || client_id == 0 || p->members[slot].client_id != client_id) return NULL;
    const member_t *m = &p->members[slot];
    jbuf_t b;
    jb_init_growing(&b);
    jb_raw(&b, "{\"type\":\"ack\",\"id\":");
    if (request_id >= 0)
        jb_printf(&b, "%lld", (long long)request_id);
    else
        jb_raw(&b, "null");
    jb_printf(&b, ",\"cmd\":\"hello\",\"tick\":%llu,\"name\":", (unsigned long long)tick);
    jb_string(&b, m->name);
    jb_printf(&b, ",\"color\":\"#%06x\"}", (unsigned)m->color);
    return finish(&b);
}

char *presence_take_list(presence_t *p)
{
    if (!p->list_dirty) return NULL;
    p->list_dirty = false;
    jbuf_t b;
    jb_init_growing(&b);
    jb_raw(&b, "{\"type\":\"presence\",\"clients\":[");
    bool first = true;
    size_t count = 0;
    for (size_t s = 0; s < p->slots; s++) {
        const member_t *m = &p->members[s];
        if (!m->client_id || count++ >= PRESENCE_LIST_MAX) continue;
        jb_printf(&b, "%s{\"id\":%u,\"name\":", first ? "" : ",", (unsigned)m->client_id);
        jb_string(&b, m->name);
        jb_printf(&b, ",\"color\":\"#%06x\",\"role\":\"%s\",\"target\":", (unsigned)m->color,
                  m->operator ? "operator" : "visitor");
        if (m->has_target)
            jb_printf(&b, "[%.2f,%.2f]}", (double)m->tx, (double)m->ty);
        else
            jb_raw(&b, "null}");
        first = false;
    }
    jb_printf(&b, "],\"count\":%zu}", count);
    return finish(&b);
}

char *presence_take_activity(presence_t *p)
{
    if (!p->feed_dirty) return NULL;
    p->feed_dirty = false;
    jbuf_t b;
    jb_init_growing(&b);
    jb_raw(&b, "{\"type\":\"activity\",\"items\":[");
    for (size_t k = 0; k < p->feed_len; k++) {
        const sentence_t *s = &p->feed[(p->feed_head + k) % PRESENCE_ACTIVITY];
        jb_printf(&b, "%s{\"seq\":%llu,\"t\":%.3f,\"id\":%u,\"name\":", k ? "," : "", (unsigned long long)s->seq, s->t,
                  (unsigned)s->client_id);
        jb_string(&b, s->name);
        jb_raw(&b, ",\"text\":");
        jb_string(&b, s->text);
        jb_raw(&b, "}");
    }
    jb_raw(&b, "]}");
    return finish(&b);
}

char *presence_take_cursors(presence_t *p)
{
    if (!p->cursors_dirty) return NULL;
    p->cursors_dirty = false;
    jbuf_t b;
    jb_init_growing(&b);
    jb_raw(&b, "{\"type\":\"cursors\",\"cursors\":[");
    bool first = true;
    size_t listed = 0;
    for (size_t s = 0; s < p->slots; s++) {
        const member_t *m = &p->members[s];
        if (!m->client_id || !m->has_cursor || listed++ >= PRESENCE_LIST_MAX) continue;
        jb_printf(&b, "%s{\"id\":%u,\"x\":%.2f,\"y\":%.2f}", first ? "" : ",", (unsigned)m->client_id, (double)m->cx,
                  (double)m->cy);
        first = false;
    }
    jb_raw(&b, "]}");
    return finish(&b);
}
