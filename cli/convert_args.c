/* afmt CLI: afmt convert's command line (convert.h): --help, the
 * options, and OUT's format (--to, else OUT's extension). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "convert.h"
#include "formats.h"
#include "limit_opts.h"
#include "out_format.h"
#include "spec.h"

static void convert_usage(FILE *f)
{
    fprintf(f,
"Usage: afmt convert [OPTION]... IN OUT\n"
"Validate IN and write its arrays to OUT in another format, keeping every\n"
"value at the same logical index (storage order is converted: row-major\n"
"and column-major formats interconvert).  The output format is --to, else\n"
"the one whose extension OUT has.  OUT is written under a temporary name\n"
"and renamed into place only when the whole conversion succeeded, so a\n"
"refused or failed conversion never leaves a partial OUT; it keeps the\n"
"permissions of the file it replaces.  A symlink OUT is followed and its\n"
"target replaced (as cp does); a character device or FIFO is written into\n"
"directly, never replaced (and gets no sidecar); a directory is refused.\n"
"IN \"-\" is standard input; OUT \"-\" is standard output (then --to is\n"
"required).  IN may be an http:// or https:// URL (fetched whole, up to\n"
"1 GiB), an archive (every member's arrays) or one member of it,\n"
"ARCHIVE:NAME (x.npz:weights); --to npz (or OUT ending in .npz) writes a\n"
"NumPy archive, each array a stored member NAME.npy.  An array without a\n"
"name is arr_I in every format that names its arrays (I its index:\n"
"np.savez's names); a member's array is named after the member\n"
"(ARCHIVE.npz:emb.npy: emb).\n"
"\n"
"Options:\n"
"      --from NAME    do not detect: read IN as format NAME\n"
"      --spec FILE    do not detect: read IN as the format the spec FILE\n"
"                     describes, with afmt's reference interpreter (no build\n"
"                     step; see afmt-validate --help).  Reading only: --to\n"
"                     names a format afmt was built with\n"
"      --to NAME      write OUT as format NAME (npz: a NumPy archive)\n"
"      --text         with --to futhark: write Futhark text values, one a\n"
"                     line (as 'afmt dump' prints them), not binary ones\n"
"      --dtype TYPE   cast the arrays of TYPE's class to TYPE (bool, i8,\n"
"                     i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32,\n"
"                     f64, c32, c64, c128; the classes: bool, integers,\n"
"                     floats, complex): --dtype f16 casts a model's float\n"
"                     weights and keeps its integer ids, saying so on\n"
"                     standard error; an IN with no array of that class\n"
"                     is cast whole (a lone i32 array --dtype f32)\n"
"      --dtype-of NAME=TYPE\n"
"                     cast the array NAME to TYPE whatever its class, or\n"
"                     keep it (TYPE keep); after --dtype, repeatable.  An\n"
"                     unnamed array is arr_I (I its index); a NAME no\n"
"                     array has is a usage error.  A cast is refused\n"
"                     (naming the array and the element by its logical\n"
"                     index, as afmt dump orders it) if a value would\n"
"                     change, unless\n"
"      --allow-lossy  let casts change values: an integer target saturates\n"
"                     (out of range -> its min or max), fractions truncate\n"
"                     toward 0, NaN becomes 0; a float target rounds to\n"
"                     nearest (too large -> +-inf); imaginary parts are\n"
"                     dropped; bool is true for any nonzero value\n"
"      --apply-scale  write the f64 values of an array with a general scale\n"
"                     (FITS BSCALE/BZERO other than the integer\n"
"                     conventions) where OUT's format cannot keep the\n"
"                     scale with the stored elements; without it such an\n"
"                     array is refused (FITS keeps the scale)\n"
"      --compress     store payloads compressed where OUT's format can\n"
"                     (RawArray: one LZ4 block); by default a compressed\n"
"                     IN stays compressed\n"
"      --no-compress  store payloads uncompressed\n"
"      --keep-names   refuse when OUT's format cannot hold an array's name;\n"
"                     by default a name that does not fit (tenbin keeps 8\n"
"                     bytes) is shortened to what fits, or dropped, and\n"
"                     standard error says which\n"
"      --strict       accept exactly what a conforming writer produces\n"
"                     (the default)\n"
"      --lenient      accept IN as the reference readers would (warnings\n"
"                     on standard error); OUT is always written strictly\n"
AFMT_CLI_LIMIT_HELP
"  -h, --help         print this help and exit\n"
"\n"
"The storage form is kept where OUT's format can hold it (compression,\n"
"a sparse CSR matrix, also under --dtype); where it must change, a line\n"
"on standard error says so.\n"
"A file with several arrays can only go to a format that holds several\n"
"(see 'afmt formats').  An element type or shape the output format cannot\n"
"hold is refused with the reason.  A safetensors OUT lists its tensors\n"
"in the order the reference writer (safetensors' serialize) gives them:\n"
"by element type, then by name.\n"
"\n"
"Examples (the files are in the afmt sources' examples/ folder):\n"
"  afmt convert examples/test.ra test.npy\n"
"  afmt convert examples/i32_2x3.bin i32.ten\n"
"  afmt convert --dtype f32 examples/i32_2x3.bin f32.npy\n"
"  afmt convert --dtype f16 --allow-lossy examples/model.safetensors half.safetensors\n"
"  afmt convert --dtype i8 --allow-lossy examples/f8_2x3.npy i8.npy\n"
"  afmt convert --to futhark --text examples/f8_2x3.npy f8.txt\n"
"  afmt convert examples/values.txt values.bin --to futhark\n"
"  afmt convert --to rawarray examples/f8_2x3.npy - | afmt info -\n"
"  afmt convert --lenient examples/invalid/bool_byte_2.bin bool.npy\n"
"\n"
"Exit status: 0 converted, 1 IN invalid or the conversion refused, 2 usage\n"
"or I/O error.\n");
}

enum { C_HELP = 1, C_SPEC, C_FROM, C_TO, C_DTYPE, C_LOSSY, C_LENIENT, C_STRICT, C_TEXT, C_COMPRESS, C_NO_COMPRESS,
       C_KEEP_NAMES, C_DTYPE_OF, C_APPLY_SCALE };

static const afmt_cli_optdef convert_opts[] = {
    { "help", 'h', 0, C_HELP },
    { "from", 0, 1, C_FROM },
    { "spec", 0, 1, C_SPEC },
    { "to", 0, 1, C_TO },
    { "dtype", 0, 1, C_DTYPE },
    { "dtype-of", 0, 1, C_DTYPE_OF },
    { "allow-lossy", 0, 0, C_LOSSY },
    { "apply-scale", 0, 0, C_APPLY_SCALE },
    { "lenient", 0, 0, C_LENIENT },
    { "strict", 0, 0, C_STRICT },
    { "text", 0, 0, C_TEXT },
    { "compress", 0, 0, C_COMPRESS },
    { "no-compress", 0, 0, C_NO_COMPRESS },
    { "keep-names", 0, 0, C_KEEP_NAMES },
    AFMT_CLI_LIMIT_OPTDEFS,
    { NULL, 0, 0, 0 }
};

/* After a message of its own (or of afmt_cli_args_next). */
static int usage_error(void)
{
    return afmt_cli_usage_error("afmt convert", NULL);
}

