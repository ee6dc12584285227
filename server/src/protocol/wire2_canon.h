/* wire2_canon: a detail view's item and the canonical order both sides of
 * protocol v2 sort into — ascending (ry, rx, h, f, py, px). Items equal in
 * all six are interchangeable; the encoder breaks such ties by agent id (the
 * decoder cannot see ids, and needs no tie-break: equal items are equal). */
#ifndef SWARMCAST_WIRE2_CANON_H
#define SWARMCAST_WIRE2_CANON_H

#include <stddef.h>
#include <stdint.h>

typedef struct wire2_item {
    uint32_t ry, rx; /* relative to the rect's (qx0, qy0) */
    uint16_t h;
    uint8_t f;
    uint32_t py, px; /* the previous position, for prediction */
    uint32_t id;     /* encoder: agent id; decoder: unused (0) */
} wire2_item_t;

/* Scratch the sort reuses between calls (start zeroed; free with wire2_sorter_free). */
typedef struct wire2_sorter {
    uint64_t *keys[2];
    uint32_t *idx[2];
    wire2_item_t *tmp;
    size_t cap;
} wire2_sorter_t;

int wire2_item_cmp(const wire2_item_t *a, const wire2_item_t *b);
/* Sorts items into canonical order (then by id). bx, by: bit lengths of the
 * largest rx and ry (wide coordinates fall back to a comparison sort, and so
 * do coordinates wider than bx or by: any input is sorted right).
 * Already sorted input costs one pass. 0, or WIRE2_E_NOMEM. */
int wire2_sort_items(wire2_item_t *items, size_t n, unsigned bx, unsigned by, wire2_sorter_t *s);
void wire2_sorter_free(wire2_sorter_t *s);

/* bitlength(v): 0 for 0. */
static inline unsigned wire2_bitlength(uint64_t v) { return v ? 64u - (unsigned)__builtin_clzll(v) : 0u; }

#endif
