/* afmt CLI: afmt random -- arrays of random values, like `futhark dataset
 * -g`, written in any format afmt writes.
 *
 * Each TYPE operand ("[10][20]f32", "i64") is one array.  Values come from
 * one xoshiro256** generator seeded (through splitmix64) by --seed, filled
 * in logical row-major order whatever the target's storage order, so the
 * same seed gives the same arrays in every format.  Integers are uniform in
 * their bounds (inclusive; rejection sampling, no modulo bias); floats are
 * uniform reals in [LO, HI] rounded to the type, redrawn when rounding
 * leaves the bounds; complex numbers draw both parts from their part
 * type's bounds (c64: f32, c128: f64).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "afmt.h"
#include "cleanup.h"
#include "args.h"
#include "cli.h"
#include "fail.h"
#include "formats.h"
#include "out_format.h"

#define MAX_ARRAYS 256
/* Redraws of a float before concluding that no value of the type lies in
 * its bounds. */
#define FLOAT_TRIES 1000

typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed)
{
    int i;
    for (i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman and Vigna): fast, and good in every bit. */
static uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform in [0, range] (range = UINT64_MAX: any value), unbiased:
 * draws below 2^64 mod (range + 1) are redrawn. */
static uint64_t rng_upto(rng *r, uint64_t range)
{
    uint64_t n = range + 1, floor, v;
    if (range == UINT64_MAX)
        return rng_next(r);
    floor = (0 - n) % n;
    do
        v = rng_next(r);
    while (v < floor);
    return v % n;
}

/* Uniform in [0, 1]. */
static double rng_unit(rng *r)
{
    return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740991.0);
}

/* ---------------------------------------------------------------- bounds */

typedef struct bounds {
    int set;
    int64_t ilo, ihi;    /* signed types */
    uint64_t ulo, uhi;   /* unsigned types */
    double flo, fhi;     /* float types */
} bounds;

static int is_signed(afmt_dtype t)
{
    return t == AFMT_I8 || t == AFMT_I16 || t == AFMT_I32 || t == AFMT_I64;
}

static int is_unsigned(afmt_dtype t)
{
    return t == AFMT_U8 || t == AFMT_U16 || t == AFMT_U32 || t == AFMT_U64;
}

static int is_float(afmt_dtype t)
{
    return t == AFMT_F16 || t == AFMT_BF16 || t == AFMT_F32 || t == AFMT_F64;
}

static void default_bounds(afmt_dtype t, bounds *b)
{
    unsigned bits = (unsigned)afmt_dtype_get(t)->size * 8;
    memset(b, 0, sizeof *b);
    if (is_signed(t)) {
        b->ihi = bits == 64 ? INT64_MAX : (int64_t)((UINT64_C(1) << (bits - 1)) - 1);
        b->ilo = -b->ihi - 1;
    } else if (is_unsigned(t)) {
        b->uhi = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    } else {
        b->flo = 0.0;
        b->fhi = 1.0;
    }
}

/* "LO:HI" for type t, within the type's range.  0, or -1 with a message. */
static int parse_bounds(afmt_dtype t, const char *s, bounds *b)
{
    const char *colon = strchr(s, ':');
    char lo[128], hi[128], *end;
    bounds full;

    default_bounds(t, &full);
    if (!colon || (size_t)(colon - s) >= sizeof lo || strlen(colon + 1) >= sizeof hi) {
        fprintf(stderr, "afmt random: --%s-bounds needs LO:HI, not '%s'\n", afmt_dtype_name(t), s);
        return -1;
    }
    memcpy(lo, s, (size_t)(colon - s));
    lo[colon - s] = '\0';
    strcpy(hi, colon + 1);
    *b = full;
    b->set = 1;
    errno = 0;
    if (is_signed(t)) {
        b->ilo = strtoll(lo, &end, 10);
        if (errno || *end || !*lo || b->ilo < full.ilo) goto bad;
        b->ihi = strtoll(hi, &end, 10);
        if (errno || *end || !*hi || b->ihi > full.ihi || b->ihi < b->ilo) goto bad;
    } else if (is_unsigned(t)) {
        if (lo[0] == '-' || hi[0] == '-') goto bad;
        b->ulo = strtoull(lo, &end, 10);
        if (errno || *end || !*lo) goto bad;
        b->uhi = strtoull(hi, &end, 10);
        if (errno || *end || !*hi || b->uhi > full.uhi || b->uhi < b->ulo) goto bad;
    } else {
        b->flo = strtod(lo, &end);
        if (errno || *end || !*lo || !isfinite(b->flo)) goto bad;
        b->fhi = strtod(hi, &end);
        if (errno || *end || !*hi || !isfinite(b->fhi) || b->fhi < b->flo) goto bad;
    }
    return 0;
bad:
    fprintf(stderr, "afmt random: --%s-bounds=%s: need LO:HI with LO <= HI, both %s values\n",
            afmt_dtype_name(t), s, afmt_dtype_name(t));
    return -1;
}

