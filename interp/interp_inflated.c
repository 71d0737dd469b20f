/* afmt interpreter: an inflated region (spec/LANGUAGE.md, "Inflated
 * regions"), run through the runtime's afmt_inflated_open/close as the
 * generated validator does. */
#include "compress/afmt_inflated.h"
#include "interp.h"

int irun_inflated(irun *r, const item *it, uint64_t size)
{
    const region_item *g = &it->region;
    afmt_inflated *z;
    if (g->out_size) {
        const iblame b = iblame_pos(it->name);
        uint64_t n;
        if (ieval_u64(r, &b, g->out_size, g->out_size_text, &n)) return -1;
        if (afmt_inflated_open(r->c, &z, it->name, size, g->max_size, 0, AFMT_INFLATED_KNOWN, 0, n)) return -1;
    } else if (afmt_inflated_open(r->c, &z, it->name, size, g->max_size, g->size_at, g->size_width,
                                  g->size_big == ORDER_RUN ? AFMT_ORDER_RUN : g->size_big, g->size_plus))
        return -1;
    if (irun_items(r, &it->body)) return -1;
    return afmt_inflated_close(r->c, z);
}
