/* afmt CLI: collecting arrays and warnings (see collect.h). */
#include "collect.h"

#include <inttypes.h>
#include <string.h>

#include "array_out.h"
#include "formats.h"
#include "json_out.h"
#include "load.h"
#include "members.h"
#include "model_set.h"
#include "sidecar.h"

static int on_array(void *ctx, const afmt_array *a)
{
    afmt_cli_worker *w = ctx;
    uint64_t index = w->narrays++;

    afmt_cli_sidecar_check_array(w, a, index);
    if (w->model)
        afmt_cli_model_array(w->model, a);

    /* the first array is named on a valid input's line, which -q drops */
    if (index == 0 && !w->cfg->quiet) {
        afmt_array_describe(a, w->first, sizeof w->first);
        w->first_order = a->order;
    }
    if (w->arrays_listed >= AFMT_CLI_MAX_LISTED_ARRAYS)
        return 0;
    if (w->cfg->json) {
        if (w->arrays_listed)
            afmt_cli_buf_putc(&w->arrays, ',');
        afmt_cli_put_array_json(&w->arrays, index, a);
        w->arrays_listed++;
    } else if (w->cfg->verbose) {
        afmt_cli_buf_puts(&w->arrays, "  ");
        afmt_cli_put_array_label(&w->arrays, index, a);
        afmt_cli_buf_printf(&w->arrays, " offset=%" PRIu64 "\n", a->offset);
        w->arrays_listed++;
    }
    return 0;
}

static void on_warning(void *ctx, const afmt_error *warning)
{
    afmt_cli_worker *w = ctx;

    w->nwarn++;
    if (w->warns_listed >= AFMT_CLI_MAX_LISTED_WARNINGS)
        return;
    if (w->cfg->sarif) {
        /* kept whole: each becomes a result once the path is known */
        afmt_cli_buf_put(&w->warns, warning, sizeof *warning);
        w->warns_listed++;
    } else if (w->cfg->json) {
        if (w->warns_listed)
            afmt_cli_buf_putc(&w->warns, ',');
        afmt_cli_json_error(&w->warns, warning);
        w->warns_listed++;
    } else if (w->cfg->verbose) {
        afmt_error_describe(warning, w->desc, sizeof w->desc);
        afmt_cli_buf_printf(&w->warns, "  warning: %s\n", w->desc);
        w->warns_listed++;
    }
}

void afmt_cli_collect_begin(afmt_cli_worker *w)
{
    w->narrays = w->nwarn = 0;
    w->arrays_listed = w->warns_listed = 0;
    w->first[0] = '\0';
    w->closest = 0;
    w->first_order = AFMT_ROW_MAJOR;
    afmt_cli_span_begin(&w->spans);
    afmt_cli_buf_reset(&w->arrays, AFMT_CLI_KEEP_BYTES);
    afmt_cli_buf_reset(&w->warns, AFMT_CLI_KEEP_BYTES);
}

void afmt_cli_collect_visitor(afmt_cli_worker *w, afmt_visitor *vis)
{
    afmt_cli_visitor_init(vis, w);
    vis->on_array = on_array;
    vis->on_warning = on_warning;
    vis->on_member = afmt_cli_members_told; /* each member its own line */
    if (w->model)
        vis->on_kv = afmt_cli_model_kv; /* a split file's split.* keys */
}
