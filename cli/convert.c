/* afmt CLI: afmt convert -- rewrite the arrays of one file in another
 * format (or the same one), optionally casting the element type.
 *
 * IN is validated and its arrays collected; each is decoded to plain data
 * in the target's storage order, cast if asked, checked against the target
 * (can_write, which needs the data), and all are written through a file
 * sink that writes OUT under a temporary name and renames it into place
 * only when everything succeeded.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "afmt_internal.h"
#include "args.h"
#include "cli.h"
#include "formats.h"
#include "limit_opts.h"
#include "load.h"
#include "npz.h"
#include "spec.h"

typedef struct collect_ctx {
    const char *path;
    afmt_array *arrays;
    size_t n, cap;
    int oom;
    const uint8_t *trailer;
    uint64_t trailer_len;
    uint8_t *metadata; /* a copy: a stream's header is gone once read */
    uint64_t metadata_len;
} collect_ctx;

static int collect_array(void *ctx, const afmt_array *a)
{
    collect_ctx *c = ctx;

    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 4;
        afmt_array *p = realloc(c->arrays, cap * sizeof *p);
        if (!p) {
            c->oom = 1;
            return 1;
        }
        c->arrays = p;
        c->cap = cap;
    }
    c->arrays[c->n++] = *a;
    return 0;
}

static void collect_trailer(void *ctx, const uint8_t *data, uint64_t len,
                            uint64_t offset)
{
    collect_ctx *c = ctx;

    (void)offset;
    c->trailer = data;
    c->trailer_len = len;
}

/* The file's metadata (safetensors' __metadata__), written back by a
 * target that has metadata.  Bounded by the header it came from. */
static void collect_metadata(void *ctx, const uint8_t *json, uint64_t len, uint64_t offset)
{
    collect_ctx *c = ctx;

    (void)offset;
    free(c->metadata);
    c->metadata = NULL;
    c->metadata_len = 0;
    if (len >= SIZE_MAX || !(c->metadata = malloc((size_t)len ? (size_t)len : 1))) {
        c->oom = 1;
        return;
    }
    memcpy(c->metadata, json, (size_t)len);
    c->metadata_len = len;
}

static void collect_warning(void *ctx, const afmt_error *warning)
{
    afmt_cli_print_warning(((collect_ctx *)ctx)->path, warning);
}

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
"required).  IN may be a member of a NumPy archive, ARCHIVE.npz:NAME;\n"
"--to npz (or OUT ending in .npz) writes one, each array a stored member\n"
"NAME.npy (arr_I.npy when unnamed).\n"
"\n"
"Options:\n"
"      --from NAME    do not detect: read IN as format NAME\n"
"      --spec FILE    do not detect: read IN as the format the spec FILE\n"
"                     describes, with afmt's reference interpreter (no build\n"
"                     step; see afmt-validate --help).  Reading only: --to\n"
"                     names a format afmt was built with\n"
"      --to NAME      write OUT as format NAME (or npz: a NumPy archive)\n"
"      --text         with --to futhark: write Futhark text values, one a\n"
"                     line (as 'afmt dump' prints them), not binary ones\n"
"      --dtype TYPE   cast elements to TYPE (bool, i8, i16, i32, i64, u8,\n"
"                     u16, u32, u64, f16, bf16, f32, f64, c32, c64, c128);\n"
"                     refused (naming the element by its logical index,\n"
"                     as afmt dump orders it) if a value would change,\n"
"                     unless\n"
"      --allow-lossy  let casts change values: an integer target saturates\n"
"                     (out of range -> its min or max), fractions truncate\n"
"                     toward 0, NaN becomes 0; a float target rounds to\n"
"                     nearest (too large -> +-inf); imaginary parts are\n"
"                     dropped; bool is true for any nonzero value\n"
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
       C_KEEP_NAMES };

