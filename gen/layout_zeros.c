/* afmt-gen: the "zeros" layout (spec/LANGUAGE.md, "Layouts"): a block
 * whose elements are all zero and take no bytes.  See gen/layout.h. */
#include <stdlib.h>
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

/* read, never written: afmt writes the dense or CSR form instead */
static void zeros_write_check(emitter *m, item *a)
{
    const blame bl = blame_at(a->name, "AFMT_NO_INDEX", "0");
    char *fmt = xprintf("\"%s: afmt does not write empty blocks\"", m->s->format);
    emit_fail(m, &bl, "unsupported", LEN_NONE, fmt, NULL);
    free(fmt);
}

const layout_module layout_zeros = {
    .name = "zeros", .id = LAYOUT_ZEROS,
    .write_check = zeros_write_check, .write_refuses = 1,
    .stored = zeros_stored, .view = zeros_view,
};