/* ---------------------------------------------------------------- values */

/* One float of type t (f16, bf16, f32, f64) in [lo, hi] into p. */
static int random_float(rng *r, afmt_dtype t, double lo, double hi, uint8_t *p, afmt_error *err)
{
    int k;
    for (k = 0; k < FLOAT_TRIES; k++) {
        double u = rng_unit(r), v = lo * (1.0 - u) + hi * u, back;
        if (v < lo) v = lo;
        if (v > hi) v = hi;
        if (afmt_convert_elements(AFMT_F64, (const uint8_t *)&v, t, p, 1, 1, err) != 0 ||
            afmt_convert_elements(t, p, AFMT_F64, (uint8_t *)&back, 1, 1, err) != 0)
            return -1;
        if (back >= lo && back <= hi)
            return 0;
    }
    return afmt_cli_fail(err, AFMT_E_VALUE, NULL, 0,
                         "no %s value lies between %.17g and %.17g", afmt_dtype_name(t), lo, hi);
}

/* Fill count elements of type t at out. */
static int fill(rng *r, afmt_dtype t, const bounds *bt, const bounds *part, uint8_t *out,
                uint64_t count, afmt_error *err)
{
    uint64_t k, es = afmt_dtype_get(t)->size;

    for (k = 0; k < count; k++) {
        uint8_t *p = out + k * es;
        if (t == AFMT_BOOL) {
            p[0] = (uint8_t)(rng_next(r) >> 63);
        } else if (is_signed(t)) {
            uint64_t range = (uint64_t)bt->ihi - (uint64_t)bt->ilo;
            int64_t v = (int64_t)((uint64_t)bt->ilo + rng_upto(r, range));
            memcpy(p, &v, (size_t)es); /* little-endian: the low bytes */
        } else if (is_unsigned(t)) {
            uint64_t v = bt->ulo + rng_upto(r, bt->uhi - bt->ulo);
            memcpy(p, &v, (size_t)es);
        } else if (is_float(t)) {
            if (random_float(r, t, bt->flo, bt->fhi, p, err) != 0)
                return -1;
        } else { /* complex: two parts of the part type */
            afmt_dtype pt = t == AFMT_C32 ? AFMT_F16 : t == AFMT_C64 ? AFMT_F32 : AFMT_F64;
            if (random_float(r, pt, part->flo, part->fhi, p, err) != 0 ||
                random_float(r, pt, part->flo, part->fhi, p + es / 2, err) != 0)
                return -1;
        }
    }
    return 0;
}

