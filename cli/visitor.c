/* afmt CLI: the visitor that ignores everything (see visitor.h). */
#include "visitor.h"

static int ignore_array(void *ctx, const afmt_array *array)
{
    (void)ctx;
    (void)array;
    return 0; /* 0: go on */
}

static void ignore_warning(void *ctx, const afmt_error *warning)
{
    (void)ctx;
    (void)warning;
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
