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
#include "afmt_error.h"

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

void afmt_tiles_init(afmt_tiles *t, uint64_t rows, uint64_t cols);
/* Add a block; on AFMT_TILE_OVERLAP *other is the index of the block it
 * overlaps. */
int afmt_tiles_add(afmt_tiles *t, uint64_t row, uint64_t col, uint64_t rows, uint64_t cols,
                   uint32_t *other);
/* 1 when the blocks cover the whole matrix (matrices of 2^64 cells or more
 * are never complete: their coverage cannot be counted). */
int afmt_tiles_complete(const afmt_tiles *t);

/* ---- Putting tiles back together (the views a validator hands over with
 * is_tile set: DAPHNE blocks) -------------------------------------------- */

/* Bytes the whole matrix of tiles[0..n) takes as a plain array
 * (tile_rows * tile_cols * element size) into *out.  Every view must be a
 * tile (is_tile, rank 2) of one matrix: the same tile_rows, tile_cols,
 * dtype and element size; otherwise AFMT_E_USAGE.  AFMT_E_OVERFLOW when
 * the size does not fit in 64 bits.  Returns 0, or -1 with *err filled.
 * Thread-safe; allocates nothing. */
int afmt_tiles_plain_size(const afmt_array *tiles, size_t n, uint64_t *out, afmt_error *err);

/* Decode the tiles tiles[0..n) into their places in dst, the whole matrix
 * as a plain, native array in `order` (dst_size must be at least
 * afmt_tiles_plain_size), and make *whole a plain view of it over dst
 * (dtype, dims {tile_rows, tile_cols}, the name and index of tiles[0]).
 * The tiles must lie inside the matrix, not overlap and together cover
 * every cell (checked, as afmt_tiles_add does; AFMT_E_USAGE otherwise, the
 * message naming the tile and the cell); at most AFMT_TILES_CAP non-empty
 * tiles (AFMT_E_LIMIT).  A tile that does not decode fails as
 * afmt_array_to_plain does.  Returns 0, or -1 with *err filled; dst is
 * then partly written.
 * Allocation: one temporary buffer of the largest tile's plain size,
 * freed before returning (AFMT_E_NOMEM when it cannot be had), and about
 * 32 KiB of stack.  The views and dst are only read / written during the
 * call; *whole points into dst and lives as long as dst.  Thread-safe. */
int afmt_tiles_assemble(const afmt_array *tiles, size_t n, afmt_order order, uint8_t *dst,
                        uint64_t dst_size, afmt_array *whole, afmt_error *err);

#endif
