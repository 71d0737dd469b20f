/* afmt CLI: afmt formats -- what the registry holds. */
#include <stdio.h>
#include <string.h>

#include "afmt.h"
#include "args.h"
#include "cli.h"
#include "formats.h"

static void formats_usage(FILE *f)
{
    fprintf(f,
"Usage: afmt formats\n"
"List the formats afmt knows, one per line: name, file extensions, the\n"
"extensions it shares with other kinds of file (SHARED: torch's .bin; a\n"
"file so named is that format only when its content says so, an output so\n"
"named is written in it), whether a file holds one array or several, the\n"
"storage order of its payload, and the spec it was generated from.\n"
"\n"
"Example:\n"
"  afmt formats\n"
"\n"
"Exit status: 0 listed, 2 usage or output error.\n");
}

/* ".pt,.pth,.ckpt" into buf (as many as fit), or "-" for none. */
static const char *join_extensions(const char *const *list, char *buf, size_t size)
{
    const char *const *e;
    size_t n = 0;

    buf[0] = '\0';
    for (e = list; e && *e; e++) {
        int k = snprintf(buf + n, size - n, "%s%s", n ? "," : "", *e);
        if (k < 0 || (size_t)k >= size - n)
            break;
        n += (size_t)k;
    }
    return n ? buf : "-";
}

int afmt_cli_formats_main(int argc, char **argv, int first)
{
    static const afmt_cli_optdef opts[] = {
        { "help", 'h', 0, 1 },
        { NULL, 0, 0, 0 }
    };
    afmt_cli_args args;
    const char *val;
    size_t i;
    int id, width = (int)strlen("FORMAT");

    afmt_cli_args_init(&args, argc, argv, first, opts, "afmt formats");
    while ((id = afmt_cli_args_next(&args, &val)) != AFMT_CLI_ARGS_END) {
        if (id == 1) {
            formats_usage(stdout);
            return AFMT_EXIT_OK;
        }
        if (id == AFMT_CLI_ARGS_OPERAND)
            return afmt_cli_usage_error("afmt formats", "unexpected argument '%s'", val);
        return AFMT_EXIT_ERROR;
    }
    /* The name column is as wide as the longest name (safetensors). */
    for (i = 0; i < afmt_format_count; i++)
        if (afmt_formats[i] && (int)strlen(afmt_formats[i]->name) > width)
            width = (int)strlen(afmt_formats[i]->name);
    printf("%-*s %-18s %-7s %-7s %-13s %s\n", width, "FORMAT", "EXTENSIONS", "SHARED", "ARRAYS",
           "ORDER", "SPEC");
    for (i = 0; i < afmt_format_count; i++) {
        const afmt_format *f = afmt_formats[i];
        char exts[256], shared[64];

        if (!f)
            continue;
        printf("%-*s %-18s %-7s %-7s %-13s %s\n", width, f->name,
               join_extensions(f->extensions, exts, sizeof exts),
               join_extensions(f->shared_extensions, shared, sizeof shared),
               f->multi ? "many" : "one", afmt_cli_order_name(f->order),
               f->spec ? f->spec : "-");
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "afmt formats: error writing standard output\n");
        return AFMT_EXIT_ERROR;
    }
    return AFMT_EXIT_OK;
}
