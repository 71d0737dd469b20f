/* afmt Python extension: the one function cli/closest.c needs from the
 * CLI's loader (cli/load.c, which is not compiled in: it reads files and
 * streams the extension does not need).  The same definition as there. */
#include "load.h"

static int ignore_array(void *ctx, const afmt_array *a)
{
    (void)ctx;
    (void)a;
    return 0;
}

static void ignore_warning(void *ctx, const afmt_error *w)
{
    (void)ctx;
    (void)w;
}

static void ignore_trailer(void *ctx, const uint8_t *data, uint64_t len, uint64_t offset)
{
    (void)ctx;
    (void)data;
    (void)len;
    (void)offset;
}

void afmt_cli_visitor_init(afmt_visitor *vis, void *ctx)
{
    vis->ctx = ctx;
    vis->on_array = ignore_array;
    vis->on_warning = ignore_warning;
    vis->on_trailer = ignore_trailer;
    vis->on_metadata = NULL;
    vis->on_kv = NULL;
    vis->on_member = NULL;
}
