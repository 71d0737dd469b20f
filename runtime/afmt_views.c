/* afmt runtime: collecting the views of one validation (afmt.h). */
#include <stdlib.h>
#include <string.h>

#include "afmt.h"

void afmt_views_init(afmt_views *vs, size_t max)
{
    memset(vs, 0, sizeof *vs);
    vs->max = max;
}

int afmt_views_add(afmt_views *vs, const afmt_array *a)
{
    if (vs->n < vs->max && !vs->oom) {
        if (vs->n == vs->cap) {
            /* most files hold one or two arrays: start small, double */
            size_t cap = vs->cap ? vs->cap * 2 : 2;
            afmt_array *nv;
            if (cap > vs->max || cap < vs->cap)
                cap = vs->max;
            nv = cap <= SIZE_MAX / sizeof *nv ? realloc(vs->v, sizeof *nv * cap) : NULL;
            if (!nv) {
                vs->oom = 1;
                vs->n++;
                return 0;
            }
            vs->v = nv;
            vs->cap = cap;
        }
        vs->v[vs->n] = *a;
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

void afmt_views_reset(afmt_views *vs)
{
    vs->n = 0;
    vs->oom = 0;
    vs->trailer = NULL;
    vs->trailer_len = 0;
}

void afmt_views_free(afmt_views *vs)
{
    free(vs->v);
    afmt_views_init(vs, vs->max);
}