/* "[10][20]f32" -> dtype and dims.  0 or -1 (message printed). */
static int parse_type(const char *s, afmt_array *a)
{
    const char *p = s;
    afmt_dtype t;

    memset(a, 0, sizeof *a);
    a->count = 1;
    while (*p == '[') {
        char *end;
        unsigned long long d;
        if (a->rank == AFMT_RANK_CAP) {
            fprintf(stderr, "afmt random: '%s': more than %d dimensions\n", s, AFMT_RANK_CAP);
            return -1;
        }
        errno = 0;
        if (!(p[1] >= '0' && p[1] <= '9'))
            goto bad;
        d = strtoull(p + 1, &end, 10);
        if (errno || *end != ']' || d > (unsigned long long)INT64_MAX)
            goto bad;
        a->dims[a->rank++] = (uint64_t)d;
        if (d && a->count > UINT64_MAX / d) {
            fprintf(stderr, "afmt random: '%s': too many elements\n", s);
            return -1;
        }
        a->count *= (uint64_t)d;
        p = end + 1;
    }
    t = afmt_dtype_from_name(p);
    if (t == AFMT_DTYPE_INVALID || t == AFMT_OPAQUE)
        goto bad;
    a->dtype = t;
    a->elsize = afmt_dtype_get(t)->size;
    a->stride = a->elsize;
    a->order = AFMT_ROW_MAJOR;
    a->encoding = AFMT_ENC_PLAIN;
    a->endian = AFMT_LITTLE;
    if (a->count > UINT64_MAX / a->elsize || a->count * a->elsize > (uint64_t)SIZE_MAX / 2) {
        fprintf(stderr, "afmt random: '%s': too large\n", s);
        return -1;
    }
    a->nbytes = a->count * a->elsize;
    return 0;
bad:
    fprintf(stderr, "afmt random: '%s' is not a type such as f32, [10]i64 or [10][20]f32 "
                    "(element types: ", s);
    afmt_cli_print_dtype_names(stderr);
    fprintf(stderr, ")\n");
    return -1;
}

/* ---------------------------------------------------------------- main */

static void random_usage(FILE *f)
{
    fprintf(f,
"Usage: afmt random [OPTION]... TYPE... [-o OUT]\n"
"Write arrays of random values, one per TYPE, like `futhark dataset -g`.\n"
"TYPE is an element type with optional dimensions: f32, [10]i64,\n"
"[10][20]f32, [0][3]i32 (element types: bool, i8, i16, i32, i64, u8, u16,\n"
"u32, u64, f16, bf16, f32, f64, c32, c64, c128).  The same seed gives the same\n"
"values, at the same logical indices, in every format.\n"
"\n"
"Options:\n"
"  -o, --output OUT      write OUT (under a temporary name, renamed when\n"
"                        complete); \"-\" or none: standard output\n"
"      --to NAME         the format (default: OUT's extension's; futhark\n"
"                        when OUT has none or is standard output).  An\n"
"                        extension that no format has, or that is another\n"
"                        format's than --to's, is refused: two.npz is\n"
"                        always a NumPy archive (.bin: --to may choose)\n"
"      --text            with futhark: Futhark text values, one a line\n"
"  -s, --seed N          the generator's seed (default 1)\n"
"      --T-bounds=LO:HI  inclusive bounds for type T (i8 ... u64, f16, bf16,\n"
"                        f32, f64): integers default to the type's range,\n"
"                        floats to 0:1; c64 takes f32's, c128 f64's\n"
"  -h, --help            print this help and exit\n"
"\n"
"Integers are uniform in their bounds; floats are uniform reals in\n"
"[LO, HI] rounded to the type (never outside the bounds); bool is true or\n"
"false with equal chance.  A format that cannot hold a type or a shape\n"
"(tenbin has no bool) refuses, and nothing is written.  A safetensors OUT\n"
"lists its tensors in the order the reference writer (safetensors'\n"
"serialize) gives them: by element type, then by name.\n"
"\n"
"Examples:\n"
"  afmt random '[10][20]f32' -o x.npy\n"
"  afmt random --f32-bounds=-1:1 --seed 7 '[10][20]f32' -o x.bin --to futhark\n"
"  afmt random '[3]f32' '[2][2]i64' -o two.npz\n"
"  afmt random --to tenbin '[100]i64' '[100][3]f32' -o sample.ten\n"
"  afmt random --text '[2][3]i32'\n"
"\n"
"Exit status: 0 written, 1 the format cannot hold the arrays, 2 usage or\n"
"I/O error.\n");
}

