/* afmt runtime: blocks that must tile a matrix, and putting them back
 * together into it. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../common/afmt_bytes.h"
#include "../common/afmt_dtype.h"
#include "afmt_tiles.h"

void afmt_tiles_init(afmt_tiles *t, uint64_t rows, uint64_t cols)
{
    t->rows = rows;
    t->cols = cols;
    t->area = 0;
    t->uncountable = 0;
    t->n = 0;
}

int afmt_tiles_add(afmt_tiles *t, uint64_t row, uint64_t col, uint64_t rows, uint64_t cols,
                   uint32_t *other)
{
    uint64_t end_r, end_c, area;
    uint32_t i;
    if (afmt_checked_add_u64(row, rows, &end_r) || afmt_checked_add_u64(col, cols, &end_c) ||
        end_r > t->rows || end_c > t->cols)
        return AFMT_TILE_OUTSIDE;
    if (rows == 0 || cols == 0)
        return AFMT_TILE_OK; /* covers nothing, overlaps nothing */
    for (i = 0; i < t->n; i++) {
        const afmt_tile *o = &t->t[i];
        if (row < o->row + o->rows && o->row < end_r && col < o->col + o->cols && o->col < end_c) {
            *other = i;
            return AFMT_TILE_OVERLAP;
        }
    }
    if (t->n >= AFMT_TILES_CAP)
        return AFMT_TILE_TOO_MANY;
    t->t[t->n].row = row;
    t->t[t->n].col = col;
    t->t[t->n].rows = rows;
    t->t[t->n].cols = cols;
    t->n++;
    /* a matrix of more than 2^64 cells (possible with empty blocks, which
     * store no bytes) cannot be counted: remember that, do not wrap */
    if (afmt_checked_mul_u64(rows, cols, &area) || afmt_checked_add_u64(t->area, area, &t->area))
        t->uncountable = 1;
    return AFMT_TILE_OK;
}

int afmt_tiles_complete(const afmt_tiles *t)
{
    uint64_t total;
    if (t->uncountable || afmt_checked_mul_u64(t->rows, t->cols, &total))
        return 0;
    return t->area == total;
}

/* ---------------------------------------------------------------- assembly */

static uint64_t tile_elsize(const afmt_array *a)
{
    return a->dtype == AFMT_OPAQUE ? a->elsize : afmt_dtype_get(a->dtype)->size;
}

int afmt_tiles_plain_size(const afmt_array *tiles, size_t n, uint64_t *out, afmt_error *err)
{
    const afmt_array *t0 = &tiles[0];
    uint64_t cells, es;
    size_t i;

    *out = 0;
    if (n == 0 || !tiles)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, 0, "no tiles");
    es = tile_elsize(t0);
    for (i = 0; i < n; i++) {
        const afmt_array *t = &tiles[i];
        if (!t->is_tile || t->rank != 2)
            return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, t->offset,
                             "array %zu is not a tile (is_tile %d, rank %u)", i, t->is_tile,
                             (unsigned)t->rank);
        if (t->tile_rows != t0->tile_rows || t->tile_cols != t0->tile_cols ||
            t->dtype != t0->dtype || tile_elsize(t) != es)
            return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, t->offset,
                             "tile %zu belongs to another matrix (%" PRIu64 " x %" PRIu64
                             " %s) than tile 0 (%" PRIu64 " x %" PRIu64 " %s)",
                             i, t->tile_rows, t->tile_cols, afmt_dtype_name(t->dtype),
                             t0->tile_rows, t0->tile_cols, afmt_dtype_name(t0->dtype));
    }
    if (afmt_checked_mul_u64(t0->tile_rows, t0->tile_cols, &cells) || afmt_checked_mul_u64(cells, es, out))
        return afmt_fail(err, AFMT_E_OVERFLOW, NULL, NULL, AFMT_NO_INDEX, t0->offset,
                         "a %" PRIu64 " x %" PRIu64 " matrix of %" PRIu64
                         "-byte elements does not fit in 64 bits",
                         t0->tile_rows, t0->tile_cols, es);
    return 0;
}

/* Copy a decoded row-major tile into its place in the matrix (in order). */
static void place_tile(const afmt_array *t, const uint8_t *tile, afmt_order order,
                       uint64_t rows, uint64_t cols, uint64_t es, uint8_t *dst)
{
    uint64_t r, k;

    if (order == AFMT_ROW_MAJOR) {
        /* each row of the tile is contiguous in the matrix too */
        for (r = 0; r < t->dims[0]; r++)
            memcpy(dst + ((t->tile_row + r) * cols + t->tile_col) * es,
                   tile + r * t->dims[1] * es, t->dims[1] * es);
        return;
    }
    for (r = 0; r < t->dims[0]; r++)
        for (k = 0; k < t->dims[1]; k++)
            memcpy(dst + ((t->tile_col + k) * rows + t->tile_row + r) * es,
                   tile + (r * t->dims[1] + k) * es, es);
}