static const afmt_cli_optdef convert_opts[] = {
    { "help", 'h', 0, C_HELP },
    { "from", 0, 1, C_FROM },
    { "spec", 0, 1, C_SPEC },
    { "to", 0, 1, C_TO },
    { "dtype", 0, 1, C_DTYPE },
    { "allow-lossy", 0, 0, C_LOSSY },
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

/* The view target->can_write and target->write see for array a. */
static void target_view(const afmt_array *a, const afmt_format *target,
                        afmt_dtype dtype, const uint8_t *data, afmt_array *out)
{
    afmt_array tmp;

    if (dtype == AFMT_DTYPE_INVALID || dtype == a->dtype) {
        afmt_array_plain_view(a, target->order, data, out);
        return;
    }
    afmt_array_plain_view(a, target->order, NULL, &tmp);
    tmp.dtype = dtype;
    tmp.elsize = afmt_dtype_get(dtype)->size;
    afmt_array_plain_view(&tmp, target->order, data, out);
}

/* A refused cast names element k of the plain data it was casting, which
 * is in `order` (the target's storage order): say it as the logical index
 * afmt dump shows, "[0,1]", so the user finds the value there. */
static void name_logical_element(afmt_error *err, const afmt_array *a, afmt_order order)
{
    char idx[AFMT_RANK_CAP * 21 + 3], rest[AFMT_MESSAGE_MAX], out[sizeof idx + AFMT_MESSAGE_MAX + 16];
    uint64_t k, sub[AFMT_RANK_CAP];
    unsigned long long kk;
    size_t len = 0;
    uint32_t d;
    int off = -1;

    if (err->code != AFMT_E_LOSSY || sscanf(err->message, "element %llu: %n", &kk, &off) != 1 || off < 0 ||
        a->rank > AFMT_RANK_CAP || kk >= a->count)
        return;
    k = kk;
    /* row-major: the last index varies fastest; column-major: the first */
    for (d = 0; d < a->rank; d++) {
        uint32_t axis = order == AFMT_COL_MAJOR ? d : a->rank - 1 - d;
        sub[axis] = a->dims[axis] ? k % a->dims[axis] : 0;
        k = a->dims[axis] ? k / a->dims[axis] : 0;
    }
    idx[len++] = '[';
    for (d = 0; d < a->rank; d++)
        len += (size_t)snprintf(idx + len, sizeof idx - len, "%s%" PRIu64, d ? "," : "", sub[d]);
    snprintf(idx + len, sizeof idx - len, "]");
    snprintf(rest, sizeof rest, "%s", err->message + off);
    snprintf(out, sizeof out, "element %s: %s", idx, rest);
    memcpy(err->message, out, sizeof err->message - 1); /* cut if it must be */
    err->message[sizeof err->message - 1] = '\0';
}

static int describe_refusal(const char *in, size_t i, const afmt_array *a,
                            const char *what, const afmt_error *err)
{
    char d[8192], e[AFMT_FIELD_MAX + AFMT_MESSAGE_MAX + 64];

    afmt_array_describe(a, d, sizeof d);
    afmt_error_describe(err, e, sizeof e);
    fprintf(stderr, "afmt convert: %s: array [%zu] %s: %s: %s%s\n", in, i, d, what,
            err->field[0] ? e : err->message,
            err->code == AFMT_E_LOSSY ? " (use --allow-lossy to accept)" : "");
    if (err->code == AFMT_E_NOMEM || err->code == AFMT_E_IO)
        return AFMT_EXIT_ERROR;
    return AFMT_EXIT_INVALID;
}

/* Does the target take this one array as it is? */
static int target_takes(const afmt_format *target, const afmt_array *v)
{
    afmt_error err;
    uint64_t size;

    afmt_error_clear(&err);
    return target->can_write(v, &err) == 0 && target->encoded_size(v, 1, NULL, &size, &err) == 0;
}

/* Names are labels, not values: a name the target cannot hold (tenbin's
 * 8 bytes of info, for a safetensors key such as "layer.0.weight") is
 * shortened to its longest prefix the target takes, or dropped, and
 * stderr says so.  Returns 1 when the view now fits, 0 when its name was
 * not what stood in the way (or keep_names forbids changing it). */
static int fit_name(const char *in, size_t i, const afmt_format *target, int keep_names,
                    afmt_array *view)
{
    afmt_array t;
    size_t k = strnlen(view->name, sizeof view->name);

    if (keep_names || (k == 0 && view->name_len == 0))
        return 0;
    t = *view;
    t.name_len = 0;
    for (;;) {
        t.name[k] = '\0';
        if (target_takes(target, &t))
            break;
        if (k == 0)
            return 0;
        k--;
    }
    if (k > 0)
        fprintf(stderr, "afmt convert: %s: array [%zu]: name \"%s\" shortened to \"%s\": %s "
                        "holds no longer name (--keep-names refuses instead)\n",
                in, i, view->name, t.name, target->name);
    else
        fprintf(stderr, "afmt convert: %s: array [%zu]: name \"%s\" dropped: %s cannot hold it "
                        "(--keep-names refuses instead)\n", in, i, view->name, target->name);
    *view = t;
    return 1;
}

/* Can the target hold this array (type, shape, and for bool the values)?
 * The writers check with the data at hand, so this runs after decoding. */
static int check_target(const char *in, size_t i, const afmt_format *target, int keep_names,
                        afmt_array *view, int *rc)
{
    afmt_error err;
    char what[64];

    afmt_error_clear(&err);
    if (target->can_write(view, &err) == 0) {
        /* a name the writer refuses: shortened (else refused when written) */
        if (!target_takes(target, view))
            fit_name(in, i, target, keep_names, view);
        return 0;
    }
    if (fit_name(in, i, target, keep_names, view))
        return 0;
    snprintf(what, sizeof what, "cannot be written as %s", target->name);
    *rc = describe_refusal(in, i, view, what, &err);
    return -1;
}

/* Bool bytes other than 0 and 1 in a plain bool array: --lenient reads
 * them (with a warning), as the reference readers do. */
static uint64_t odd_bools(const afmt_array *a)
{
    uint64_t k, odd = 0;

    if (a->dtype != AFMT_BOOL || a->encoding != AFMT_ENC_PLAIN || !a->data || a->stride == 0)
        return 0;
    for (k = 0; k < a->count; k++)
        odd += a->data[k * a->stride] > 1;
    return odd;
}

/* Convert such an array as the reference readers read it: any nonzero
 * byte is true.  Said on stderr: the output holds 1 where IN held 2. */
static void read_bools_as_true(const char *in, size_t i, uint64_t odd, uint8_t *buf,
                               uint64_t size)
{
    uint64_t k;

    for (k = 0; k < size; k++)
        buf[k] = buf[k] != 0;
    fprintf(stderr, "afmt convert: %s: array [%zu]: %" PRIu64 " bool byte%s other than 0 or 1 "
                    "read as true and written as 1 (--lenient)\n", in, i, odd,
            odd == 1 ? "" : "s");
}

/* The target's sidecar (DAPHNE's OUT.meta), written the same all-or-
 * nothing way as the data. */
static int write_sidecar(const afmt_format *target, const afmt_array *views, size_t n, const char *out)
{
    char path[4200], *json;
    size_t len = 0;
    afmt_sink sink;
    afmt_error err;
    int rc = -1;
    json = malloc(AFMT_META_MAX_BYTES);
    if (!json) {
        fprintf(stderr, "afmt convert: out of memory\n");
        return -1;
    }
    snprintf(path, sizeof path, "%s%s", out, target->sidecar->suffix);
    afmt_error_clear(&err);
    if (afmt_meta_write(target->sidecar, views, n, json, AFMT_META_MAX_BYTES, &len, &err) != 0) {
        fprintf(stderr, "afmt convert: %s: cannot write the sidecar: %s\n", path, err.message);
    } else if (afmt_sink_file_open(&sink, path, &err) != 0) {
        fprintf(stderr, "afmt convert: %s: error: %s\n", path, err.message);
    } else if (afmt_sink_put(&sink, json, len, &err) != 0 || afmt_sink_commit(&sink, &err) != 0) {
        afmt_sink_abort(&sink);
        fprintf(stderr, "afmt convert: %s: error: %s\n", path, err.message);
    } else {
        rc = 0;
    }
    free(json);
    return rc;
}

/* --text: each array as one Futhark text value on its own line. */
static int write_text(const afmt_array *views, size_t n, afmt_sink *sink, afmt_error *err)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (afmt_futhark_text_write(&views[i], sink, err) != 0 ||
            afmt_sink_put(sink, "\n", 1, err) != 0)
            return -1;
    return 0;
}

