/* Strided views (afmt_array.strided): afmt_array_to_plain gathers each
 * element through the strides, in either order and byte order, and refuses
 * a view whose last element lies past its payload or whose extent
 * overflows, before reading anything.  The cases are PyTorch's: a
 * transpose, a slice with a storage offset, expand's stride 0, a 0-d view,
 * an empty view; and the fast paths: a view laid out densely in either
 * order is decoded as a plain one, and the dense fastest axes of any
 * other are copied as runs.  afmt_array_dense_view gives that plain view
 * (what afmt convert writes straight from the input), and nothing for
 * any other. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "afmt_internal.h"
#include "check.h"

typedef struct strided_case {
    const char *name;
    uint32_t rank;
    uint64_t dims[3];
    uint64_t strides[3];
    uint64_t first;          /* storage offset, elements */
    uint64_t storage;        /* elements in the payload */
    afmt_endian endian;
    afmt_order order;        /* of the result */
    int code;                /* 0: accepted, else the refusal's code */
    uint32_t expect[12];     /* the result, element by element */
    char dense;              /* afmt_array_dense_view: 'R' row-major, 'C' column-major, 0 not dense */
} strided_case;

/* The storage holds 0, 1, 2, ... as u32 (little- or big-endian). */
static const strided_case cases[] = {
    {"contiguous 2x3", 2, {2, 3}, {3, 1}, 0, 6, AFMT_LITTLE, AFMT_ROW_MAJOR, 0, {0, 1, 2, 3, 4, 5}, 'R'},
    {"transpose 3x2 of 2x3", 2, {3, 2}, {1, 3}, 0, 6, AFMT_LITTLE, AFMT_ROW_MAJOR, 0, {0, 3, 1, 4, 2, 5}, 'C'},
    {"transpose, column-major result", 2, {3, 2}, {1, 3}, 0, 6, AFMT_LITTLE, AFMT_COL_MAJOR, 0,
     {0, 1, 2, 3, 4, 5}, 'C'},
    {"slice [1:, 1:] of 3x3 at offset 4", 2, {2, 2}, {3, 1}, 4, 9, AFMT_LITTLE, AFMT_ROW_MAJOR, 0,
     {4, 5, 7, 8}, 0},
    {"expand 3 to 4x3 (stride 0)", 2, {4, 3}, {0, 1}, 0, 3, AFMT_LITTLE, AFMT_ROW_MAJOR, 0,
     {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}, 0},
    {"big-endian storage", 1, {3}, {2}, 1, 6, AFMT_BIG, AFMT_ROW_MAJOR, 0, {1, 3, 5}, 0},
    {"0-d at offset 5", 0, {0}, {0}, 5, 6, AFMT_LITTLE, AFMT_ROW_MAJOR, 0, {5}, 'R'},
    {"empty view at the payload's end", 2, {0, 3}, {3, 1}, 6, 6, AFMT_LITTLE, AFMT_ROW_MAJOR, 0, {0}, 'R'},
    {"rank 3", 3, {2, 2, 2}, {1, 4, 2}, 0, 8, AFMT_LITTLE, AFMT_ROW_MAJOR, 0, {0, 2, 4, 6, 1, 3, 5, 7}, 0},
    {"every other 2x3 plane of 3x2x3: runs of 6", 3, {2, 2, 3}, {12, 3, 1}, 0, 24, AFMT_LITTLE, AFMT_ROW_MAJOR, 0,
     {0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17}, 0},
    {"the same, big-endian, column-major result", 3, {2, 2, 3}, {12, 3, 1}, 0, 24, AFMT_BIG, AFMT_COL_MAJOR, 0,
     {0, 12, 3, 15, 1, 13, 4, 16, 2, 14, 5, 17}, 0},
    {"an axis of one element with any stride: dense", 2, {1, 3}, {99, 1}, 2, 5, AFMT_LITTLE, AFMT_ROW_MAJOR, 0,
     {2, 3, 4}, 'R'},
    {"last element past the payload", 2, {2, 3}, {3, 1}, 1, 6, AFMT_LITTLE, AFMT_ROW_MAJOR, AFMT_E_SIZE,
     {0}, 0},
    {"stride past the payload", 1, {2}, {6}, 0, 6, AFMT_LITTLE, AFMT_ROW_MAJOR, AFMT_E_SIZE, {0}, 0},
    {"extent overflows 64 bits", 2, {2, 2}, {UINT64_C(1) << 63, UINT64_C(1) << 63}, 0, 6, AFMT_LITTLE,
     AFMT_ROW_MAJOR, AFMT_E_OVERFLOW, {0}, 0},
};

