#include "protocol/wire2_canon.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/wire2.h"

#define RADIX_BITS 11u
#define RADIX_BUCKETS (1u << RADIX_BITS)

static int cmp_u32(uint32_t a, uint32_t b) { return (a > b) - (a < b); }

int wire2_item_cmp(const wire2_item_t *a, const wire2_item_t *b)
{
    int c;
    if ((c = cmp_u32(a->ry, b->ry))) return c;
    if ((c = cmp_u32(a->rx, b->rx))) return c;
    if ((c = cmp_u32(a->h, b->h))) return c;
    if ((c = cmp_u32(a->f, b->f))) return c;
    if ((c = cmp_u32(a->py, b->py))) return c;
    if ((c = cmp_u32(a->px, b->px))) return c;
    return cmp_u32(a->id, b->id);
}

static int qsort_cmp(const void *a, const void *b) { return wire2_item_cmp(a, b); }

void wire2_sorter_free(wire2_sorter_t *s)
{
    for (int i = 0; i < 2; i++) {
        free(s->keys[i]);
        free(s->idx[i]);
    }
    free(s->tmp);
    *s = (wire2_sorter_t){0};
}

static int sorter_reserve(wire2_sorter_t *s, size_t n)
{
    if (n <= s->cap) return 0;
    size_t cap = n + n / 4 + 64;
    for (int i = 0; i < 2; i++) {
        uint64_t *k = realloc(s->keys[i], cap * sizeof *k);
        if (!k) return WIRE2_E_NOMEM;
        s->keys[i] = k;
        uint32_t *x = realloc(s->idx[i], cap * sizeof *x);
        if (!x) return WIRE2_E_NOMEM;
        s->idx[i] = x;
    }
    wire2_item_t *t = realloc(s->tmp, cap * sizeof *t);
    if (!t) return WIRE2_E_NOMEM;
    s->tmp = t;
    s->cap = cap;
    return 0;
}

static bool is_sorted(const wire2_item_t *items, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (wire2_item_cmp(&items[i - 1], &items[i]) > 0) return false;
    return true;
}

/* Insertion sort of a short run (items at the same position). */
static void insertion_sort(wire2_item_t *items, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        wire2_item_t v = items[i];
        size_t j = i;
        while (j > 0 && wire2_item_cmp(&items[j - 1], &v) > 0) {
            items[j] = items[j - 1];
            j--;
        }
        items[j] = v;
    }
}

#define RADIX_MAX_DIGITS ((64u + RADIX_BITS - 1u) / RADIX_BITS)

/* The radix sort when key and item index fit one 64-bit word (key above
 * the index): one array moves instead of two, and one pass counts every
 * digit. Stable like the other (the index breaks no tie differently: equal
 * keys keep their input order either way). In: k[i] the keys, in input
 * order. Out: the array (k or k2) that holds the keys in sorted order, with
 * ix[i] the index of the item at sorted position i. */
static uint64_t *radix_sort_packed(uint64_t *k, uint64_t *k2, uint32_t *ix, size_t n, unsigned key_bits,
                                   unsigned idx_bits, uint64_t varying)
{
    uint32_t hist[RADIX_MAX_DIGITS][RADIX_BUCKETS]; /* 48 KiB of stack */
    memset(hist, 0, sizeof hist);
    unsigned digits = (key_bits + RADIX_BITS - 1u) / RADIX_BITS;
    for (size_t i = 0; i < n; i++) {
        uint64_t key = k[i];
        for (unsigned d = 0; d < digits; d++) hist[d][(key >> (d * RADIX_BITS)) & (RADIX_BUCKETS - 1u)]++;
        k[i] = key << idx_bits | i;
    }
    for (unsigned d = 0; d < digits; d++) {
        unsigned shift = d * RADIX_BITS;
        if (!((varying >> shift) & (RADIX_BUCKETS - 1u))) continue;
        uint32_t sum = 0;
        for (unsigned b = 0; b < RADIX_BUCKETS; b++) {
            uint32_t c = hist[d][b];
            hist[d][b] = sum;
            sum += c;
        }
        shift += idx_bits;
        for (size_t i = 0; i < n; i++) k2[hist[d][(k[i] >> shift) & (RADIX_BUCKETS - 1u)]++] = k[i];
        uint64_t *t = k;
        k = k2;
        k2 = t;
    }
    uint64_t mask = ((uint64_t)1 << idx_bits) - 1u; /* idx_bits < 64: n ≤ 2^32 */
    for (size_t i = 0; i < n; i++) {
        ix[i] = (uint32_t)(k[i] & mask);
        k[i] >>= idx_bits;
    }
    return k;
}

