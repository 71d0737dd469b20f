/* afmt CLI: afmt dump -- print every value of every array.
 *
 * The input is validated first (counting only); then validated again with
 * a visitor that decodes each array to plain row-major data and prints it,
 * so that nothing is printed from an invalid file and memory holds one
 * decoded array at a time.
 */
#include <inttypes.h>
#include <math.h> /* signbit only: a macro, no libm function */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afmt.h"
#include "args.h"
#include "array_out.h"
#include "buf.h"
#include "cli.h"
#include "fail.h"
#include "formats.h"
#include "limit_opts.h"
#include "load.h"
#include "quote.h"
#include "sigbus.h"
#include "spec.h"

#define DUMP_MAX_BYTES ((uint64_t)1 << 30)
#define DUMP_FLUSH_BYTES ((size_t)64 << 10)

typedef struct dump_ctx {
    const char *path;
    const char *shown_path; /* path, quoted for messages (quote.h) */
    char quoted[AFMT_CLI_QUOTED_MAX];
    int list;            /* --list: a header line, then one element a line */
    afmt_sink text_sink; /* Futhark text on standard output */
    afmt_cli_buf out;
    uint8_t *plain;
    uint64_t plain_cap;
    uint64_t index;
    int failed;
    int write_failed;
    afmt_error err;
    char failed_label[640]; /* the array refused: "[1] bias bf16[3]" */
} dump_ctx;

static void flush_out(dump_ctx *d)
{
    if (d->out.len && fwrite(d->out.p, 1, d->out.len, stdout) != d->out.len)
        d->write_failed = 1;
    afmt_cli_buf_reset(&d->out, (size_t)1 << 20);
}

static void put_real(afmt_cli_buf *b, double v, int digits)
{
    afmt_cli_buf_printf(b, "%.*g", digits, v);
}

static void put_complex(afmt_cli_buf *b, double re, double im, int digits)
{
    char sign = '+';

    if (signbit(im)) {
        sign = '-';
        im = -im;
    }
    afmt_cli_buf_printf(b, "%.*g%c%.*gi", digits, re, sign, digits, im);
}

/* One element of plain, little-endian (native) data. */
static void put_value(afmt_cli_buf *b, afmt_dtype t, uint64_t elsize,
                      const uint8_t *p)
{
    static const char hex[] = "0123456789abcdef";
    int8_t i8; int16_t i16; int32_t i32; int64_t i64;
    uint8_t u8; uint16_t u16, h2; uint32_t u32; uint64_t u64;
    float f, g;
    double x, y;
    uint64_t k;

    switch (t) {
    case AFMT_BOOL:
        afmt_cli_buf_puts(b, p[0] ? "true" : "false");
        break;
    case AFMT_I8: memcpy(&i8, p, 1); afmt_cli_buf_printf(b, "%d", (int)i8); break;
    case AFMT_I16: memcpy(&i16, p, 2); afmt_cli_buf_printf(b, "%d", (int)i16); break;
    case AFMT_I32: memcpy(&i32, p, 4); afmt_cli_buf_printf(b, "%" PRId32, i32); break;
    case AFMT_I64: memcpy(&i64, p, 8); afmt_cli_buf_printf(b, "%" PRId64, i64); break;
    case AFMT_U8: memcpy(&u8, p, 1); afmt_cli_buf_printf(b, "%u", (unsigned)u8); break;
    case AFMT_U16: memcpy(&u16, p, 2); afmt_cli_buf_printf(b, "%u", (unsigned)u16); break;
    case AFMT_U32: memcpy(&u32, p, 4); afmt_cli_buf_printf(b, "%" PRIu32, u32); break;
    case AFMT_U64: memcpy(&u64, p, 8); afmt_cli_buf_printf(b, "%" PRIu64, u64); break;
    /* Digits: the fewest that round-trip each type (5, 4, 9, 17). */
    case AFMT_F16: memcpy(&u16, p, 2); put_real(b, afmt_f16_to_double(u16), 5); break;
    case AFMT_BF16: memcpy(&u16, p, 2); put_real(b, afmt_bf16_to_double(u16), 4); break;
    case AFMT_F32: memcpy(&f, p, 4); put_real(b, (double)f, 9); break;
    case AFMT_F64: memcpy(&x, p, 8); put_real(b, x, 17); break;
    case AFMT_C32:
        memcpy(&u16, p, 2);
        memcpy(&h2, p + 2, 2);
        put_complex(b, afmt_f16_to_double(u16), afmt_f16_to_double(h2), 5);
        break;
    case AFMT_C64:
        memcpy(&f, p, 4);
        memcpy(&g, p + 4, 4);
        put_complex(b, (double)f, (double)g, 9);
        break;
    case AFMT_C128:
        memcpy(&x, p, 8);
        memcpy(&y, p + 8, 8);
        put_complex(b, x, y, 17);
        break;
    default: /* opaque: the bytes in hex */
        for (k = 0; k < elsize; k++) {
            afmt_cli_buf_putc(b, hex[p[k] >> 4]);
            afmt_cli_buf_putc(b, hex[p[k] & 15]);
        }
        if (elsize == 0)
            afmt_cli_buf_puts(b, "-");
        break;
    }
}

