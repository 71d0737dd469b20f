/* afmt CLI: the format an output is written in (see out_format.h). */
#include "out_format.h"

#include <stdio.h>
#include <string.h>

const char *afmt_cli_path_extension(const char *out)
{
    const char *base = strrchr(out, '/'), *dot;

    base = base ? base + 1 : out;
    dot = strrchr(base, '.');
    return dot && dot != base ? dot : out + strlen(out);
}

/* "daphne, futhark, ..." into buf: the formats a user may name. */
static void format_names(char *buf, size_t size)
{
    size_t i, used = 0;

    buf[0] = '\0';
    for (i = 0; i < afmt_format_count && used < size; i++)
        if (afmt_formats[i]) {
            int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "",
                             afmt_formats[i]->name);
            if (n < 0)
                return;
            used += (size_t)n;
        }
}

/* Without --to: OUT's extension says, or NULL with why. */
static const afmt_format *by_extension(const char *out, const char *ext,
                                       const afmt_format *fallback, char *why, size_t why_size)
{
    const afmt_format *tie = NULL, *f = afmt_format_by_extension(out, &tie);
    char names[256];

    if (f)
        return f;
    if (!tie)
        f = afmt_format_by_shared_extension(out, &tie);
    if (f)
        return f;
    if (tie) {
        snprintf(why, why_size, "the extension of '%s' belongs to several formats (%s among "
                 "them): use --to NAME", out, tie->name);
        return NULL;
    }
    if (!*ext && fallback)
        return fallback;
    format_names(names, sizeof names);
    if (!*ext)
        snprintf(why, why_size, "cannot tell the output format from '%s' (it has no extension): "
                 "use --to NAME (one of: %s)", out, names);
    else
        snprintf(why, why_size, "no format of this build has the extension '%s' of '%s' "
                 "('afmt formats' lists them)%s: rename it or use --to NAME (one of: %s)", ext,
                 out, strcmp(ext, ".txt") == 0 ? "; Futhark text values are --to futhark --text" : "",
                 names);
    return NULL;
}

const afmt_format *afmt_cli_output_format(const char *out, const afmt_format *asked,
                                          const afmt_format *fallback, char *why,
                                          size_t why_size)
{
    const afmt_format *named;
    const char *ext;

    why[0] = '\0';
    if (!out || strcmp(out, "-") == 0) {
        if (!asked && !fallback)
            snprintf(why, why_size, "standard output has no extension to tell the format by: "
                     "use --to NAME");
        return asked ? asked : fallback;
    }
    ext = afmt_cli_path_extension(out);
    if (!asked)
        return by_extension(out, ext, fallback, why, why_size);
    /* a shared extension (a spec's "shared_extensions": ".bin") lets --to
     * choose; one that names a format does not */
    named = afmt_format_by_extension(out, NULL);
    if (named && named != asked) {
        snprintf(why, why_size, "'%s' has the extension of %s (%s), but the format asked for is "
                 "%s: name OUT for the format it holds, or ask for %s", out, named->name, ext,
                 asked->name, named->name);
        return NULL;
    }
    return asked;
}
