/* afmt_tiles_assemble / afmt_tiles_plain_size: putting the tiles of a
 * matrix (DAPHNE blocks) back together, table-driven.  The matrix is 3 x 4
 * u8 with cell (r, c) = 10 * r + c; each case lists its tiles and what the
 * assembly must give. */
#include <stdio.h>
#include <string.h>

#include "afmt.h"
#include "check.h"

#define ROWS 3
#define COLS 4
#define MAX_TILES 6

typedef struct tile_spec {
    uint64_t row, col, rows, cols;
} tile_spec;

typedef struct tile_case {
    const char *name;
    size_t n;
    tile_spec t[MAX_TILES];
    uint64_t matrix_rows_of_last; /* 0: ROWS; else the last tile claims this many matrix rows */
    afmt_code want;               /* AFMT_OK or the error code */
} tile_case;

static const tile_case CASES[] = {
    {"one tile, the whole matrix", 1, {{0, 0, 3, 4}}, 0, AFMT_OK},
    {"three row tiles", 3, {{0, 0, 1, 4}, {1, 0, 1, 4}, {2, 0, 1, 4}}, 0, AFMT_OK},
    {"four blocks, out of order", 4, {{2, 2, 1, 2}, {0, 0, 2, 2}, {0, 2, 2, 2}, {2, 0, 1, 2}}, 0, AFMT_OK},
    {"empty tiles beside full ones", 3, {{0, 0, 3, 4}, {3, 0, 0, 4}, {0, 4, 3, 0}}, 0, AFMT_OK},
    {"overlapping tiles", 2, {{0, 0, 2, 4}, {1, 0, 2, 4}}, 0, AFMT_E_USAGE},
    {"a gap", 2, {{0, 0, 1, 4}, {2, 0, 1, 4}}, 0, AFMT_E_USAGE},
    {"a tile outside the matrix", 2, {{0, 0, 3, 4}, {2, 3, 1, 2}}, 0, AFMT_E_USAGE},
    {"tiles of two matrices", 2, {{0, 0, 1, 4}, {1, 0, 2, 4}}, 5, AFMT_E_USAGE},
};

/* Views over `store` (each tile's cells row-major, one after another). */
static void make_tiles(const tile_case *tc, uint8_t *store, afmt_array *v)
{
    size_t i;
    uint64_t r, c, at = 0;

    for (i = 0; i < tc->n; i++) {
        const tile_spec *s = &tc->t[i];
        afmt_array_init(&v[i], AFMT_U8);
        v[i].rank = 2;
        v[i].dims[0] = s->rows;
        v[i].dims[1] = s->cols;
        v[i].count = s->rows * s->cols;
        v[i].elsize = 1;
        v[i].stride = 1;
        v[i].data = store + at;
        v[i].nbytes = v[i].count;
        v[i].offset = at;
        v[i].index = (uint32_t)i;
        v[i].is_tile = 1;
        v[i].tile_row = s->row;
        v[i].tile_col = s->col;
        v[i].tile_rows = (i + 1 == tc->n && tc->matrix_rows_of_last) ? tc->matrix_rows_of_last : ROWS;
        v[i].tile_cols = COLS;
        snprintf(v[i].name, sizeof v[i].name, "m");
        for (r = 0; r < s->rows; r++)
            for (c = 0; c < s->cols; c++)
                store[at++] = (uint8_t)(10 * (s->row + r) + s->col + c);
    }
}

static void test_cases(void)
{
    size_t k;
    char name[256];

    for (k = 0; k < sizeof CASES / sizeof CASES[0]; k++) {
        const tile_case *tc = &CASES[k];
        afmt_array v[MAX_TILES], whole;
        uint8_t store[64], dst[ROWS * COLS];
        afmt_error err;
        uint64_t size = 0, r, c;
        int order, rc, same;

        make_tiles(tc, store, v);
        for (order = AFMT_ROW_MAJOR; order <= AFMT_COL_MAJOR; order++) {
            memset(dst, 0xee, sizeof dst);
            afmt_error_clear(&err);
            rc = afmt_tiles_plain_size(v, tc->n, &size, &err);
            if (rc == 0)
                rc = afmt_tiles_assemble(v, tc->n, (afmt_order)order, dst, sizeof dst, &whole, &err);
            snprintf(name, sizeof name, "tiles: %s (%s): %s", tc->name,
                     order == AFMT_ROW_MAJOR ? "row-major" : "column-major",
                     tc->want == AFMT_OK ? "assembled" : afmt_code_name(tc->want));
            CHECK(name, tc->want == AFMT_OK ? rc == 0 : rc == -1 && err.code == tc->want);
            if (tc->want != AFMT_OK || rc != 0) {
                if (rc != 0 && tc->want == AFMT_OK)
                    printf("  %s: %s\n", afmt_code_name(err.code), err.message);
                continue;
            }
            same = size == ROWS * COLS;
            for (r = 0; r < ROWS; r++)
                for (c = 0; c < COLS; c++)
                    same &= dst[order == AFMT_ROW_MAJOR ? r * COLS + c : c * ROWS + r] ==
                            10 * r + c;
            snprintf(name, sizeof name, "tiles: %s (%s): every cell in its place", tc->name,
                     order == AFMT_ROW_MAJOR ? "row-major" : "column-major");
            CHECK(name, same);
            snprintf(name, sizeof name, "tiles: %s: the whole view is 3 x 4 u8 over dst", tc->name);
            CHECK(name, whole.rank == 2 && whole.dims[0] == ROWS && whole.dims[1] == COLS &&
                            whole.count == ROWS * COLS && whole.dtype == AFMT_U8 &&
                            whole.data == dst && whole.nbytes == ROWS * COLS &&
                            whole.order == (afmt_order)order && !whole.is_tile &&
                            strcmp(whole.name, "m") == 0);
        }
    }
}

static void test_refusals(void)
{
    afmt_array v[1], whole;
    uint8_t store[64], dst[ROWS * COLS];
    afmt_error err;
    uint64_t size;

    make_tiles(&CASES[0], store, v);
    CHECK("tiles: dst smaller than the matrix: usage",
          afmt_tiles_assemble(v, 1, AFMT_ROW_MAJOR, dst, sizeof dst - 1, &whole, &err) == -1 &&
              err.code == AFMT_E_USAGE);
    CHECK("tiles: no tiles: usage",
          afmt_tiles_plain_size(v, 0, &size, &err) == -1 && err.code == AFMT_E_USAGE);
    v[0].is_tile = 0;
    CHECK("tiles: a view that is not a tile: usage",
          afmt_tiles_plain_size(v, 1, &size, &err) == -1 && err.code == AFMT_E_USAGE);
    v[0].is_tile = 1;
    v[0].tile_rows = UINT64_MAX;
    v[0].tile_cols = 3;
    CHECK("tiles: a matrix of more than 2^64 bytes: overflow",
          afmt_tiles_plain_size(v, 1, &size, &err) == -1 && err.code == AFMT_E_OVERFLOW);
}

int main(void)
{
    test_cases();
    test_refusals();
    CHECK_DONE();
}
