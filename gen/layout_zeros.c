/* afmt-gen: the "zeros" layout (spec/LANGUAGE.md, "Layouts"): a block
 * whose elements are all zero and take no bytes.  See gen/layout.h. */
#include "layout.h"

static void zeros_stored(emitter *m, item *it, layout_emit *le)
{
    (void)le;
    line(m, "const uint64_t stored_%s = 0; /* all zeros: nothing stored */", it->name);
}

static void zeros_view(emitter *m, item *it, layout_emit *le)
{
    (void)le;
    line(m, "a_%s.encoding = AFMT_ENC_ZEROS;", it->name);
}

const layout_module layout_zeros = {
    .name = "zeros", .id = LAYOUT_ZEROS,
    .stored = zeros_stored, .view = zeros_view,
};