enum {
    R_HELP = 1, R_OUTPUT, R_TO, R_TEXT, R_SEED,
    R_BOUNDS /* + dtype: one id per type */
};

#define BOUNDS_OPT(name, type) { name "-bounds", 0, 1, R_BOUNDS + (type) }

static const afmt_cli_optdef random_opts[] = {
    { "help", 'h', 0, R_HELP },
    { "output", 'o', 1, R_OUTPUT },
    { "to", 0, 1, R_TO },
    { "text", 0, 0, R_TEXT },
    { "seed", 's', 1, R_SEED },
    BOUNDS_OPT("i8", AFMT_I8), BOUNDS_OPT("i16", AFMT_I16), BOUNDS_OPT("i32", AFMT_I32),
    BOUNDS_OPT("i64", AFMT_I64), BOUNDS_OPT("u8", AFMT_U8), BOUNDS_OPT("u16", AFMT_U16),
    BOUNDS_OPT("u32", AFMT_U32), BOUNDS_OPT("u64", AFMT_U64), BOUNDS_OPT("f16", AFMT_F16),
    BOUNDS_OPT("bf16", AFMT_BF16), BOUNDS_OPT("f32", AFMT_F32), BOUNDS_OPT("f64", AFMT_F64),
    { NULL, 0, 0, 0 }
};

/* After a message of its own. */
static int usage_error(void)
{
    return afmt_cli_usage_error("afmt random", NULL);
}

/* What the command line asks for, and the arrays made. */
typedef struct random_job {
    afmt_array arrays[MAX_ARRAYS];
    uint8_t *bufs[MAX_ARRAYS];
    size_t n;
    const afmt_format *target;   /* --to, OUT's extension, else futhark */
    const char *out;             /* -o OUT, or NULL: standard output */
    int text;                    /* --text */
    uint64_t seed;               /* --seed */
    bounds bnd[AFMT_DTYPE_COUNT_]; /* --TYPE-bounds, else the defaults */
} random_job;

/* Generate every array (row-major), then put it in the target's order. */
static int generate(random_job *job, const bounds *bnd, uint64_t seed,
                    const afmt_format *target, afmt_error *err)
{
    rng r;
    size_t i;

    rng_seed(&r, seed);
    for (i = 0; i < job->n; i++) {
        afmt_array *a = &job->arrays[i];
        afmt_dtype part = a->dtype == AFMT_C32 ? AFMT_F16 : a->dtype == AFMT_C64 ? AFMT_F32 : AFMT_F64;
        uint8_t *buf = malloc(a->nbytes ? (size_t)a->nbytes : 1);
        if (!buf)
            return afmt_cli_fail(err, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET,
                                 "cannot allocate %" PRIu64 " bytes for array [%zu]", a->nbytes, i);
        job->bufs[i] = buf;
        if (fill(&r, a->dtype, &bnd[a->dtype], &bnd[part], buf, a->count, err) != 0)
            return -1;
        a->data = buf;
        if (target->order != AFMT_ROW_MAJOR && a->rank > 1) {
            uint8_t *t = malloc(a->nbytes ? (size_t)a->nbytes : 1);
            afmt_array v;
            if (!t)
                return afmt_cli_fail(err, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET,
                                     "cannot allocate %" PRIu64 " bytes for array [%zu]", a->nbytes, i);
            if (afmt_array_to_plain(a, target->order, t, a->nbytes, err) != 0) {
                free(t);
                return -1;
            }
            afmt_array_plain_view(a, target->order, t, &v);
            free(buf);
            job->bufs[i] = t;
            *a = v;
        } else {
            a->order = target->order; /* rank <= 1: the same bytes */
        }
    }
    return 0;
}

