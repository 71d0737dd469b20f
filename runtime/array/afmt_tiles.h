/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: blocks that must tile a matrix (DAPHNE files of several
 * blocks): each inside the matrix, none overlapping, together covering it.
 *
 * The set lives on the validator's stack with a fixed capacity, so memory
 * does not grow with what a file claims; more blocks than that is a limit
 * error, not an allocation.  Overlap is checked pairwise (at most
 * AFMT_TILES_CAP^2 / 2 comparisons).
 */
#ifndef AFMT_TILES_H
#define AFMT_TILES_H

#include <stddef.h>
#include <stdint.h>

#include "afmt_array.h"
#include "../common/afmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AFMT_TILES_CAP 1024

typedef struct afmt_tile {
    uint64_t row, col, rows, cols;
} afmt_tile;

typedef struct afmt_tiles {
    uint64_t rows, cols; /* the matrix */
    uint64_t area;       /* cells covered so far (blocks never overlap) */
    int uncountable;     /* the area overflowed 64 bits */
    uint32_t n;
    afmt_tile t[AFMT_TILES_CAP];
} afmt_tiles;

enum { AFMT_TILE_OK = 0, AFMT_TILE_OUTSIDE = 1, AFMT_TILE_OVERLAP = 2, AFMT_TILE_TOO_MANY = 3 };

/* View a (rank 2, dims set) is the block at (row, col) of the matrix t
 * tiles: its tile_* members, and is_tile unless it is the whole matrix. */
AFMT_GEN_API void afmt_view_tile(afmt_array *a, uint64_t row, uint64_t col, const afmt_tiles *t);

AFMT_GEN_API void afmt_tiles_init(afmt_tiles *t, uint64_t rows, uint64_t cols);
/* Add a block; on AFMT_TILE_OVERLAP *other is the index of the block it
 * overlaps. */
int afmt_tiles_add(afmt_tiles *t, uint64_t row, uint64_t col, uint64_t rows, uint64_t cols,
                   uint32_t *other);
/* 1 when the blocks cover the whole matrix (matrices of 2^64 cells or more
 * are never complete: their coverage cannot be counted). */
AFMT_GEN_API int afmt_tiles_complete(const afmt_tiles *t);

/* Putting tiles back together (afmt_tiles_plain_size, afmt_tiles_assemble)
 * is public: see afmt.h. */

#ifdef __cplusplus
}
#endif
#endif