static void fill_storage(uint8_t *p, uint64_t n, afmt_endian endian)
{
    uint64_t i;
    for (i = 0; i < n; i++) {
        if (endian == AFMT_BIG)
            afmt_store_u32be(p + 4 * i, (uint32_t)i);
        else
            afmt_store_u32le(p + 4 * i, (uint32_t)i);
    }
}

/* *v: the case's strided view over storage (filled here); its count. */
static uint64_t case_view(const strided_case *c, uint8_t storage[4 * 24], afmt_array *v)
{
    uint64_t k, count = 1;

    fill_storage(storage, 24, c->endian);
    afmt_array_init(v, AFMT_U32);
    v->rank = c->rank;
    for (k = 0; k < c->rank; k++) {
        v->dims[k] = c->dims[k];
        v->strides[k] = c->strides[k];
        count *= c->dims[k];
    }
    v->count = count;
    v->strided = 1;
    v->endian = c->endian;
    v->data = storage + 4 * c->first;
    v->nbytes = 4 * (c->storage - c->first);
    return count;
}

static int run_case(const strided_case *c)
{
    uint8_t storage[4 * 24];
    uint32_t out[12];
    afmt_array v;
    afmt_error err;
    uint64_t k, count = case_view(c, storage, &v);
    int rc;

    memset(out, 0xEE, sizeof out);
    rc = afmt_array_to_plain(&v, c->order, (uint8_t *)out, sizeof out, &err);
    if (c->code != 0)
        return rc != 0 && err.code == (afmt_code)c->code && strncmp(err.field, "strides", 7) == 0;
    if (rc != 0) {
        printf("# %s: %s\n", c->name, err.message);
        return 0;
    }
    for (k = 0; k < count; k++)
        if (out[k] != c->expect[k])
            return 0;
    return 1;
}

/* afmt_array_dense_view: the plain view a dense strided one is, whose
 * stored bytes decode to the same elements; nothing for any other. */
static int run_dense_case(const strided_case *c)
{
    uint8_t storage[4 * 24];
    uint32_t out[12];
    afmt_array v, plain;
    afmt_error err;
    uint64_t k, count = case_view(c, storage, &v);

    memset(&plain, 0xAB, sizeof plain);
    if (!afmt_array_dense_view(&v, &plain))
        return c->dense == 0 && ((const uint8_t *)&plain)[0] == 0xAB;
    if (c->dense == 0 || plain.strided || plain.stride != 4 || plain.data != v.data ||
        plain.nbytes != 4 * count || plain.order != (c->dense == 'C' ? AFMT_COL_MAJOR : AFMT_ROW_MAJOR))
        return 0;
    memset(out, 0xEE, sizeof out);
    if (afmt_array_to_plain(&plain, c->order, (uint8_t *)out, sizeof out, &err) != 0)
        return 0;
    for (k = 0; k < count; k++)
        if (out[k] != c->expect[k])
            return 0;
    return 1;
}

int main(void)
{
    char name[160];
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(cases[i].name, run_case(&cases[i]));
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(name, sizeof name, "dense view: %s", cases[i].name);
        CHECK(name, run_dense_case(&cases[i]));
    }
    CHECK("dense view: a plain view is none", !afmt_array_dense_view(&(afmt_array){0}, &(afmt_array){0}));
    CHECK_DONE();
}