static int write_out(random_job *job, const afmt_format *target, int text, const char *out,
                     afmt_error *err)
{
    afmt_sink sink;
    afmt_write_options wopt;
    int to_stdout = !out || strcmp(out, "-") == 0, slot = -1, rc;
    size_t i;

    memset(&wopt, 0, sizeof wopt);
    if (to_stdout)
        afmt_sink_stdio(&sink, stdout);
    else if (afmt_cli_cleanup_sink_open(&sink, out, &slot, err) != 0)
        return -1;
    for (i = 0; i < job->n && text; i++)
        if (afmt_futhark_text_write(&job->arrays[i], &sink, err) != 0 ||
            afmt_sink_put(&sink, "\n", 1, err) != 0)
            break;
    if ((text && i < job->n) || (!text && target->write(job->arrays, job->n, &wopt, &sink, err) != 0)) {
        if (!to_stdout)
            afmt_sink_abort(&sink);
        afmt_cli_cleanup_forget(slot);
        return -1;
    }
    if (to_stdout) {
        if (fflush(stdout) != 0 || ferror(stdout))
            return afmt_cli_fail(err, AFMT_E_IO, NULL, AFMT_NO_OFFSET,
                                 "error writing standard output");
        return 0;
    }
    rc = afmt_sink_commit(&sink, err);
    afmt_cli_cleanup_forget(slot); /* after the rename: see cleanup.h */
    return rc;
}

/* One option or operand: -1 to go on, else the exit status. */
static int take_arg(random_job *job, int id, const char *val)
{
    if (id == AFMT_CLI_ARGS_ERROR)
        return AFMT_EXIT_ERROR;
    if (id == R_HELP) {
        random_usage(stdout);
        return AFMT_EXIT_OK;
    }
    if (id == AFMT_CLI_ARGS_OPERAND && job->n == MAX_ARRAYS) {
        fprintf(stderr, "afmt random: at most %d arrays\n", MAX_ARRAYS);
        return usage_error();
    }
    if (id == AFMT_CLI_ARGS_OPERAND) {
        if (parse_type(val, &job->arrays[job->n]) != 0)
            return usage_error();
        job->n++;
    }
    if (id == R_OUTPUT)
        job->out = val;
    if (id == R_TEXT)
        job->text = 1;
    if (id == R_TO && !(job->target = afmt_cli_format_arg("afmt random", val)))
        return usage_error();
    if (id == R_SEED && afmt_cli_parse_uint(val, 0, UINT64_MAX, &job->seed) != 0) {
        fprintf(stderr, "afmt random: --seed needs a number, not '%s'\n", val);
        return usage_error();
    }
    if (id > R_BOUNDS && id < R_BOUNDS + AFMT_DTYPE_COUNT_ &&
        parse_bounds((afmt_dtype)(id - R_BOUNDS), val, &job->bnd[id - R_BOUNDS]) != 0)
        return usage_error();
    return -1;
}

/* OUT's format (out_format.h: its extension's, or a refusal; futhark
 * when it has none), --text being Futhark's text form.  -1 to go on,
 * else the exit status, said. */
static int choose_target(random_job *job)
{
    const afmt_format *futhark = afmt_format_by_name("futhark");
    char why[AFMT_CLI_OUT_FORMAT_WHY];

    if (job->text && !job->target)
        job->target = futhark;
    if (!futhark && !job->target && (!job->out || strcmp(job->out, "-") == 0)) {
        fprintf(stderr, "afmt random: no futhark format in this build: use --to NAME\n");
        return usage_error();
    }
    job->target = afmt_cli_output_format(job->out, job->target, futhark, why, sizeof why);
    if (job->target)
        return -1;
    fprintf(stderr, "afmt random: %s\n", why);
    return usage_error();
}

