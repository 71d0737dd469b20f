/* afmt runtime: collecting the views of one validation (afmt.h). */
#include <stdlib.h>
#include <string.h>

#include "../afmt.h"
#include "../common/afmt_bytes.h"

void afmt_views_init(afmt_views *vs, size_t max)
{
    memset(vs, 0, sizeof *vs);
    vs->max = max;
}

/* Room for one more kept view; 0, or -1 when it cannot be had. */
static int views_grow(afmt_views *vs)
{
    /* most files hold one or two arrays: start small, double */
    size_t cap = vs->cap ? vs->cap * 2 : 2, k;
    afmt_array *nv;
    uint8_t **nc;

    if (cap > vs->max || cap < vs->cap)
        cap = vs->max;
    nv = cap <= SIZE_MAX / sizeof *nv ? realloc(vs->v, sizeof *nv * cap) : NULL;
    if (!nv)
        return -1;
    vs->v = nv;
    nc = cap <= SIZE_MAX / sizeof *nc ? realloc(vs->copies, sizeof *nc * cap) : NULL;
    if (!nc)
        return -1;
    for (k = vs->cap; k < cap; k++)
        nc[k] = NULL;
    vs->copies = nc;
    vs->cap = cap;
    return 0;
}

/* Bytes of one region a view points at (0 when it has none): 0, or -1
 * when they do not fit in 64 bits. */
static int region_size(const uint8_t *p, uint64_t count, uint64_t width, uint64_t *n)
{
    *n = 0;
    return p ? afmt_checked_mul_u64(count, width, n) : 0;
}

/* Copy the bytes of a transient view into memory vs owns, pointing the
 * kept view *k at them: its data, and a CSR view's row offsets and column
 * indices (regions of the same inflated member).  0, or -1 (no memory, or
 * sizes that cannot be, which no validator hands over). */
static int copy_bytes(afmt_views *vs, afmt_array *k)
{
    uint64_t nd = k->data ? k->nbytes : 0, nr, nc, rows = 0, total;
    uint8_t *p;

    /* (rows only for a CSR view: another's dims[0] may be anything; a
     * CSC view's offsets run over its columns) */
    if ((k->csr_row_offsets && afmt_checked_add_u64(k->dims[k->csc ? 1 : 0], 1, &rows)) ||
        region_size(k->csr_row_offsets, rows, k->csr_index_size, &nr) != 0 ||
        region_size(k->csr_col_indices, k->nnz, k->csr_index_size, &nc) != 0 ||
        afmt_checked_add_u64(nd, nr, &total) || afmt_checked_add_u64(total, nc, &total) || total > SIZE_MAX)
        return -1;
    if (!(p = malloc(total ? (size_t)total : 1)))
        return -1;
    if (nd) memcpy(p, k->data, (size_t)nd);
    if (nr) memcpy(p + nd, k->csr_row_offsets, (size_t)nr);
    if (nc) memcpy(p + nd + nr, k->csr_col_indices, (size_t)nc);
    if (k->data) k->data = p;
    if (k->csr_row_offsets) k->csr_row_offsets = p + nd;
    if (k->csr_col_indices) k->csr_col_indices = p + nd + nr;
    k->data_transient = 0;
    vs->copies[vs->n] = p;
    return 0;
}

int afmt_views_add(afmt_views *vs, const afmt_array *a)
{
    if (vs->n < vs->max && !vs->oom) {
        if (vs->n == vs->cap && views_grow(vs) != 0) {
            vs->oom = 1;
            vs->n++;
            return 0;
        }
        vs->v[vs->n] = *a;
        vs->copies[vs->n] = NULL;
        if (a->data_transient && copy_bytes(vs, &vs->v[vs->n]) != 0) {
            vs->oom = 1;
            vs->n++;
            return 0;
        }
    }
    vs->n++;
    return 0;
}

static int on_array(void *ctx, const afmt_array *a)
{
    return afmt_views_add(ctx, a);
}

static void on_trailer(void *ctx, const uint8_t *data, uint64_t len, uint64_t offset)
{
    afmt_views *vs = ctx;

    (void)offset;
    vs->trailer = data;
    vs->trailer_len = len;
}

void afmt_views_visitor(afmt_views *vs, afmt_visitor *vis)
{
    memset(vis, 0, sizeof *vis);
    vis->ctx = vs;
    vis->on_array = on_array;
    vis->on_trailer = on_trailer;
}

/* Free the bytes copied for the views kept so far. */
static void free_copies(afmt_views *vs)
{
    size_t i, kept = vs->n < vs->cap ? vs->n : vs->cap;

    for (i = 0; vs->copies && i < kept; i++) {
        free(vs->copies[i]);
        vs->copies[i] = NULL;
    }
}

void afmt_views_reset(afmt_views *vs)
{
    free_copies(vs);
    vs->n = 0;
    vs->oom = 0;
    vs->trailer = NULL;
    vs->trailer_len = 0;
}

void afmt_views_free(afmt_views *vs)
{
    free_copies(vs);
    free(vs->v);
    free(vs->copies);
    afmt_views_init(vs, vs->max);
}
