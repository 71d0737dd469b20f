/* afmt CLI: registry lookups (see formats.h). */
#include "formats.h"

#include <string.h>

const char *afmt_cli_order_name(afmt_order order)
{
    return order == AFMT_COL_MAJOR ? "column-major" : "row-major";
}

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

int afmt_cli_ends_with(const char *name, const char *ext)
{
    size_t n = strlen(name), e = strlen(ext), i;

    if (e == 0 || e > n)
        return 0;
    for (i = 0; i < e; i++)
        if (lower((unsigned char)name[n - e + i]) != lower((unsigned char)ext[i]))
            return 0;
    return 1;
}

const afmt_format *afmt_cli_format_by_ext(const char *path,
                                          const afmt_format **ambiguous)
{
    const afmt_format *best = NULL, *tie = NULL;
    size_t best_len = 0, i;
    const char *const *e;

    for (i = 0; i < afmt_format_count; i++) {
        const afmt_format *f = afmt_formats[i];
        if (!f)
            continue;
        for (e = f->extensions; e && *e; e++) {
            size_t n = strlen(*e);
            if (!afmt_cli_ends_with(path, *e))
                continue;
            if (n > best_len) {
                best = f;
                best_len = n;
                tie = NULL;
            } else if (n == best_len && f != best) {
                tie = f;
            }
        }
    }
    if (ambiguous)
        *ambiguous = tie ? best : NULL;
    return tie ? NULL : best;
}

int afmt_cli_has_known_ext(const char *name)
{
    size_t i;
    const char *const *e;

    for (i = 0; i < afmt_format_count; i++)
        for (e = afmt_formats[i] ? afmt_formats[i]->extensions : NULL; e && *e; e++)
            if (afmt_cli_ends_with(name, *e))
                return 1;
    return 0;
}

int afmt_cli_is_tar_path(const char *path)
{
    static const char *const tar_ext[] = {
        ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz",
        ".tar.zst", ".tar.lz4", NULL
    };
    const char *const *e;

    for (e = tar_ext; *e; e++)
        if (afmt_cli_ends_with(path, *e))
            return 1;
    return 0;
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
