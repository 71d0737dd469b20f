/* afmt runtime: blocks that must tile a matrix. */
#include "afmt_bytes.h"
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
    if (!afmt_add_u64(row, rows, &end_r) || !afmt_add_u64(col, cols, &end_c) ||
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
    if (!afmt_mul_u64(rows, cols, &area) || !afmt_add_u64(t->area, area, &t->area))
        t->uncountable = 1;
    return AFMT_TILE_OK;
}

int afmt_tiles_complete(const afmt_tiles *t)
{
    uint64_t total;
    if (t->uncountable || !afmt_mul_u64(t->rows, t->cols, &total))
        return 0;
    return t->area == total;
}