/* The command line into *job: -1 to go on, else the exit status. */
static int parse_args(random_job *job, int argc, char **argv, int first)
{
    afmt_cli_args args;
    const char *val;
    size_t i;
    int id, rc;

    job->seed = 1;
    for (i = 1; i < AFMT_DTYPE_COUNT_; i++)
        if (i != AFMT_OPAQUE)
            default_bounds((afmt_dtype)i, &job->bnd[i]);
    afmt_cli_args_init(&args, argc, argv, first, random_opts, "afmt random");
    while ((id = afmt_cli_args_next(&args, &val)) != AFMT_CLI_ARGS_END)
        if ((rc = take_arg(job, id, val)) >= 0)
            return rc;
    if (job->n == 0) {
        fprintf(stderr, "afmt random: no TYPE (such as [10][20]f32)\n");
        return usage_error();
    }
    return choose_target(job);
}

/* Can OUT be written as asked?  0, or the exit status, said. */
static int check_output(const random_job *job)
{
    const afmt_format *target = job->target;

    if (job->text && strcmp(target->name, "futhark") != 0) {
        fprintf(stderr, "afmt random: --text is Futhark's text form: use it with --to futhark\n");
        return usage_error();
    }
    if ((!job->out || strcmp(job->out, "-") == 0) && !job->text && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "afmt random: binary data is not written to a terminal: give -o OUT "
                        "(or --text)\n");
        return usage_error();
    }
    if (job->n > 1 && !target->multi) {
        fprintf(stderr, "afmt random: %s holds one array per file, not %zu\n", target->name,
                job->n);
        return AFMT_EXIT_INVALID;
    }
    return 0;
}

/* Can the format hold these arrays?  (Some checks need the values.)  0,
 * or the exit status, said. */
static int check_writable(const random_job *job)
{
    char desc[AFMT_FIELD_MAX + AFMT_MESSAGE_MAX + 64];
    afmt_error err;
    size_t i;

    for (i = 0; i < job->n; i++) {
        afmt_error_clear(&err);
        if (job->text ? afmt_futhark_text_can_write(job->arrays[i].dtype)
                      : job->target->can_write(&job->arrays[i], &err) == 0)
            continue;
        afmt_array_describe(&job->arrays[i], desc, sizeof desc);
        if (job->text)
            snprintf(err.message, sizeof err.message, "it has no %s values",
                     afmt_dtype_name(job->arrays[i].dtype));
        fprintf(stderr, "afmt random: %s cannot hold array [%zu] %s%s%s\n",
                job->text ? "Futhark text" : job->target->name, i, desc,
                err.message[0] ? ": " : "", err.message);
        return AFMT_EXIT_INVALID;
    }
    return 0;
}

/* Generate, check and write the arrays.  0, or the exit status, said. */
static int make_arrays(random_job *job)
{
    char desc[AFMT_FIELD_MAX + AFMT_MESSAGE_MAX + 64];
    afmt_error err;
    int rc;

    afmt_error_clear(&err);
    if (generate(job, job->bnd, job->seed, job->target, &err) != 0) {
        fprintf(stderr, "afmt random: %s\n", err.message);
        return err.code == AFMT_E_NOMEM ? AFMT_EXIT_ERROR : AFMT_EXIT_INVALID;
    }
    if ((rc = check_writable(job)) != 0)
        return rc;
    afmt_error_clear(&err);
    if (write_out(job, job->target, job->text, job->out, &err) == 0)
        return AFMT_EXIT_OK;
    afmt_error_describe(&err, desc, sizeof desc);
    fprintf(stderr, "afmt random: %s: %s\n", job->out ? job->out : "-", err.field[0] ? desc : err.message);
    return err.code == AFMT_E_IO || err.code == AFMT_E_NOMEM ? AFMT_EXIT_ERROR : AFMT_EXIT_INVALID;
}

int afmt_cli_random_main(int argc, char **argv, int first)
{
    random_job *job = calloc(1, sizeof *job);
    size_t i;
    int rc;

    if (!job) {
        fprintf(stderr, "afmt random: out of memory\n");
        return AFMT_EXIT_ERROR;
    }
    rc = parse_args(job, argc, argv, first);
    if (rc < 0) {
        rc = check_output(job);
        if (rc == 0)
            rc = make_arrays(job);
    }
    for (i = 0; i < job->n; i++)
        free(job->bufs[i]);
    free(job);
    return rc;
}