/* a decoded into d->plain, row-major, and *v its plain view.  0, or -1
 * with d->err. */
static int decode_array(dump_ctx *d, const afmt_array *a, afmt_array *v)
{
    uint64_t size;

    if (afmt_array_plain_size(a, &size, &d->err) != 0)
        return -1;
    if (size > DUMP_MAX_BYTES)
        return afmt_cli_fail(&d->err, AFMT_E_LIMIT, NULL, a->offset,
                             "array [%" PRIu64 "] needs %" PRIu64 " bytes decoded; dump "
                             "refuses more than %" PRIu64 " (1 GiB)",
                             d->index, size, DUMP_MAX_BYTES);
    if (size > d->plain_cap) {
        uint8_t *p = realloc(d->plain, (size_t)size);
        if (!p)
            return afmt_cli_fail(&d->err, AFMT_E_NOMEM, NULL, a->offset,
                                 "cannot allocate %" PRIu64 " bytes", size);
        d->plain = p;
        d->plain_cap = size;
    }
    if (afmt_array_to_plain(a, AFMT_ROW_MAJOR, d->plain, size, &d->err) != 0)
        return -1;
    afmt_array_plain_view(a, AFMT_ROW_MAJOR, d->plain, v);
    return 0;
}

/* One Futhark text value a line, as `futhark dataset --text`.  0, or -1
 * with d->err. */
static int print_text(dump_ctx *d, const afmt_array *v)
{
    if (afmt_futhark_text_write(v, &d->text_sink, &d->err) == 0 &&
        afmt_sink_put(&d->text_sink, "\n", 1, &d->err) == 0)
        return 0;
    if (d->err.code == AFMT_E_TYPE)
        snprintf(d->err.message + strlen(d->err.message),
                 sizeof d->err.message - strlen(d->err.message),
                 "; 'afmt dump --list' lists them");
    if (d->err.code == AFMT_E_IO)
        d->write_failed = 1;
    return -1;
}

/* --list: a header line, then one element a line.  0, or -1 with
 * d->err. */
static int print_list(dump_ctx *d, const afmt_array *a, const afmt_array *v)
{
    uint64_t k, es = v->elsize;

    afmt_cli_buf_puts(&d->out, "# ");
    afmt_cli_put_array_label(&d->out, d->index, a);
    afmt_cli_buf_putc(&d->out, '\n');
    for (k = 0; k < v->count; k++) {
        put_value(&d->out, v->dtype, es, d->plain + k * es);
        afmt_cli_buf_putc(&d->out, '\n');
        if (d->out.len >= DUMP_FLUSH_BYTES)
            flush_out(d);
    }
    if (d->out.oom)
        return afmt_cli_fail(&d->err, AFMT_E_NOMEM, NULL, a->offset,
                             "out of memory formatting values");
    flush_out(d);
    return 0;
}

static int dump_array(void *ctx, const afmt_array *a)
{
    dump_ctx *d = ctx;
    afmt_array v;

    if (decode_array(d, a, &v) != 0 || (d->list ? print_list(d, a, &v) : print_text(d, &v)) != 0) {
        d->failed = 1;
        afmt_cli_array_text_label(d->failed_label, sizeof d->failed_label, d->index, a);
        return 1;
    }
    d->index++;
    return 0;
}

static void count_warning(void *ctx, const afmt_error *warning)
{
    afmt_cli_print_warning((const char *)ctx, warning);
}