int afmt_tiles_assemble(const afmt_array *tiles, size_t n, afmt_order order, void *out,
                        uint64_t dst_size, afmt_array *whole, afmt_error *err)
{
    uint8_t *dst = out;
    const afmt_array *t0 = &tiles[0];
    afmt_tiles set;
    uint64_t total, largest = 0, size, es;
    uint8_t *tmp = NULL;
    uint32_t other = 0;
    size_t i;
    int rc = -1;

    if (afmt_tiles_plain_size(tiles, n, &total, err) != 0)
        return -1;
    if (order != AFMT_ROW_MAJOR && order != AFMT_COL_MAJOR)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, 0, "order %d",
                         (int)order);
    if (!dst || dst_size < total)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, 0,
                         "the matrix needs %" PRIu64 " bytes, dst holds %" PRIu64, total,
                         dst ? dst_size : 0);
    es = tile_elsize(t0);
    /* Where every tile goes, before decoding anything: inside, no overlap,
     * every cell covered. */
    afmt_tiles_init(&set, t0->tile_rows, t0->tile_cols);
    for (i = 0; i < n; i++) {
        const afmt_array *t = &tiles[i];
        switch (afmt_tiles_add(&set, t->tile_row, t->tile_col, t->dims[0], t->dims[1], &other)) {
        case AFMT_TILE_OK:
            break;
        case AFMT_TILE_OUTSIDE:
            return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, t->offset,
                             "tile %zu (%" PRIu64 " x %" PRIu64 " at %" PRIu64 ", %" PRIu64
                             ") is not inside its %" PRIu64 " x %" PRIu64 " matrix",
                             i, t->dims[0], t->dims[1], t->tile_row, t->tile_col,
                             t0->tile_rows, t0->tile_cols);
        case AFMT_TILE_OVERLAP:
            return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, t->offset,
                             "tile %zu (%" PRIu64 " x %" PRIu64 " at %" PRIu64 ", %" PRIu64
                             ") overlaps an earlier tile", i, t->dims[0], t->dims[1],
                             t->tile_row, t->tile_col);
        default:
            return afmt_fail(err, AFMT_E_LIMIT, NULL, NULL, AFMT_NO_INDEX, t->offset,
                             "more than %d non-empty tiles", AFMT_TILES_CAP);
        }
        if (t->count > 0) {
            if (afmt_array_plain_size(t, &size, err) != 0)
                return -1;
            if (size > largest)
                largest = size;
        }
    }
    if (!afmt_tiles_complete(&set))
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, t0->offset,
                         "the tiles cover %" PRIu64 " of the %" PRIu64 " x %" PRIu64
                         " cells of their matrix", set.area, t0->tile_rows, t0->tile_cols);
    if (largest > 0 && (largest > SIZE_MAX || !(tmp = malloc((size_t)largest))))
        return afmt_fail(err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, 0,
                         "cannot allocate %" PRIu64 " bytes for a tile", largest);
    for (i = 0; i < n; i++) {
        const afmt_array *t = &tiles[i];
        if (t->count == 0)
            continue; /* e.g. 2^60 x 0: nothing to place (and no loop over 2^60 rows) */
        if (afmt_array_plain_size(t, &size, err) != 0 ||
            afmt_array_to_plain(t, AFMT_ROW_MAJOR, tmp, size, err) != 0)
            goto done;
        place_tile(t, tmp, order, t0->tile_rows, t0->tile_cols, es, dst);
    }
    afmt_array_init(whole, t0->dtype);
    whole->elsize = es;
    whole->stride = es;
    whole->rank = 2;
    whole->dims[0] = t0->tile_rows;
    whole->dims[1] = t0->tile_cols;
    whole->count = set.rows * set.cols; /* checked by afmt_tiles_plain_size */
    whole->order = order;
    whole->data = dst;
    whole->nbytes = total;
    memcpy(whole->name, t0->name, sizeof whole->name);
    memcpy(whole->opaque_name, t0->opaque_name, sizeof whole->opaque_name);
    whole->name_len = t0->name_len;
    whole->index = t0->index;
    rc = 0;
done:
    free(tmp);
    return rc;
}

void afmt_view_tile(afmt_array *a, uint64_t row, uint64_t col, const afmt_tiles *t)
{
    a->tile_row = row;
    a->tile_col = col;
    a->tile_rows = t->rows;
    a->tile_cols = t->cols;
    a->is_tile = !(row == 0 && col == 0 && a->dims[0] == t->rows && a->dims[1] == t->cols);
}
