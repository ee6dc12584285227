#include "experiment/design.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/utf8.h"
#include "sim/params.h"
#include "sim/prng.h"

/* More points than any sweep on a cluster would run: a typo's guard. */
#define MAX_POINTS 10000000u

static int alloc_points(design_t *d, size_t n_points, size_t n_factors, char *msg, size_t msg_len)
{
    d->n_points = n_points;
    d->n_factors = n_factors;
    if (n_points > MAX_POINTS) return text_fail(msg, msg_len, "design: %zu points, more than %u", n_points, MAX_POINTS);
    size_t cells = n_points * (n_factors ? n_factors : 1);
    if (!(d->values = malloc(cells * sizeof *d->values))) return text_fail(msg, msg_len, "out of memory");
    for (size_t i = 0; i < cells; i++) d->values[i] = NAN;
    return 0;
}

static int factorial(const experiment_t *e, design_t *d, char *msg, size_t msg_len)
{
    size_t n = 1;
    for (size_t j = 0; j < e->n_factors; j++) {
        if ((int)j == e->swept) continue;
        size_t k = e->factors[j].n_values;
        if (n > MAX_POINTS / k)
            return text_fail(msg, msg_len, "design: the factorial of these factors has more than %u points", MAX_POINTS);
        n *= k;
    }
    if (alloc_points(d, n, e->n_factors, msg, msg_len)) return -1;
    for (size_t p = 0; p < n; p++) {
        /* p in mixed radix, the last factor the fastest digit */
        size_t rest = p;
        for (size_t j = e->n_factors; j-- > 0;) {
            if ((int)j == e->swept) continue;
            const factor_t *f = &e->factors[j];
            d->values[p * e->n_factors + j] = f->values[rest % f->n_values];
            rest /= f->n_values;
        }
    }
    return 0;
}

static int zip(const experiment_t *e, design_t *d, char *msg, size_t msg_len)
{
    size_t n = 1;
    for (size_t j = 0; j < e->n_factors; j++)
        if ((int)j != e->swept) n = e->factors[j].n_values; /* all equal: experiment_file checked */
    if (alloc_points(d, n, e->n_factors, msg, msg_len)) return -1;
    for (size_t p = 0; p < n; p++)
        for (size_t j = 0; j < e->n_factors; j++)
            if ((int)j != e->swept) d->values[p * e->n_factors + j] = e->factors[j].values[p];
    return 0;
}

/* Uniform in [0, 1) with 53 random bits. */
static double unit53(prng_t *rng)
{
    uint64_t hi = prng_u32(rng) >> 5, lo = prng_u32(rng) >> 6;
    return (double)(hi * 67108864u + lo) / 9007199254740992.0;
}

/* A factor's value at x in [0, 1) of its range: whole-number parameters take
 * each of lo..hi with equal chance, real ones the point itself. */
static double at(const factor_t *f, double x)
{
    bool whole = f->param == EXPERIMENT_FACTOR_AGENTS || params_desc((size_t)f->param)->type != PARAM_FLOAT;
    if (!whole) return f->lo + (f->hi - f->lo) * x;
    double v = floor(f->lo + (floor(f->hi) - ceil(f->lo) + 1) * x);
    return fmin(fmax(v, ceil(f->lo)), floor(f->hi));
}

static int latin_hypercube(const experiment_t *e, design_t *d, char *msg, size_t msg_len)
{
    size_t n = e->lhs_points;
    if (alloc_points(d, n, e->n_factors, msg, msg_len)) return -1;
    size_t *stratum = malloc(n * sizeof *stratum);
    if (!stratum) return text_fail(msg, msg_len, "out of memory");
    for (size_t j = 0; j < e->n_factors; j++) {
        /* One stream per factor: adding a factor leaves the others' columns as they were. */
        prng_t rng;
        prng_seed(&rng, e->master_seed, 0x4c48530000ull + j);
        for (size_t p = 0; p < n; p++) stratum[p] = p;
        for (size_t p = n; p > 1; p--) { /* Fisher-Yates */
            size_t k = (size_t)(unit53(&rng) * (double)p);
            size_t t = stratum[p - 1];
            stratum[p - 1] = stratum[k];
            stratum[k] = t;
        }
        for (size_t p = 0; p < n; p++)
            d->values[p * e->n_factors + j] = at(&e->factors[j], ((double)stratum[p] + unit53(&rng)) / (double)n);
    }
    free(stratum);
    return 0;
}

int design_expand(const experiment_t *e, design_t *d, char *msg, size_t msg_len)
{
    memset(d, 0, sizeof *d);
    int rc;
    switch (e->design) {
    case DESIGN_FACTORIAL: rc = factorial(e, d, msg, msg_len); break;
    case DESIGN_ZIP: rc = zip(e, d, msg, msg_len); break;
    case DESIGN_LHS: rc = latin_hypercube(e, d, msg, msg_len); break;
    case DESIGN_TABLE: rc = design_read_table(e, d, msg, msg_len); break;
    default: rc = text_fail(msg, msg_len, "design: unknown kind");
    }
    if (rc) design_free(d);
    return rc;
}

void design_free(design_t *d)
{
    free(d->values);
    memset(d, 0, sizeof *d);
}