static void dump_usage(FILE *f)
{
    fprintf(f,
"Usage: afmt dump [OPTION]... FILE\n"
"Validate FILE (or one member of an archive, ARCHIVE:NAME), then\n"
"print every array it holds as a Futhark text value,\n"
"one per line, as `futhark dataset --text` does:\n"
"  [[0i32, 1i32, 2i32], [3i32, 4i32, 5i32]]\n"
"Values are in logical row-major order whatever the file's storage order;\n"
"every number has its type suffix; an array with a zero dimension is\n"
"empty([2][0]i16); floats have the fewest digits that read back to the\n"
"same bits (f32.nan, f32.inf, -f32.inf).  Every Futhark reader reads this\n"
"back, and 'afmt convert OUT.txt X.bin --to futhark' makes the binary.\n"
"Futhark text has no bf16, complex or opaque values: such an array is\n"
"refused (exit 1); --list prints it.  FILE \"-\" is standard input; an\n"
"http:// or https:// URL is fetched whole (as afmt-validate takes it; up\n"
"to 1 GiB).  An array that decodes to more than 1 GiB is refused.\n"
"\n"
"With --list, each array is a header line\n"
"  # [INDEX] NAME DTYPE[SHAPE] ORDER\n"
"then one value per line: integers in decimal; floats with the digits\n"
"that round-trip their type (f16 5, bf16 4, f32 9, f64 17 significant\n"
"digits; nan, inf, -inf); complex numbers as RE+IMi or RE-IMi; bool as\n"
"true or false; opaque elements as hex bytes.\n"
"\n"
"Options:\n"
"  -f, --format NAME  do not detect: read FILE as format NAME\n"
"      --spec FILE    do not detect: read FILE as the format the spec FILE\n"
"                     describes, with afmt's reference interpreter (no build\n"
"                     step; see afmt-validate --help)\n"
"      --list         the listing above instead of Futhark text\n"
"      --strict       accept exactly what a conforming writer produces\n"
"                     (the default)\n"
"      --lenient      accept what the reference readers tolerate\n"
"                     (warnings on standard error)\n"
AFMT_CLI_LIMIT_HELP
"  -h, --help         print this help and exit\n"
"\n"
"Examples (the files are in the afmt sources' examples/ folder):\n"
"  afmt dump examples/i32_2x3.bin\n"
"  afmt dump --list examples/test.ra\n"
"  afmt dump examples/i32_2x3.bin > i32_2x3.txt\n"
"  afmt convert i32_2x3.txt i32_2x3.bin --to futhark\n"
"  afmt dump --lenient examples/invalid/bool_byte_2.bin\n"
"  cat examples/f8_2x3.npy | afmt dump -\n"
"\n"
"Exit status: 0 printed, 1 FILE invalid or an array refused, 2 usage or\n"
"I/O error.\n");
}

enum { D_HELP = 1, D_FORMAT, D_LENIENT, D_STRICT, D_LIST, D_SPEC };

static const afmt_cli_optdef dump_opts[] = {
    { "help", 'h', 0, D_HELP },
    { "format", 'f', 1, D_FORMAT },
    { "spec", 0, 1, D_SPEC },
    { "lenient", 0, 0, D_LENIENT },
    { "strict", 0, 0, D_STRICT },
    { "list", 0, 0, D_LIST },
    AFMT_CLI_LIMIT_OPTDEFS,
    { NULL, 0, 0, 0 }
};

/* What the command line asks for. */
typedef struct dump_args {
    const char *path;
    const afmt_format *forced;   /* --format / --spec, or NULL: detect */
    const afmt_interp *spec;     /* --spec's interpreter, or NULL */
    afmt_options opt;
    int list;                    /* --list */
} dump_args;

/* --format or --spec, given once: -1 to go on, else the exit status. */
static int take_format(dump_args *a, int id, const char *val)
{
    if (a->forced)
        return afmt_cli_usage_error("afmt dump", "give one of --format and --spec, once");
    if (id == D_FORMAT) {
        a->forced = afmt_cli_format_arg("afmt dump", val);
    } else {
        a->spec = afmt_cli_spec_arg("afmt dump", val);
        a->forced = a->spec ? afmt_interp_format(a->spec) : NULL;
    }
    return a->forced ? -1 : afmt_cli_usage_error("afmt dump", NULL);
}