/* --from or --spec: IN's format, given once.  0, or -1 said. */
static int take_from(afmt_cli_convert_args *a, int id, const char *val)
{
    if (a->from) {
        fprintf(stderr, "afmt convert: give one of --from and --spec, once\n");
        return -1;
    }
    if (id == C_FROM) {
        a->from = afmt_cli_format_arg("afmt convert", val);
        return a->from ? 0 : -1;
    }
    a->spec = afmt_cli_spec_arg("afmt convert", val);
    if (!a->spec)
        return -1;
    a->from = afmt_interp_format(a->spec);
    return 0;
}

/* An element type a user names ("f16"; keep_ok: also "keep", given as
 * AFMT_DTYPE_INVALID), or -1 said. */
static int dtype_arg(const char *option, const char *val, int keep_ok, afmt_dtype *out)
{
    *out = afmt_dtype_from_name(val);
    if (keep_ok && strcmp(val, "keep") == 0) {
        *out = AFMT_DTYPE_INVALID;
        return 0;
    }
    if (*out != AFMT_DTYPE_INVALID && *out != AFMT_OPAQUE)
        return 0;
    fprintf(stderr, "afmt convert: %s: unknown element type '%s' (", option, val);
    afmt_cli_print_dtype_names(stderr);
    fprintf(stderr, "%s)\n", keep_ok ? "; or keep" : "");
    return -1;
}

/* --to NAME and --dtype TYPE.  0, or -1 said. */
static int take_to_or_dtype(afmt_cli_convert_args *a, int id, const char *val)
{
    if (id == C_TO) {
        a->target = afmt_cli_format_arg("afmt convert", val);
        return a->target ? 0 : -1;
    }
    return dtype_arg("--dtype", val, 0, &a->dtype);
}

/* --dtype-of NAME=TYPE (the last '=' splits: a name may hold one).  0,
 * or -1 said. */