/* Keep the storage form where the target can hold it, and say so on
 * stderr where it must change: compression (kept by default, or as
 * --compress / --no-compress ask; *compress becomes 0 or 1) and sparse
 * matrices written dense. */
static void say_form_changes(const char *in, const collect_ctx *c, const afmt_array *views,
                             const afmt_format *target, int *compress)
{
    size_t i;
    int compressed_in = 0;

    for (i = 0; i < c->n; i++) {
        compressed_in |= c->arrays[i].encoding == AFMT_ENC_LZ4_BLOCK;
        if (views && c->arrays[i].encoding == AFMT_ENC_CSR && views[i].encoding != AFMT_ENC_CSR)
            fprintf(stderr, "afmt convert: %s: array [%zu] is sparse (CSR); %s holds it only dense: written dense\n",
                    in, i, target->name);
    }
    if (views)
        return; /* the second call, after decoding: sparse notes only */
    if (*compress < 0)
        *compress = compressed_in;
    if (*compress && !target->compresses) {
        fprintf(stderr, "afmt convert: %s: %s cannot store compressed data: written uncompressed\n",
                compressed_in ? in : "--compress", target->name);
        *compress = 0;
    }
}

/* --dtype on a CSR matrix: cast its stored values and keep the row
 * offsets and column indices, when the target can hold the result (else
 * 0: it is decoded dense like any other array).  1 with *view and *buf
 * (the cast values, the caller's to free) set; -1 with *rc after a
 * refusal, printed. */
