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

void afmt_cli_print_dtype_names(FILE *f)
{
    static const afmt_dtype_kind kinds[] = {
        AFMT_KIND_BOOL, AFMT_KIND_SIGNED, AFMT_KIND_UNSIGNED, AFMT_KIND_FLOAT, AFMT_KIND_COMPLEX
    };
    size_t k, n = 0;
    unsigned size;
    int d;

    for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (size = 1; size <= 16; size *= 2)
            for (d = AFMT_DTYPE_INVALID + 1; d < AFMT_DTYPE_COUNT_; d++) {
                const afmt_dtype_info *t = afmt_dtype_get((afmt_dtype)d);
                if (t->kind == kinds[k] && t->size == size)
                    fprintf(f, "%s%s", n++ ? ", " : "", t->name);
            }
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