/* One option or operand: -1 to go on, else the exit status. */
static int take_arg(dump_args *a, int id, const char *val)
{
    switch (id) {
    case AFMT_CLI_ARGS_ERROR:
        return AFMT_EXIT_ERROR;
    case AFMT_CLI_ARGS_OPERAND:
        if (a->path)
            return afmt_cli_usage_error("afmt dump", "one FILE only ('%s' is extra)", val);
        a->path = val;
        return -1;
    case D_HELP:
        dump_usage(stdout);
        return AFMT_EXIT_OK;
    case D_FORMAT:
    case D_SPEC:
        return take_format(a, id, val);
    case D_LENIENT:
        a->opt.mode = AFMT_LENIENT;
        return -1;
    case D_STRICT:
        a->opt.mode = AFMT_STRICT;
        return -1;
    case D_LIST:
        a->list = 1;
        return -1;
    default:
        if (afmt_cli_limit_option("afmt dump", id, val, &a->opt.limits) < 0)
            return afmt_cli_usage_error("afmt dump", NULL);
        return -1;
    }
}

/* The command line into *a: -1 to go on, else the exit status. */
static int parse_args(dump_args *a, int argc, char **argv, int first)
{
    afmt_cli_args args;
    const char *val;
    int id, rc;

    memset(a, 0, sizeof *a);
    afmt_options_default(&a->opt);
    afmt_cli_args_init(&args, argc, argv, first, dump_opts, "afmt dump");
    while ((id = afmt_cli_args_next(&args, &val)) != AFMT_CLI_ARGS_END)
        if ((rc = take_arg(a, id, val)) >= 0)
            return rc;
    return a->path ? -1 : afmt_cli_usage_error("afmt dump", "no FILE");
}

/* Pass 2 over a valid input: print each array as the validator meets it.
 * The exit status, said. */
static int print_arrays(const dump_args *a, afmt_cli_loaded *l, dump_ctx *d)
{
    char desc[AFMT_FIELD_MAX + AFMT_MESSAGE_MAX + 64];
    afmt_visitor vis;
    afmt_error err;
    int invalid, rc = AFMT_EXIT_OK;

    d->path = a->path;
    d->shown_path = afmt_cli_quote_name(a->path, d->quoted, sizeof d->quoted);
    d->list = a->list;
    afmt_sink_stdio(&d->text_sink, stdout);
    afmt_cli_buf_init(&d->out);
    afmt_error_clear(&d->err);
    afmt_cli_visitor_init(&vis, d);
    vis.on_array = dump_array;
    afmt_error_clear(&err);
    invalid = afmt_cli_loaded_run(l, &a->opt, &vis, &err) != 0;
    if (invalid && d->failed) {
        afmt_error_describe(&d->err, desc, sizeof desc);
        fprintf(stderr, "afmt dump: %s: array %s: %s\n", d->shown_path, d->failed_label, desc);
        rc = d->err.code == AFMT_E_NOMEM ? AFMT_EXIT_ERROR : AFMT_EXIT_INVALID;
    } else if (invalid) {
        afmt_error_describe(&err, desc, sizeof desc);
        fprintf(stderr, "%s: invalid %s: %s%s\n", d->shown_path, l->fmt->name, desc, afmt_cli_limit_hint(&err));
        rc = AFMT_EXIT_INVALID;
    }
    flush_out(d);
    if (fflush(stdout) != 0 || d->write_failed) {
        fprintf(stderr, "afmt dump: error writing standard output\n");
        rc = AFMT_EXIT_ERROR;
    }
    afmt_cli_buf_free(&d->out);
    free(d->plain);
    return rc;
}

int afmt_cli_dump_main(int argc, char **argv, int first)
{
    dump_args a;
    afmt_cli_loaded l;
    afmt_visitor vis;
    dump_ctx *d;
    int rc = parse_args(&a, argc, argv, first);

    if (rc >= 0)
        return rc;
    rc = afmt_cli_load(&l, "afmt dump", a.path, a.forced, "--format");
    if (rc != 0)
        return rc;
    l.interp = a.spec;
    /* Pass 1: is it valid at all? */
    afmt_cli_visitor_init(&vis, (void *)a.path);
    vis.on_warning = count_warning;
    if ((rc = afmt_cli_loaded_validate(&l, &a.opt, &vis)) != 0) {
        /* said */
    } else if (!(d = calloc(1, sizeof *d))) {
        fprintf(stderr, "afmt dump: out of memory\n");
        rc = AFMT_EXIT_ERROR;
    } else {
        rc = print_arrays(&a, &l, d);
        free(d);
    }
    afmt_cli_loaded_close(&l);
    return rc;
}