static int cast_csr(const char *in, size_t i, const afmt_array *a, const afmt_format *target,
                    afmt_dtype dtype, int allow_lossy, afmt_array *view, uint8_t **buf, int *rc)
{
    const afmt_dtype_info *ti = afmt_dtype_get(dtype);
    afmt_array cast;
    afmt_error err;
    uint64_t bytes;

    if (a->endian != AFMT_LITTLE || a->stride != a->elsize || !a->data || ti->dtype == AFMT_DTYPE_INVALID ||
        !afmt_mul_u64(a->nnz, ti->size, &bytes) || bytes > (uint64_t)(SIZE_MAX / 2))
        return 0;
    cast = *a;
    cast.dtype = dtype;
    cast.elsize = ti->size;
    cast.stride = ti->size;
    cast.nbytes = bytes;
    afmt_error_clear(&err);
    if (target->can_write(&cast, &err) != 0)
        return 0;
    *buf = malloc(bytes ? (size_t)bytes : 1);
    if (!*buf) {
        fprintf(stderr, "afmt convert: %s: array [%zu]: cannot allocate %" PRIu64 " bytes\n", in, i, bytes);
        *rc = AFMT_EXIT_ERROR;
        return -1;
    }
    if (afmt_convert_elements(a->dtype, a->data, dtype, *buf, a->nnz, allow_lossy, &err) != 0) {
        char what[64];
        /* the index is among the stored values, not the matrix */
        if (strncmp(err.message, "element ", 8) == 0) {
            char rest[AFMT_MESSAGE_MAX];
            snprintf(rest, sizeof rest, "%s", err.message + 8);
            snprintf(err.message, sizeof err.message, "stored value %.*s", (int)sizeof err.message - 16, rest);
        }
        snprintf(what, sizeof what, "cannot cast to %s", afmt_dtype_name(dtype));
        *rc = describe_refusal(in, i, a, what, &err);
        return -1;
    }
    cast.data = *buf;
    cast.order = target->order;
    *view = cast;
    return 1;
}

/* ---------------------------------------------------------------- speed */

/* An array that needs only a transpose and/or a byte swap is not decoded
 * into a buffer of its size (fresh memory costs 0.5-5 s per GiB to touch
 * on these machines): the sink asks for it piece by piece, a few MiB at a
 * time, as it writes (afmt_sink_producer, afmt_array_to_plain_part). */
typedef struct streamed {
    const afmt_array *src;
    afmt_order order;
    afmt_sink_producer producer;
} streamed;

static int fill_piece(void *ctx, uint64_t first, uint8_t *buf, uint64_t n, afmt_error *err)
{
    const streamed *st = ctx;
    return afmt_array_to_plain_part(st->src, st->order, first, buf, n, err);
}

/* Set st up for array a when it can be streamed, and make *view the view
 * the writer sees (its data: a's own bytes, which the sink never writes as
 * they are: it sees the key and asks st for the real ones).  Bools are
 * left out: their values are checked in place by the writers. */
static int stream_array(streamed *st, const afmt_array *a, const afmt_format *target,
                        afmt_dtype dtype, afmt_array *view)
{
    uint64_t size, unit;
    afmt_error err;

    afmt_error_clear(&err);
    if ((dtype != AFMT_DTYPE_INVALID && dtype != a->dtype) || a->dtype == AFMT_BOOL ||
        afmt_array_plain_size(a, &size, &err) != 0 ||
        afmt_array_part_unit(a, target->order, &unit, &err) != 0)
        return 0;
    memset(st, 0, sizeof *st);
    st->src = a;
    st->order = target->order;
    st->producer.key = a->data;
    st->producer.size = size;
    st->producer.unit = unit;
    st->producer.fill = fill_piece;
    st->producer.ctx = st;
    afmt_array_plain_view(a, target->order, a->data, view);
    return 1;
}

/* The input file opened a second time, for copies made by the kernel
 * (afmt_sink_set_source), when it is certainly the mapped one; -1 if not. */
static int open_mapped_input(const afmt_cli_loaded *l)
{
    struct stat st;
    int fd;

    if (!l->in.map || strcmp(l->path, "-") == 0)
        return -1;
    fd = open(l->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    /* the mapping holds the inode: no other file has its number now */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_dev != l->in.map_dev ||
        (uint64_t)st.st_ino != l->in.map_ino || (uint64_t)st.st_size != l->in.map_len) {
        close(fd);
        return -1;
    }
    return fd;
}

