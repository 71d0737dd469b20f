/* afmt CLI: the options that set afmt_limits.  See limit_opts.h. */
#include "limit_opts.h"

#include <stdio.h>
#include <string.h>

#include "args.h"

int afmt_cli_limit_option(const char *prog, int id, const char *val, afmt_limits *limits)
{
    uint64_t v;
    switch (id) {
    case AFMT_CLI_OPT_MAX_HEADER_BYTES:
        if (afmt_cli_parse_size(val, &v) != 0) {
            fprintf(stderr, "%s: --max-header-bytes needs a size such as 1048576 or 64M, not '%s'\n", prog, val);
            return -1;
        }
        limits->max_header_bytes = v;
        return 1;
    case AFMT_CLI_OPT_MAX_DEPTH:
        if (afmt_cli_parse_uint(val, 1, 32, &v) != 0) {
            fprintf(stderr, "%s: --max-depth needs a number from 1 to 32, not '%s'\n", prog, val);
            return -1;
        }
        limits->max_depth = v;
        return 1;
    case AFMT_CLI_OPT_MAX_ITEMS:
        if (afmt_cli_parse_uint(val, 1, UINT64_MAX, &v) != 0) {
            fprintf(stderr, "%s: --max-items needs a positive number, not '%s'\n", prog, val);
            return -1;
        }
        limits->max_items = v;
        return 1;
    case AFMT_CLI_OPT_MAX_DECODED_BYTES:
        if (afmt_cli_parse_size(val, &v) != 0) {
            fprintf(stderr, "%s: --max-decoded-bytes needs a size such as 1048576 or 64M, not '%s'\n", prog, val);
            return -1;
        }
        limits->max_decoded_bytes = v;
        return 1;
    case AFMT_CLI_OPT_MAX_KEPT_BYTES:
        if (afmt_cli_parse_size(val, &v) != 0 || v == 0) {
            fprintf(stderr, "%s: --max-kept-bytes needs a positive size such as 268435456 or 256M, not '%s'\n", prog,
                    val);
            return -1;
        }
        limits->max_kept_bytes = v;
        return 1;
    default:
        return 0;
    }
}

const char *afmt_cli_limit_hint(const afmt_error *err)
{
    static const struct {
        const char *says, *hint;
    } hints[] = {
        {"(limits.max_header_bytes)", " (raise it with --max-header-bytes N)"},
        {"header limit", " (raise it with --max-header-bytes N)"},
        {"(limits.max_items)", " (raise it with --max-items N)"},
        {" repetitions", " (raise it with --max-items N)"},
        {"(limits.max_depth)", " (raise it with --max-depth N)"},
        {"(limits.max_decoded_bytes)", " (raise it with --max-decoded-bytes N)"},
        {"(limits.max_kept_bytes)", " (raise it with --max-kept-bytes N)"},
    };
    size_t i;
    if (!err || err->code != AFMT_E_LIMIT)
        return "";
    /* 32 is the default and also the most --max-depth takes: "raise it"
     * would send the reader to an option that cannot help */
    if (strstr(err->message, "(limits.max_depth)") &&
        (strstr(err->message, " 32 levels") || strstr(err->message, " 32 deep")))
        return " (32 is the most --max-depth allows)";
    for (i = 0; i < sizeof hints / sizeof hints[0]; i++)
        if (strstr(err->message, hints[i].says))
            return hints[i].hint;
    return "";
}