int wire2_sort_items(wire2_item_t *items, size_t n, unsigned bx, unsigned by, wire2_sorter_t *s)
{
    if (n < 2 || is_sorted(items, n)) return 0;
    /* The radix key is the position (ry, rx) alone: fewer passes than the
     * whole canonical key, and items that share a quantum are rare. A
     * coordinate is 32 bits: wider bit lengths give the same key. */
    if (bx > 32u) bx = 32u;
    if (by > 32u) by = 32u;
    unsigned key_bits = by + bx;
    if (key_bits > 64u || n < 64) {
        qsort(items, n, sizeof *items, qsort_cmp);
        return 0;
    }
    if (sorter_reserve(s, n) < 0) return WIRE2_E_NOMEM;

    /* LSD radix sort of the key, carrying the item index. */
    uint64_t *k = s->keys[0], *k2 = s->keys[1];
    uint32_t *ix = s->idx[0], *ix2 = s->idx[1];
    uint64_t any = 0, all = ~(uint64_t)0, any_x = 0, any_y = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t key = ((uint64_t)items[i].ry << bx) | items[i].rx;
        k[i] = key;
        ix[i] = (uint32_t)i;
        any |= key;
        all &= key;
        any_x |= items[i].rx;
        any_y |= items[i].ry;
    }
    /* A coordinate wider than bx or by (the callers' rects rule it out): rx
     * would run into ry's bits and the keys misorder the items, ry's top
     * bits would leave the packed sort's word, which then counts and places
     * by different digits and loses items; the comparison sort is right for
     * any input. */
    if ((any_x >> bx) | (any_y >> by)) {
        qsort(items, n, sizeof *items, qsort_cmp);
        return 0;
    }
    uint64_t varying = any ^ all; /* digits where every key agrees need no pass */
    unsigned idx_bits = wire2_bitlength(n - 1);
    if (key_bits + idx_bits <= 64) {
        k = radix_sort_packed(k, k2, ix, n, key_bits, idx_bits, varying);
    } else {
        static const size_t zero_counts[RADIX_BUCKETS];
        size_t counts[RADIX_BUCKETS];
        for (unsigned shift = 0; shift < key_bits; shift += RADIX_BITS) {
            if (!((varying >> shift) & (RADIX_BUCKETS - 1u))) continue;
            memcpy(counts, zero_counts, sizeof counts);
            for (size_t i = 0; i < n; i++) counts[(k[i] >> shift) & (RADIX_BUCKETS - 1u)]++;
            size_t sum = 0;
            for (unsigned b = 0; b < RADIX_BUCKETS; b++) {
                size_t c = counts[b];
                counts[b] = sum;
                sum += c;
            }
            for (size_t i = 0; i < n; i++) {
                size_t dst = counts[(k[i] >> shift) & (RADIX_BUCKETS - 1u)]++;
                k2[dst] = k[i];
                ix2[dst] = ix[i];
            }
            uint64_t *tk = k;
            k = k2;
            k2 = tk;
            uint32_t *ti = ix;
            ix = ix2;
            ix2 = ti;
        }
    }
    for (size_t i = 0; i < n; i++) s->tmp[i] = items[ix[i]];
    /* Items at the same position: by the rest of the canonical key. Runs are
     * short but for pathological input (a forged frame with every item at
     * one point), which gets a sort that stays O(n log n). */
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && k[j] == k[i]) j++;
        if (j - i > 32)
            qsort(s->tmp + i, j - i, sizeof *s->tmp, qsort_cmp);
        else if (j - i > 1)
            insertion_sort(s->tmp + i, j - i);
        i = j;
    }
    memcpy(items, s->tmp, n * sizeof *items);
    return 0;
}