static int take_dtype_of(afmt_cli_convert_args *a, const char *val)
{
    const char *eq = strrchr(val, '=');
    afmt_cli_dtype_of *d = &a->dtype_of[a->n_dtype_of];

    if (!eq || eq == val) {
        fprintf(stderr, "afmt convert: --dtype-of needs NAME=TYPE (such as bias=f32), not '%s'\n", val);
        return -1;
    }
    if (a->n_dtype_of == AFMT_CLI_DTYPE_OF_MAX) {
        fprintf(stderr, "afmt convert: at most %d --dtype-of options\n", AFMT_CLI_DTYPE_OF_MAX);
        return -1;
    }
    d->name = val;
    d->name_len = (size_t)(eq - val);
    d->arg = val;
    if (dtype_arg("--dtype-of", eq + 1, 1, &d->dtype) != 0)
        return -1;
    a->n_dtype_of++;
    return 0;
}

/* An option without a value: 1 when id is one. */
static int take_flag(afmt_cli_convert_args *a, int id)
{
    switch (id) {
    case C_LOSSY:       a->allow_lossy = 1; return 1;
    case C_APPLY_SCALE: a->apply_scale = 1; return 1;
    case C_COMPRESS:    a->compress = 1; return 1;
    case C_NO_COMPRESS: a->compress = 0; return 1;
    case C_KEEP_NAMES:  a->keep_names = 1; return 1;
    case C_TEXT:        a->text = 1; return 1;
    case C_LENIENT:     a->opt.mode = AFMT_LENIENT; return 1;
    case C_STRICT:      a->opt.mode = AFMT_STRICT; return 1;
    default:            return 0;
    }
}

/* One option or operand: -1 to go on, else the exit status. */
static int take_arg(afmt_cli_convert_args *a, int id, const char *val)
{
    if (id == AFMT_CLI_ARGS_ERROR)
        return AFMT_EXIT_ERROR;
    if (id == C_HELP) {
        convert_usage(stdout);
        return AFMT_EXIT_OK;
    }
    if (id == AFMT_CLI_ARGS_OPERAND) {
        if (!a->in || !a->out) {
            *(a->in ? &a->out : &a->in) = val;
            return -1;
        }
        fprintf(stderr, "afmt convert: too many arguments ('%s')\n", val);
        return usage_error();
    }
    if (id == C_FROM || id == C_SPEC)
        return take_from(a, id, val) == 0 ? -1 : usage_error();
    if (id == C_TO || id == C_DTYPE)
        return take_to_or_dtype(a, id, val) == 0 ? -1 : usage_error();
    if (id == C_DTYPE_OF)
        return take_dtype_of(a, val) == 0 ? -1 : usage_error();
    if (take_flag(a, id))
        return -1;
    return afmt_cli_limit_option("afmt convert", id, val, &a->opt.limits) < 0 ? usage_error() : -1;
}

/* OUT's format, from what the options said and OUT's name, by the one
 * rule for both (out_format.h).  0, or -1 said. */
static int choose_target(afmt_cli_convert_args *a)
{
    const afmt_format *chosen;
    char why[AFMT_CLI_OUT_FORMAT_WHY];

    a->to_stdout = strcmp(a->out, "-") == 0;
    if (a->text && !a->target)
        a->target = afmt_format_by_name("futhark");
    if (a->text && (!a->target || strcmp(a->target->name, "futhark") != 0)) {
        fprintf(stderr, "afmt convert: --text is Futhark's text form: use it with --to futhark\n");
        return -1;
    }
    chosen = afmt_cli_output_format(a->to_stdout ? NULL : a->out, a->target, NULL, why, sizeof why);
    if (!chosen) {
        fprintf(stderr, "afmt convert: %s\n", why);
        return -1;
    }
    a->target = chosen;
    if (a->to_stdout && !a->text && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "afmt convert: binary data is not written to a terminal: give OUT "
                        "as a file, or pipe it\n");
        return -1;
    }
    return 0;
}

int afmt_cli_convert_parse(afmt_cli_convert_args *a, int argc, char **argv, int first)
{
    afmt_cli_args args;
    const char *val;
    int id, rc;

    memset(a, 0, sizeof *a);
    afmt_options_default(&a->opt);
    a->dtype = AFMT_DTYPE_INVALID;
    a->compress = -1;
    afmt_cli_args_init(&args, argc, argv, first, convert_opts, "afmt convert");
    while ((id = afmt_cli_args_next(&args, &val)) != AFMT_CLI_ARGS_END)
        if ((rc = take_arg(a, id, val)) >= 0)
            return rc;
    if (!a->in || !a->out) {
        fprintf(stderr, "afmt convert: needs IN and OUT\n");
        return usage_error();
    }
    return choose_target(a) == 0 ? -1 : usage_error();
}
