/* grid: a uniform grid over the world for neighbour search. Each tick the
 * agents are binned by a stable counting sort; the resulting order lets the
 * world re-sort its arrays so that agents of one cell sit together in memory
 * and a 3x3 block of cells is a few contiguous runs. */
#ifndef SWARMCAST_GRID_H
#define SWARMCAST_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds the grid's memory whatever the world size and radii. */
#define GRID_MAX_CELLS (1u << 22)

typedef struct grid {
    float width, height;
    float inv_cell_w, inv_cell_h;
    int nx, ny;
    uint32_t *cell_start; /* nx*ny + 1 entries: agents of cell c are [start[c], start[c+1]) */
    uint32_t *cursor;     /* scratch for the counting sort, nx*ny entries */
    uint32_t *cell_of;    /* per agent, in the order given to grid_build */
    uint32_t *order;      /* order[k] = index (in the given order) of the k-th agent in cell order */
    size_t cells_cap, agents_cap;
    /* A build in parts (grid_count_part …): each part's count per cell, then
     * its cursor; parts × cells entries, NULL when that would be too many
     * (the build then runs whole). */
    uint32_t *part_counts;
    int parts;
    size_t part_counts_cap;
} grid_t;

/* The most entries part_counts may take (16 MB): past that a build runs whole. */
#define GRID_MAX_PART_COUNTS (1u << 22)

void grid_init(grid_t *g);
void grid_free(grid_t *g);
/* Sizes cells to at least min_cell on each side (fewer, larger cells if the
 * world is small or the count would pass GRID_MAX_CELLS). Allocates only
 * when the cell count grows. Returns 0 or -1 on allocation failure. */
int grid_configure(grid_t *g, float width, float height, float min_cell);
/* Makes room for n agents; allocates only when n grows past capacity. */
int grid_reserve(grid_t *g, size_t n);
/* Bins n agents (positions inside [0,width]x[0,height]; outside values are
 * clamped to the edge cells). No allocation. */
void grid_build(grid_t *g, size_t n, const float *x, const float *y);
/* grid_build without the order: cell_of and cell_start, and each cell's
 * cursor (g->cursor) at its start, for a caller that moves its agents into
 * cell order itself: agent i goes to cursor[cell_of[i]]++, i ascending. */
void grid_bin(grid_t *g, size_t n, const float *x, const float *y);

/* The same binning in `parts` parts that may run on different threads:
 * every part's grid_count_part (agents [n·part/parts, n·(part+1)/parts)),
 * then grid_sum_parts; then each part's agent i goes to
 * grid_part_cursor(part)[cell_of[i]]++. The places are grid_build's order,
 * entry for entry (part p's agents of a cell follow part p − 1's: the sort
 * stays stable). grid_set_parts says how many parts
 * (before grid_configure, which makes room for their counts: 0 or −1);
 * grid_in_parts whether a build may run in them now. */
int grid_set_parts(grid_t *g, int parts);
bool grid_in_parts(const grid_t *g);
void grid_count_part(grid_t *g, size_t n, const float *x, const float *y, int part);
void grid_sum_parts(grid_t *g);
/* Part `part`'s first agent of n (n at part == parts). */
size_t grid_part_begin(const grid_t *g, size_t n, int part);
/* Where part `part`'s next agent of each cell goes, after grid_sum_parts,
 * for a caller that moves the agents itself (agent i of the part to
 * cursor[cell_of[i]]++, i ascending). */
uint32_t *grid_part_cursor(grid_t *g, int part);

static inline int grid_cell_x(const grid_t *g, float x)
{
    int c = (int)(x * g->inv_cell_w);
    return c < 0 ? 0 : (c >= g->nx ? g->nx - 1 : c);
}

static inline int grid_cell_y(const grid_t *g, float y)
{
    int c = (int)(y * g->inv_cell_h);
    return c < 0 ? 0 : (c >= g->ny ? g->ny - 1 : c);
}

/* The distinct cells of the 3x3 block around (cx, cy), wrapping around the
 * edges when wrap is set (a small grid yields fewer than 9). Returns how
 * many were written to cells[9]. */
int grid_block(const grid_t *g, int cx, int cy, bool wrap, uint32_t cells[9]);

/* A run of consecutive agents (in cell order) that are neighbour candidates,
 * and the shift (a world width or height, or 0) that brings them next to
 * the cell when they lie across a wrapped edge. */
typedef struct grid_run {
    uint32_t begin, end;
    float shift_x, shift_y;
} grid_run_t;

#define GRID_MAX_RUNS 9

/* The 3x3 block around (cx, cy) as at most 6 runs: one per row, split in
 * two where the row wraps. When the grid is under 3 cells on a wrapped axis
 * one cell can be a neighbour from both sides; then the block is returned
 * cell by cell without shifts and *pair_wrap is set: the caller takes the
 * shortest displacement for each pair. */
int grid_runs(const grid_t *g, int cx, int cy, bool wrap, grid_run_t runs[GRID_MAX_RUNS], bool *pair_wrap);


/* Where a cell's own agents sit among its block's candidates: agents
 * [begin, end) at places at, at + 1, … */
typedef struct grid_own {
    uint32_t begin, end, at;
} grid_own_t;

/* A sample: up to two slices of each of the block's nine cells. */
#define GRID_MAX_SAMPLE_RUNS 18

/* An even sample of `want` of the candidates of the 3x3 block around
 * (cx, cy), for a block that holds more than want (a crowd too dense to
 * sense everyone): each cell of the block gives its share, within one of
 * proportional (the shares add up to want, none exceeds its cell), as a
 * contiguous slice whose start is drawn from seed and the cell (wrapping
 * round the cell's end: two runs). Shifts and pair-by-pair wrapping as in
 * grid_runs. runs has room for GRID_MAX_SAMPLE_RUNS, own for 2. Returns
 * the number of runs; own[0 … *n_own − 1] tell where the agents of cell
 * (cx, cy) itself are in the sample (those not in any piece were left
 * out). */
int grid_sample_block(const grid_t *g, int cx, int cy, bool wrap, uint32_t want, uint64_t seed, grid_run_t *runs,
                      grid_own_t *own, int *n_own);

#endif
