/* afmt CLI: registry lookups (see formats.h). */
#include "formats.h"


const char *afmt_cli_order_name(afmt_order order)
{
    return order == AFMT_COL_MAJOR ? "column-major" : "row-major";
}

void afmt_cli_print_format_names(FILE *f)
{
    size_t i, n = 0;

    for (i = 0; i < afmt_format_count; i++)
        if (afmt_formats[i])
            fprintf(f, "%s%s", n++ ? ", " : "", afmt_formats[i]->name);
}

const afmt_format *afmt_cli_format_arg(const char *prog, const char *name)
{
    const afmt_format *f = afmt_format_by_name(name);

    if (!f) {
        fprintf(stderr, "%s: unknown format '%s' (known: ", prog, name);
        afmt_cli_print_format_names(stderr);
        fprintf(stderr, ")\n");
    }
    return f;
}
