#include "stream/capture.h"

#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static int grow(void **p, size_t count, size_t size)
{
    void *q = realloc(*p, count * size);
    if (!q) return -1;
    *p = q;
    return 0;
}

/* From this many bytes an array's copy bypasses the cache (a float per
 * agent: 65,536 agents, where the encoder's copier takes over); a smaller
 * one stays there for the encoder to read. */
#define STREAM_FROM (256u * 1024u)

/* memcpy with stores that bypass the cache, where there are such: a
 * million agents' 21 MB would otherwise evict the step's working set (and
 * read every destination line before writing it), and the encoder reads
 * the copy later from another core anyway. At a million: 2.1 -> 1.4 ms. */
static void copy_streaming(void *restrict dst, const void *restrict src, size_t bytes)
{
#if defined(__SSE2__)
    if (bytes < STREAM_FROM) {
        memcpy(dst, src, bytes);
        return;
    }
    uint8_t *d = dst;
    const uint8_t *s = src;
    size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    if (head > bytes) head = bytes;
    memcpy(d, s, head);
    d += head, s += head, bytes -= head;
    for (; bytes >= 64; bytes -= 64, d += 64, s += 64) {
        const __m128i a = _mm_loadu_si128((const __m128i *)s), b = _mm_loadu_si128((const __m128i *)(s + 16)),
                      e = _mm_loadu_si128((const __m128i *)(s + 32)), f = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, a);
        _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), e);
        _mm_stream_si128((__m128i *)(d + 48), f);
    }
    memcpy(d, s, bytes);
    _mm_sfence(); /* the streamed stores are seen before whatever follows */
#else
    memcpy(dst, src, bytes);
#endif
}

int capture_world(capture_t *c, const world_t *w)
{
    if (w->n > c->cap) {
        size_t cap = w->n + w->n / 4 + 64;
        if (grow((void **)&c->x, cap, sizeof *c->x) || grow((void **)&c->y, cap, sizeof *c->y) ||
            grow((void **)&c->vx, cap, sizeof *c->vx) || grow((void **)&c->vy, cap, sizeof *c->vy) ||
            grow((void **)&c->id, cap, sizeof *c->id) || grow((void **)&c->flags, cap, sizeof *c->flags)) {
            c->n = 0;
            return -1;
        }
        c->cap = cap;
    }
    if (w->n_targets > c->targets_cap) {
        if (grow((void **)&c->targets, w->n_targets, sizeof *c->targets)) {
            c->n = 0;
            return -1;
        }
        c->targets_cap = w->n_targets;
    }
    c->tick = (uint32_t)w->tick;
    c->paused = w->paused;
    c->width = w->width;
    c->height = w->height;
    c->n = w->n;
    /* A world that has never held an agent (--agents 0, a room copied from
     * an emptied one) has no arrays yet, and neither has the capture:
     * memcpy from or to NULL is undefined even for 0 bytes (the sanitizer
     * build stopped at its first snapshot). */
    if (w->n) {
        copy_streaming(c->x, w->cur.x, w->n * sizeof *c->x);
        copy_streaming(c->y, w->cur.y, w->n * sizeof *c->y);
        copy_streaming(c->vx, w->cur.vx, w->n * sizeof *c->vx);
        copy_streaming(c->vy, w->cur.vy, w->n * sizeof *c->vy);
        copy_streaming(c->id, w->cur.id, w->n * sizeof *c->id);
        copy_streaming(c->flags, w->cur.flags, w->n * sizeof *c->flags);
    }
    c->n_obstacles = w->n_obstacles;
    memcpy(c->obstacles, w->obstacles, w->n_obstacles * sizeof *c->obstacles);
    c->n_targets = w->n_targets;
    if (w->n_targets) memcpy(c->targets, w->targets, w->n_targets * sizeof *c->targets);
    c->n_predators = w->n_predators;
    memcpy(c->predators, w->predators, w->n_predators * sizeof *c->predators);
    return 0;
}

void capture_view(const capture_t *c, snap_view_t *v)
{
    *v = (snap_view_t){
        .tick = c->tick,
        .paused = c->paused,
        .width = c->width,
        .height = c->height,
        .n = c->n,
        .x = c->x,
        .y = c->y,
        .vx = c->vx,
        .vy = c->vy,
        .id = c->id,
        .flags = c->flags,
        .obstacles = c->obstacles,
        .n_obstacles = c->n_obstacles,
        .targets = c->targets,
        .n_targets = c->n_targets,
        .predators = c->predators,
        .n_predators = c->n_predators,
    };
}

/* Only what the wire shows counts: obstacles as {id, x, y, r}, targets as
 * {client_id, x, y} (a moving obstacle's velocity or a target's age do not). */
bool capture_scene_differs(const capture_t *a, const capture_t *b)
{
    if (a->width != b->width || a->height != b->height || a->n_obstacles != b->n_obstacles ||
        a->n_targets != b->n_targets)
        return true;
    for (size_t i = 0; i < a->n_obstacles; i++) {
        const obstacle_t *p = &a->obstacles[i], *q = &b->obstacles[i];
        if (p->id != q->id || memcmp(&p->x, &q->x, sizeof p->x) || memcmp(&p->y, &q->y, sizeof p->y) ||
            memcmp(&p->r, &q->r, sizeof p->r))
            return true;
    }
    for (size_t i = 0; i < a->n_targets; i++) {
        const target_t *p = &a->targets[i], *q = &b->targets[i];
        if (p->client_id != q->client_id || memcmp(&p->x, &q->x, sizeof p->x) || memcmp(&p->y, &q->y, sizeof p->y))
            return true;
    }
    return false;
}

int capture_copy_scene(capture_t *dst, const capture_t *src)
{
    if (src->n_targets > dst->targets_cap) {
        if (grow((void **)&dst->targets, src->n_targets, sizeof *dst->targets)) return -1;
        dst->targets_cap = src->n_targets;
    }
    dst->width = src->width;
    dst->height = src->height;
    dst->n_obstacles = src->n_obstacles;
    memcpy(dst->obstacles, src->obstacles, src->n_obstacles * sizeof *dst->obstacles);
    dst->n_targets = src->n_targets;
    if (src->n_targets) memcpy(dst->targets, src->targets, src->n_targets * sizeof *dst->targets);
    return 0;
}

void capture_free(capture_t *c)
{
    free(c->x);
    free(c->y);
    free(c->vx);
    free(c->vy);
    free(c->id);
    free(c->flags);
    free(c->targets);
    memset(c, 0, sizeof *c);
}