int afmt_cli_convert_main(int argc, char **argv, int first)
{
    afmt_cli_args args;
    afmt_cli_loaded l;
    afmt_options opt;
    afmt_visitor vis;
    afmt_write_options wopt;
    afmt_error err;
    afmt_sink *sink = NULL;
    const afmt_format *from = NULL, *target = NULL, *tie = NULL;
    const afmt_interp *spec = NULL;
    const char *val, *in = NULL, *out = NULL;
    afmt_dtype dtype = AFMT_DTYPE_INVALID;
    collect_ctx c;
    afmt_array *views = NULL;
    uint8_t **bufs = NULL;
    size_t i;
    int id, rc, allow_lossy = 0, to_stdout, text = 0, is_streamed = 0, src_fd = -1;
    int keep_names = 0;
    int written_through = 0, compress = -1, to_npz = 0;
    streamed st;

    afmt_options_default(&opt);
    afmt_cli_args_init(&args, argc, argv, first, convert_opts, "afmt convert");
    while ((id = afmt_cli_args_next(&args, &val)) != AFMT_CLI_ARGS_END) {
        switch (id) {
        case AFMT_CLI_ARGS_ERROR:
            return AFMT_EXIT_ERROR;
        case AFMT_CLI_ARGS_OPERAND:
            if (!in) {
                in = val;
            } else if (!out) {
                out = val;
            } else {
                fprintf(stderr, "afmt convert: too many arguments ('%s')\n", val);
                return usage_error();
            }
            break;
        case C_HELP:
            convert_usage(stdout);
            return AFMT_EXIT_OK;
        case C_SPEC:
            if (from) {
                fprintf(stderr, "afmt convert: give one of --from and --spec, once\n");
                return usage_error();
            }
            spec = afmt_cli_spec_arg("afmt convert", val);
            if (!spec)
                return usage_error();
            from = afmt_interp_format(spec);
            break;
        case C_FROM:
            if (from) {
                fprintf(stderr, "afmt convert: give one of --from and --spec, once\n");
                return usage_error();
            }
            from = afmt_cli_format_arg("afmt convert", val);
            if (!from)
                return usage_error();
            break;
        case C_TO:
            if (strcmp(val, "npz") == 0) { /* a zip of .npy members, not a format */
                to_npz = 1;
                break;
            }
            target = afmt_cli_format_arg("afmt convert", val);
            if (!target)
                return usage_error();
            break;
        case C_DTYPE:
            dtype = afmt_dtype_from_name(val);
            if (dtype == AFMT_DTYPE_INVALID || dtype == AFMT_OPAQUE) {
                fprintf(stderr, "afmt convert: unknown element type '%s' (", val);
                afmt_cli_print_dtype_names(stderr);
                fprintf(stderr, ")\n");
                return usage_error();
            }
            break;
        case C_LOSSY:
            allow_lossy = 1;
            break;
        case C_COMPRESS:
            compress = 1;
            break;
        case C_NO_COMPRESS:
            compress = 0;
            break;
        case C_KEEP_NAMES:
            keep_names = 1;
            break;
        case C_TEXT:
            text = 1;
            break;
        case C_LENIENT:
            opt.mode = AFMT_LENIENT;
            break;
        case C_STRICT:
            opt.mode = AFMT_STRICT;
            break;
        default:
            if (afmt_cli_limit_option("afmt convert", id, val, &opt.limits) < 0)
                return usage_error();
            break;
        }
    }
    if (!in || !out) {
        fprintf(stderr, "afmt convert: needs IN and OUT\n");
        return usage_error();
    }
    to_stdout = strcmp(out, "-") == 0;
    if (!target && !to_stdout && afmt_cli_is_npz_path(out))
        to_npz = 1;
    if (to_npz) /* each array is written by npy into the archive (npz.h) */
        target = afmt_format_by_name("npy");
    if (text && !target)
        target = afmt_format_by_name("futhark");
    if (text && (!target || strcmp(target->name, "futhark") != 0)) {
        fprintf(stderr, "afmt convert: --text is Futhark's text form: use it with --to futhark\n");
        return usage_error();
    }
    if (!target) {
        target = to_stdout ? NULL : afmt_format_by_extension(out, &tie);
        if (!target) {
            if (tie)
                fprintf(stderr, "afmt convert: the extension of '%s' belongs to "
                                "several formats: use --to NAME\n", out);
            else
                fprintf(stderr, "afmt convert: cannot tell the output format from "
                                "'%s': use --to NAME (one of: ", out);
            if (!tie) {
                afmt_cli_print_format_names(stderr);
                fprintf(stderr, ")\n");
            }
            return usage_error();
        }
    }

    if (to_stdout && !text && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "afmt convert: binary data is not written to a terminal: give OUT "
                        "as a file, or pipe it\n");
        return usage_error();
    }

    rc = afmt_cli_load(&l, "afmt convert", in, from, "--from");
    if (rc != 0)
        return rc;
    l.interp = spec;
    memset(&c, 0, sizeof c);
    c.path = in;
    afmt_cli_visitor_init(&vis, &c);
    vis.on_array = collect_array;
    vis.on_warning = collect_warning;
    vis.on_trailer = collect_trailer;
    vis.on_metadata = collect_metadata;
    if (afmt_cli_loaded_validate(&l, &opt, &vis) != 0 || c.oom) {
        if (c.oom)
            fprintf(stderr, "afmt convert: out of memory\n");
        rc = c.oom ? AFMT_EXIT_ERROR : AFMT_EXIT_INVALID;
        goto done;
    }
    if (c.n > 1 && !target->multi && !to_npz) {
        fprintf(stderr, "afmt convert: %s holds %zu arrays, but %s holds one "
                        "array per file (choose a format that holds several: see "
                        "'afmt formats')\n", in, c.n, target->name);
        rc = AFMT_EXIT_INVALID;
        goto done;
    }
    if (c.n == 0 && !target->multi && !to_npz) {
        fprintf(stderr, "afmt convert: %s holds no array; %s needs one\n", in,
                target->name);
        rc = AFMT_EXIT_INVALID;
        goto done;
    }

    /* Opaque elements have no values to cast. */
    for (i = 0; i < c.n; i++) {
        if (dtype != AFMT_DTYPE_INVALID && dtype != c.arrays[i].dtype &&
            c.arrays[i].dtype == AFMT_OPAQUE) {
            afmt_error_clear(&err);
            afmt_fail(&err, AFMT_E_TYPE, NULL, NULL, AFMT_NO_INDEX, c.arrays[i].offset,
                      "opaque elements cannot be cast to %s", afmt_dtype_name(dtype));
            rc = describe_refusal(in, i, &c.arrays[i], "cannot convert", &err);
            goto done;
        }
    }

    /* Decode (and cast) every array into the target's order. */
    views = calloc(c.n ? c.n : 1, sizeof *views);
    bufs = calloc(c.n ? c.n : 1, sizeof *bufs);
    if (!views || !bufs) {
        fprintf(stderr, "afmt convert: out of memory\n");
        rc = AFMT_EXIT_ERROR;
        goto done;
    }
    say_form_changes(in, &c, NULL, target, &compress);
    for (i = 0; i < c.n; i++) {
        const afmt_array *a = &c.arrays[i];
        afmt_array plain;
        uint64_t size, tsize, odd = opt.mode == AFMT_LENIENT ? odd_bools(a) : 0;
        uint8_t *buf;

        afmt_error_clear(&err);
        if (afmt_array_plain_size(a, &size, &err) != 0) {
            rc = describe_refusal(in, i, a, "cannot decode", &err);
            goto done;
        }
        /* Already what the writer takes (plain, little-endian, contiguous,
         * in the target's order, no cast): write straight from the mapped
         * input instead of copying it into fresh memory first. */
        if (!odd && (dtype == AFMT_DTYPE_INVALID || dtype == a->dtype) &&
            ((a->encoding == AFMT_ENC_PLAIN && a->endian == AFMT_LITTLE && a->stride == a->elsize && a->nbytes >= size &&
              a->data && (a->rank <= 1 || a->order == target->order)) ||
             /* a sparse matrix stays sparse where the target can say so */
             (a->encoding == AFMT_ENC_CSR && a->endian == AFMT_LITTLE && target->can_write(a, &err) == 0))) {
            views[i] = *a;
            views[i].order = target->order;
            if (c.n == 1 && check_target(in, i, target, keep_names, &views[i], &rc) != 0)
                goto done;
            continue;
        }
        /* a sparse matrix cast keeps its form where the target can hold it */
        if (dtype != AFMT_DTYPE_INVALID && dtype != a->dtype && a->encoding == AFMT_ENC_CSR) {
            int kept = cast_csr(in, i, a, target, dtype, allow_lossy, &views[i], &bufs[i], &rc);
            if (kept < 0)
                goto done;
            if (kept) {
                if (c.n == 1 && check_target(in, i, target, keep_names, &views[i], &rc) != 0)
                    goto done;
                continue;
            }
        }
        /* (Futhark text reads the values itself) */
        if (!odd && c.n == 1 && !text && !compress && !to_npz &&
            stream_array(&st, a, target, dtype, &views[i])) {
            is_streamed = 1;
            if (check_target(in, i, target, keep_names, &views[i], &rc) != 0)
                goto done;
            continue;
        }
        if (odd && dtype != AFMT_DTYPE_INVALID && dtype != a->dtype) {
            /* the bools as --lenient read them (0 or 1), then the cast */
            uint8_t *norm = size <= (uint64_t)(SIZE_MAX / 2) ? malloc(size ? (size_t)size : 1) : NULL;
            if (!norm || afmt_array_to_plain(a, a->order, norm, size, &err) != 0) {
                free(norm);
                rc = norm ? describe_refusal(in, i, a, "cannot decode", &err) : AFMT_EXIT_ERROR;
                goto done;
            }
            read_bools_as_true(in, i, odd, norm, size);
            afmt_array_plain_view(a, a->order, norm, &plain);
            target_view(&plain, target, dtype, NULL, &views[i]);
            tsize = views[i].nbytes;
            buf = tsize <= (uint64_t)(SIZE_MAX / 2) ? malloc(tsize ? (size_t)tsize : 1) : NULL;
            bufs[i] = buf;
            if (!buf || afmt_array_to_plain_as(&plain, target->order, dtype, allow_lossy, buf, tsize,
                                               &err) != 0) {
                free(norm);
                rc = buf ? describe_refusal(in, i, a, "cannot cast", &err) : AFMT_EXIT_ERROR;
                goto done;
            }
            free(norm);
            views[i].data = buf;
            if (c.n == 1 && check_target(in, i, target, keep_names, &views[i], &rc) != 0)
                goto done;
            continue;
        }
        if (dtype != AFMT_DTYPE_INVALID && dtype != a->dtype) {
            /* decode, reorder and cast in one pass, into the one buffer */
            target_view(a, target, dtype, NULL, &views[i]);
            tsize = views[i].nbytes;
            buf = tsize <= (uint64_t)(SIZE_MAX / 2) ? malloc(tsize ? (size_t)tsize : 1) : NULL;
            if (!buf) {
                fprintf(stderr, "afmt convert: %s: array [%zu]: cannot allocate %" PRIu64
                                " bytes\n", in, i, tsize);
                rc = AFMT_EXIT_ERROR;
                goto done;
            }
            bufs[i] = buf;
            if (afmt_array_to_plain_as(a, target->order, dtype, allow_lossy, buf, tsize, &err) != 0) {
                char what[64];
                if (err.code == AFMT_E_LOSSY || err.code == AFMT_E_TYPE) {
                    name_logical_element(&err, a, target->order);
                    snprintf(what, sizeof what, "cannot cast to %s", afmt_dtype_name(dtype));
                } else {
                    snprintf(what, sizeof what, "cannot decode");
                }
                rc = describe_refusal(in, i, a, what, &err);
                goto done;
            }
            views[i].data = buf;
            if (c.n == 1 && check_target(in, i, target, keep_names, &views[i], &rc) != 0)
                goto done;
            continue;
        }
        buf = size <= (uint64_t)(SIZE_MAX / 2) ? malloc(size ? (size_t)size : 1) : NULL;
        if (!buf) {
            fprintf(stderr, "afmt convert: %s: array [%zu]: cannot allocate %" PRIu64
                            " bytes\n", in, i, size);
            rc = AFMT_EXIT_ERROR;
            goto done;
        }
        bufs[i] = buf;
        if (afmt_array_to_plain(a, target->order, buf, size, &err) != 0) {
            rc = describe_refusal(in, i, a, "cannot decode", &err);
            goto done;
        }
        if (odd)
            read_bools_as_true(in, i, odd, buf, size);
        afmt_array_plain_view(a, target->order, buf, &plain);
        views[i] = plain;
        /* several arrays may make one structure (a DAPHNE frame): they
         * are checked together below */
        if (c.n == 1 && check_target(in, i, target, keep_names, &views[i], &rc) != 0)
            goto done;
    }
    for (i = 0; to_npz && c.n > 1 && i < c.n; i++)
        if (check_target(in, i, target, keep_names, &views[i], &rc) != 0)
            goto done;
    if (c.n > 1 && !to_npz) {
        uint64_t size;
        afmt_error_clear(&err);
        if (target->encoded_size(views, c.n, NULL, &size, &err) != 0) {
            for (i = 0; i < c.n; i++) {
                if (!target_takes(target, &views[i]))
                    fit_name(in, i, target, keep_names, &views[i]);
                /* a name longer than afmt keeps: written as the bytes kept */
                if (!keep_names && views[i].name_len > strnlen(views[i].name, sizeof views[i].name)) {
                    fprintf(stderr, "afmt convert: %s: array [%zu]: a name of %" PRIu64 " bytes "
                                    "shortened to the %zu afmt keeps (--keep-names refuses instead)\n",
                            in, i, views[i].name_len, strnlen(views[i].name, sizeof views[i].name));
                    views[i].name_len = 0;
                }
            }
            afmt_error_clear(&err);
        }
        if (target->encoded_size(views, c.n, NULL, &size, &err) != 0) {
            char what[96];
            snprintf(what, sizeof what, "these %zu arrays cannot be written as one %s file", c.n, target->name);
            rc = describe_refusal(in, err.field[0] && err.code != AFMT_E_USAGE ? 0 : 0, &views[0], what, &err);
            goto done;
        }
    }

    say_form_changes(in, &c, views, target, &compress);

    /* Write, all or nothing. */
    memset(&wopt, 0, sizeof wopt);
    wopt.compress = compress;
    if (target == l.fmt && c.trailer_len) {
        wopt.trailer = c.trailer;
        wopt.trailer_len = c.trailer_len;
    }
    wopt.metadata = c.metadata;
    wopt.metadata_len = c.metadata_len;
    sink = calloc(1, sizeof *sink);
    if (!sink) {
        fprintf(stderr, "afmt convert: out of memory\n");
        rc = AFMT_EXIT_ERROR;
        goto done;
    }
    afmt_error_clear(&err);
    if (to_stdout) {
        afmt_sink_stdio(sink, stdout);
    } else if (afmt_sink_file_open(sink, out, &err) != 0) {
        fprintf(stderr, "afmt convert: %s: error: %s\n", out, err.message);
        rc = AFMT_EXIT_ERROR;
        goto done;
    }
    if (is_streamed)
        afmt_sink_set_producer(sink, &st.producer);
    src_fd = open_mapped_input(&l);
    if (src_fd >= 0)
        afmt_sink_set_source(sink, l.in.map, l.in.map_len, src_fd);
    rc = text     ? write_text(views, c.n, sink, &err)
         : to_npz ? afmt_cli_npz_write(target, views, c.n, sink, &err)
                  : target->write(views, c.n, &wopt, sink, &err);
    if (rc == 0 && is_streamed && st.producer.produced != st.producer.size) {
        /* a writer that read the view's data itself wrote the wrong bytes */
        afmt_error_clear(&err);
        rc = afmt_fail(&err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, 0,
                       "internal error: %s's writer did not take the payload from the sink",
                       target->name);
    }
    if (rc != 0) {
        char e[AFMT_FIELD_MAX + AFMT_MESSAGE_MAX + 64];
        if (!to_stdout)
            afmt_sink_abort(sink);
        afmt_error_describe(&err, e, sizeof e);
        fprintf(stderr, "afmt convert: %s: cannot write %s: %s\n", out, target->name,
                err.field[0] ? e : err.message);
        rc = err.code == AFMT_E_IO || err.code == AFMT_E_NOMEM ? AFMT_EXIT_ERROR
                                                               : AFMT_EXIT_INVALID;
        goto done;
    }
    if (to_stdout) {
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "afmt convert: error writing standard output\n");
            rc = AFMT_EXIT_ERROR;
            goto done;
        }
    }
    written_through = !to_stdout && sink->through;
    if (!to_stdout && afmt_sink_commit(sink, &err) != 0) {
        fprintf(stderr, "afmt convert: %s: error: %s\n", out, err.message);
        rc = AFMT_EXIT_ERROR;
        goto done;
    }
    if (written_through && target->sidecar) {
        /* OUT.meta beside a device or FIFO would be a stray file in its
         * directory (/dev): say so rather than make it */
        fprintf(stderr, "afmt convert: %s is not a regular file: no %s sidecar written\n", out,
                target->sidecar->suffix);
    } else if (!to_stdout && target->sidecar && write_sidecar(target, views, c.n, out) != 0) {
        rc = AFMT_EXIT_ERROR;
        goto done;
    }
    rc = AFMT_EXIT_OK;

done:
    if (src_fd >= 0)
        close(src_fd);
    if (bufs)
        for (i = 0; i < c.n; i++)
            free(bufs[i]);
    free(bufs);
    free(views);
    free(sink);
    free(c.arrays);
    free(c.metadata);
    afmt_cli_loaded_close(&l);
    return rc;
}
