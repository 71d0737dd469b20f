/* The validator's invariants (docs/SECURITY.md), checked mechanically for
 * every format in the registry (afmt_formats[]): no format is named here, so
 * a new spec is covered by `make regen && make` alone.
 *
 * Inputs: every file of $AFMT_SAMPLES/<format>/ (default ../shared/samples),
 * every golden input tests/<format>/<case>/input, every prefix of those up
 * to 4 KiB, 2000 seeded mutations of each (byte flips, truncations, cuts,
 * length-like fields set to 0xff.., 2^60, ...), and a few hand-made
 * regression inputs.  Each input is copied to the very end of a mapping
 * followed by a PROT_NONE guard page, so a read one byte too far faults,
 * and goes through every format's detect and validate, strict and lenient,
 * with a visitor that checks and decodes every view it is given.
 *
 * Every input is validated twice (with other validations in between) to
 * check determinism (under ASan, every second prefix and mutation).
 * Allocation is checked twice: the heap in use
 * (mallinfo2, or the sanitizer's allocator under ASan) must not change
 * across a batch of validations, and a scan of generated/<format>.c and of
 * the runtime functions it calls must find no allocator.  Views found in
 * valid files are also written back through every format's writer, whose
 * output its own validator must accept; and the file sink is checked to
 * write to a temporary name and rename.
 *
 * The work runs in forked children (one per source, several at a time)
 * under a stack limit and a watchdog; a child that dies is reported with
 * the format, mode and the input in hex, and a new child resumes after the
 * input that killed it.  Results come back through shared memory and are
 * printed in a fixed order, so the output does not depend on timing.
 *
 * Check names start with the invariant they test ("I1 no over-read: ...").
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "afmt_internal.h"
#include "check.h"
#include "samples.h"
#include "testutil.h"

/* ------------------------------------------------------------ allocation */

#if defined(__SANITIZE_ADDRESS__)
#define SEC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SEC_ASAN 1
#endif
#endif

#if defined(SEC_ASAN)
#include <sanitizer/allocator_interface.h>
#define SEC_HAVE_HEAP_METER 1
static const char *const heap_meter_name = "__sanitizer_get_current_allocated_bytes";
static uint64_t heap_in_use(void) { return (uint64_t)__sanitizer_get_current_allocated_bytes(); }
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#define SEC_HAVE_HEAP_METER 1
static const char *const heap_meter_name = "mallinfo2";
static uint64_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
}
#endif

/* ------------------------------------------------------------ parameters */

#define MUTATIONS 2000
#define PREFIX_MAX 4096       /* all prefixes of files up to this size */
#define GROW_MAX 64           /* mutations may insert up to this many bytes */
#define MAXF 64               /* formats handled (the registry holds fewer) */
#define DECODE_CAP (1u << 20) /* views up to this many plain bytes are decoded */
#if defined(SEC_ASAN)
#define STACK_LIMIT ((rlim_t)8 << 20) /* sanitizer frames are larger */
#else
#define STACK_LIMIT ((rlim_t)1 << 20) /* only fixed-size frames: see I4 */
#endif
#define WATCHDOG_S 60         /* a child that runs longer than this hangs */
#define MAX_CRASHES 3         /* children of one source that may die */

enum { K_FILE, K_PREFIX, K_MUTATION, K_REGRESSION, NKIND };
static const char *const kind_name[NKIND] = {"whole file", "prefixes", "mutations", "input"};

enum { INV_READ, INV_SIZES, INV_ERRORS, INV_DETERMINISM, INV_VIEWS, INV_WORK, INV_ALLOC, NINV };
static const char *const inv_name[NINV] = {
    "I1 no over-read",
    "I2 derived sizes exact",
    "I7 rejections complete",
    "I8 deterministic",
    "I11 views safe to decode",
    "I5 bounded work",
    "I3 no allocation",
};

/* ------------------------------------------------------------ sources */

typedef struct source {
    char label[512];
    uint8_t *data;
    uint64_t len;
    int regression;
} source;

static source *sources;
static size_t nsources;

static void add_source(const char *label, uint8_t *data, uint64_t len, int regression)
{
    source *s;
    sources = realloc(sources, sizeof *sources * (nsources + 1));
    if (!sources) { printf("FAIL security: out of memory\n"); exit(1); }
    s = &sources[nsources++];
    memset(s, 0, sizeof *s);
    snprintf(s->label, sizeof s->label, "%s", label);
    s->data = data;
    s->len = len;
    s->regression = regression;
}

static int names_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted entries of a directory (not starting with '.'); NULL if absent. */
static char **list_dir(const char *dir, size_t *n)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char **v = NULL;
    *n = 0;
    if (!d) return NULL;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        v = realloc(v, sizeof *v * (*n + 1));
        if (!v) break;
        v[(*n)++] = strdup(de->d_name);
    }
    closedir(d);
    if (v) qsort(v, *n, sizeof *v, names_cmp);
    return v;
}

static void free_list(char **v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) free(v[i]);
    free(v);
}

static void collect_sources(const char *samples)
{
    size_t f, i, n;
    for (f = 0; f < afmt_format_count; f++) {
        const char *name = afmt_formats[f]->name;
        char dir[1024], path[2048], label[2048];
        char **v;
        /* reference samples when present, and the corpus's copies of some */
        snprintf(dir, sizeof dir, "%s/%s", samples ? samples : "corpus", name);
        v = list_dir(dir, &n);
        for (i = 0; i < n; i++) {
            struct stat st;
            uint64_t len = 0;
            uint8_t *data;
            snprintf(path, sizeof path, "%s/%s", dir, v[i]);
            if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
            data = fz_read_file(path, &len);
            if (!data) continue;
            snprintf(label, sizeof label, "%s/%s", name, v[i]);
            add_source(label, data, len, 0);
        }
        free_list(v, n);
        /* golden inputs */
        snprintf(dir, sizeof dir, "tests/%s", name);
        v = list_dir(dir, &n);
        for (i = 0; i < n; i++) {
            uint64_t len = 0;
            uint8_t *data;
            snprintf(path, sizeof path, "%s/%s/input", dir, v[i]);
            data = fz_read_file(path, &len);
            if (!data) continue;
            snprintf(label, sizeof label, "tests/%s/%s", name, v[i]);
            add_source(label, data, len, 0);
        }
        free_list(v, n);
    }
}

/* Hand-made inputs that once broke an invariant.  They are run through
 * every format like the others.  A tiny notation keeps them short:
 *   a:TEXT  ASCII bytes     z:N   N zero bytes      x:HEX  raw bytes
 *   q:V     V as 8 bytes little-endian (q:V*K: K times) */
static const struct { const char *name, *ops; } regression_inputs[] = {
    /* a header chunk of 300 dimensions (all 1) in a well-formed chunked
     * file: more than AFMT_RANK_CAP, tolerated in lenient mode */
    {"regression/chunk-rank-300",
     "a:~TenBin~ q:2424 a:f4 z:6 a:x z:7 q:300 q:1*300 z:8 a:~TenBin~ q:4 x:0000803f z:60"},
    {"regression/chunk-rank-2000",
     "a:~TenBin~ q:16024 a:f4 z:6 a:x z:7 q:2000 q:1*2000 z:40 a:~TenBin~ q:4 x:0000803f z:60"},
    /* a table of two columns and no rows: the second column's view must
     * not point past the end of the input */
    {"regression/columns-0-rows", "x:0103 q:0 q:2 x:0207 x:0100 a:a x:0100 a:b q:0 q:0"},
    /* a shape with a zero dimension and two huge ones: 0 elements */
    {"regression/zero-dim-huge-dims", "a:b x:0203 x:20693332 q:1099511627776 q:1099511627776 q:0"},
};

static uint8_t *build_input(const char *ops, uint64_t *len)
{
    size_t cap = 1024, n = 0;
    uint8_t *b = malloc(cap);
    const char *p = ops;
#define NEED(k) do { while (n + (k) > cap) { cap *= 2; b = realloc(b, cap); if (!b) return NULL; } } while (0)
    while (b && *p) {
        char op;
        const char *arg, *end;
        while (*p == ' ') p++;
        if (!*p) break;
        op = p[0];
        arg = p + 2;
        end = strchr(arg, ' ');
        if (!end) end = arg + strlen(arg);
        if (op == 'a') {
            NEED((size_t)(end - arg));
            memcpy(b + n, arg, (size_t)(end - arg));
            n += (size_t)(end - arg);
        } else if (op == 'z') {
            unsigned long k = strtoul(arg, NULL, 10);
            NEED(k);
            memset(b + n, 0, k);
            n += k;
        } else if (op == 'x') {
            const char *h;
            for (h = arg; h + 1 < end; h += 2) {
                unsigned v;
                sscanf(h, "%2x", &v);
                NEED(1);
                b[n++] = (uint8_t)v;
            }
        } else if (op == 'q') {
            char *star;
            unsigned long long v = strtoull(arg, &star, 10);
            unsigned long k = *star == '*' ? strtoul(star + 1, NULL, 10) : 1, j;
            for (j = 0; j < k; j++) {
                NEED(8);
                afmt_store_u64le(b + n, v);
                n += 8;
            }
        }
        p = end;
    }
#undef NEED
    *len = n;
    return b;
}

/* ------------------------------------------------------------ shared state */

typedef struct inv_result {
    uint64_t checked, failed;
    char first[1024]; /* the first failure, for the FAIL line */
} inv_result;

/* What one child reports about one source; the parent reads it after the
 * child ends, or dies.  One slot per child running at the same time. */
typedef struct slot {
    /* where the child is: read by the parent when the child dies */
    int cur_kind;
    uint64_t cur_case;
    int cur_fmt, cur_mode, cur_stage;
    uint64_t cur_len;
    char cur_what[256];
    int finished;
    /* results, per kind of case */
    inv_result inv[NKIND][NINV];
    uint64_t validations[NKIND];
    int kind_done[NKIND];      /* every case of this kind was run */
    int heap_measured[NKIND];
    uint64_t heap_before[NKIND], heap_after[NKIND];
    uint64_t runs_by_fmt[MAXF];
} slot;

static slot *sh;           /* the slot of this child */
static inv_result *cur_inv; /* sh->inv[the kind being run] */
static uint8_t *region;      /* this slot's input area; a guard page follows */
static uint64_t region_size; /* bytes before the guard */

static const char *const stage_name[] = {"validate", "detect", "decode a view"};

static void note_fail(int inv, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void note_fail(int inv, const char *fmt, ...)
{
    va_list ap;
    inv_result *r = &cur_inv[inv];
    if (r->failed++ == 0) {
        va_start(ap, fmt);
        vsnprintf(r->first, sizeof r->first, fmt, ap);
        va_end(ap);
    }
}

/* ------------------------------------------------------------ PRNG */

static uint64_t rng_state;
static uint64_t rng(void)
{
    /* splitmix64: deterministic, seeded per (source, mutation) */
    uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}
static uint64_t below(uint64_t n) { return n ? rng() % n : 0; }

/* Build case `c` of kind `kind` from the source into out (capacity cap);
 * returns its length and describes it in what. */
static uint64_t make_case(const source *s, size_t si, int kind, uint64_t c, uint8_t *out, uint64_t cap,
                          char *what, size_t what_size)
{
    uint64_t len = s->len, n, i;
    if (kind == K_FILE || kind == K_REGRESSION) {
        memcpy(out, s->data, len);
        snprintf(what, what_size, "the whole file");
        return len;
    }
    if (kind == K_PREFIX) {
        memcpy(out, s->data, c);
        snprintf(what, what_size, "prefix of %" PRIu64 " bytes", c);
        return c;
    }
    /* a mutation */
    rng_state = UINT64_C(0x5EC0A1F0) ^ ((uint64_t)si << 32) ^ c;
    memcpy(out, s->data, len);
    what[0] = 0;
    n = 1 + below(3); /* one to three edits */
    for (i = 0; i < n; i++) {
        size_t wl = strlen(what);
        /* most edits land in the first 512 bytes: headers live there */
        uint64_t span = len == 0 ? 0 : (below(4) ? (len < 512 ? len : 512) : len);
        uint64_t at = below(span);
        unsigned op = (unsigned)below(len == 0 ? 1 : 7);
        if (len == 0) op = 6;
        switch (op) {
        case 0: { /* flip bits of a byte */
            uint8_t x = (uint8_t)(1 + below(255));
            out[at] ^= x;
            snprintf(what + wl, what_size - wl, "%sxor 0x%02x at %" PRIu64, i ? ", " : "", x, at);
            break;
        }
        case 1: { /* a byte set to an edge value */
            static const uint8_t edge[] = {0x00, 0xff, 0x80, 0x7f, 0x01, 0x20};
            uint8_t v = edge[below(sizeof edge)];
            out[at] = v;
            snprintf(what + wl, what_size - wl, "%sbyte %" PRIu64 " = 0x%02x", i ? ", " : "", at, v);
            break;
        }
        case 2: { /* truncation */
            uint64_t nl = below(len);
            snprintf(what + wl, what_size - wl, "%struncated to %" PRIu64, i ? ", " : "", nl);
            len = nl;
            break;
        }
        case 3: case 4: { /* a length-like field set to a hostile value */
            static const uint64_t vals[] = {UINT64_MAX, UINT64_C(1) << 60, UINT64_C(1) << 63, UINT64_C(1) << 32,
                                            UINT64_C(0x7fffffff), 0, 1, 0x100, UINT64_C(0x7fffffffffffffff),
                                            UINT64_C(0xffffffff)};
            static const unsigned widths[] = {1, 2, 4, 8};
            unsigned w = widths[below(4)], k;
            uint64_t v = vals[below(sizeof vals / sizeof vals[0])];
            int big = (int)below(2);
            if (below(4) == 0) v = below(len + 2); /* near the real size */
            at -= at % w;
            if (at + w > len) break;
            if (w < 8) v &= (UINT64_C(1) << (8 * w)) - 1;
            for (k = 0; k < w; k++) out[at + k] = (uint8_t)(v >> (8 * (big ? w - 1 - k : k)));
            snprintf(what + wl, what_size - wl, "%su%u%s at %" PRIu64 " = 0x%" PRIx64, i ? ", " : "", 8 * w,
                     big ? "be" : "le", at, v);
            break;
        }
        case 5: { /* cut a range out */
            uint64_t cut = 1 + below(len - at < 16 ? len - at : 16);
            if (at + cut > len) cut = len - at;
            memmove(out + at, out + at + cut, len - at - cut);
            len -= cut;
            snprintf(what + wl, what_size - wl, "%scut %" PRIu64 " bytes at %" PRIu64, i ? ", " : "", cut, at);
            break;
        }
        default: { /* insert bytes (copies of what is there, or zeros) */
            uint64_t k = 1 + below(8), j;
            if (len + k > cap) break;
            memmove(out + at + k, out + at, len - at);
            for (j = 0; j < k; j++) out[at + j] = len ? out[(at + k + j) % (len + k)] : 0;
            len += k;
            snprintf(what + wl, what_size - wl, "%sinsert %" PRIu64 " bytes at %" PRIu64, i ? ", " : "", k, at);
            break;
        }
        }
    }
    return len;
}

static uint64_t ncases(const source *s, int kind)
{
    switch (kind) {
    case K_FILE: return s->regression ? 0 : 1;
    case K_PREFIX: return !s->regression && s->len <= PREFIX_MAX ? s->len : 0;
    case K_MUTATION: return s->regression ? 0 : MUTATIONS;
    default: return s->regression ? 1 : 0;
    }
}

/* ------------------------------------------------------------ the visitor */

typedef struct ctx {
    const uint8_t *buf;
    uint64_t len;
    int fmt, mode, decode;
    uint64_t arrays, warnings;
    const char *label, *what;
} ctx;

static uint8_t decode_buf[DECODE_CAP];

/* [p, p + n) inside [buf, buf + len)?  (Compared as addresses: a pointer
 * outside the buffer is what this looks for.) */
static int inside(const ctx *c, const uint8_t *p, uint64_t n)
{
    uintptr_t b = (uintptr_t)c->buf, q = (uintptr_t)p;
    if (!p) return n == 0;
    if (q < b || q - b > c->len) return 0;
    return n <= c->len - (q - b);
}

/* Offset of p in the input, for messages (-1: not a pointer into it). */
static intmax_t offset_of(const ctx *c, const uint8_t *p)
{
    return p ? (intmax_t)((uintptr_t)p - (uintptr_t)c->buf) : -1;
}

static const char *mode_name(int mode) { return mode ? "lenient" : "strict"; }

static int on_array(void *vctx, const afmt_array *a)
{
    ctx *c = vctx;
    const char *fname = afmt_formats[c->fmt]->name;
    uint64_t prod = 1, need;
    uint32_t i;
    int ok = 1;
    c->arrays++;
    cur_inv[INV_SIZES].checked++;
    /* I2: the view's numbers are exact and its bytes are in the input */
    if (a->rank > AFMT_RANK_CAP) {
        note_fail(INV_SIZES, "%s %s on %s (%s): view %u has rank %" PRIu32 " > AFMT_RANK_CAP (%d): dims[] was written out of bounds",
                  fname, mode_name(c->mode), c->label, c->what, (unsigned)a->index, a->rank, AFMT_RANK_CAP);
        return 0; /* nothing more can be read safely */
    }
    /* a zero dimension makes the product 0 whatever the others are */
    for (i = 0; i < a->rank; i++)
        if (a->dims[i] == 0) break;
    if (i < a->rank) prod = 0;
    else
        for (i = 0; i < a->rank && ok; i++)
            if (afmt_checked_mul_u64(prod, a->dims[i], &prod)) ok = 0;
    if (!ok || prod != a->count) {
        note_fail(INV_SIZES, "%s %s on %s (%s): view %u count %" PRIu64 " is not prod(dims)%s", fname, mode_name(c->mode),
                  c->label, c->what, (unsigned)a->index, a->count, ok ? "" : " (which overflows)");
        return 0;
    }
    if (a->dtype <= AFMT_DTYPE_INVALID || a->dtype >= AFMT_DTYPE_COUNT_ || a->elsize == 0 ||
        memchr(a->name, 0, sizeof a->name) == NULL) {
        note_fail(INV_SIZES, "%s %s on %s (%s): view %u has dtype %d, elsize %" PRIu64 " or an unterminated name", fname,
                  mode_name(c->mode), c->label, c->what, (unsigned)a->index, (int)a->dtype, a->elsize);
        return 0;
    }
    /* a transient view's bytes are the validator's own (an inflated
     * member), its offset that of the member's compressed data: both are
     * checked, against what each is */
    if (a->offset > c->len ||
        (!a->data_transient && (!inside(c, a->data, a->nbytes) ||
                                (a->data && offset_of(c, a->data) != (intmax_t)a->offset)))) {
        note_fail(INV_SIZES, "%s %s on %s (%s): view %u data [%jd, +%" PRIu64 ") (offset %" PRIu64 ") is outside the %" PRIu64 "-byte input",
                  fname, mode_name(c->mode), c->label, c->what, (unsigned)a->index, offset_of(c, a->data), a->nbytes,
                  a->offset, c->len);
        return 0;
    }
    ok = 1;
    if (a->block > 1) {
        /* whole blocks of elsize bytes (quantized types): never decoded,
         * their bytes must be all there */
        ok = a->encoding == AFMT_ENC_PLAIN && a->count % a->block == 0 &&
             !afmt_checked_mul_u64(a->count / a->block, a->elsize, &need) && a->nbytes >= need && inside(c, a->data, need);
        if (!ok)
            note_fail(INV_SIZES, "%s %s on %s (%s): block view %u holds %" PRIu64 " bytes, not whole blocks of its %" PRIu64
                      " elements", fname, mode_name(c->mode), c->label, c->what, (unsigned)a->index, a->nbytes, a->count);
        return 0;
    } else if (a->encoding == AFMT_ENC_BITS_LSB) {
        ok = a->nbytes >= afmt_ceil_div_u64(a->count, 8);
    } else if (a->encoding == AFMT_ENC_CSR) {
        uint64_t isz = a->csr_index_size, rows1;
        ok = a->rank == 2 && (isz == 1 || isz == 2 || isz == 4 || isz == 8) && !afmt_checked_add_u64(a->dims[0], 1, &rows1) &&
             !afmt_checked_mul_u64(rows1, isz, &rows1) && inside(c, a->csr_row_offsets, rows1) &&
             !afmt_checked_mul_u64(a->nnz, isz, &need) && (a->nnz == 0 || inside(c, a->csr_col_indices, need)) &&
             !afmt_checked_mul_u64(a->nnz, a->elsize, &need) && a->nbytes >= need;
    } else if (a->encoding == AFMT_ENC_PLAIN && a->count > 0 && a->strided) {
        /* afmt.h's bound: elsize * (1 + sum((dims[k] - 1) * strides[k])) */
        uint64_t reach = 0, step;
        for (i = 0; i < a->rank && ok; i++)
            ok = !afmt_checked_mul_u64(a->dims[i] - 1, a->strides[i], &step) && !afmt_checked_add_u64(reach, step, &reach);
        ok = ok && !afmt_checked_add_u64(reach, 1, &reach) && !afmt_checked_mul_u64(reach, a->elsize, &need) && a->nbytes >= need;
    } else if (a->encoding == AFMT_ENC_PLAIN && a->count > 0) {
        uint64_t stride = a->stride ? a->stride : a->elsize;
        ok = !afmt_checked_mul_u64(a->count - 1, stride, &need) && !afmt_checked_add_u64(need, a->elsize, &need) && a->nbytes >= need;
    }
    /* other encodings (compressed, sparse records, ...): the decoder below
     * is the judge of what their bytes must hold */
    if (!ok) {
        note_fail(INV_SIZES, "%s %s on %s (%s): view %u holds %" PRIu64 " bytes, too few for its %" PRIu64 " elements",
                  fname, mode_name(c->mode), c->label, c->what, (unsigned)a->index, a->nbytes, a->count);
        return 0;
    }
    /* I11: the runtime decodes what the validator accepted, without
     * reading outside the input (the guard page would fault) */
    if (c->decode) {
        uint64_t plain;
        afmt_error e;
        if (afmt_array_plain_size(a, &plain, &e) == 0 && plain <= DECODE_CAP) {
            int saved = sh->cur_stage;
            cur_inv[INV_VIEWS].checked++;
            sh->cur_stage = 2;
            if (afmt_array_to_plain(a, a->order, decode_buf, DECODE_CAP, &e) != 0)
                note_fail(INV_VIEWS, "%s %s on %s (%s): accepted view %u does not decode: %s: %s", fname, mode_name(c->mode),
                          c->label, c->what, (unsigned)a->index, afmt_code_name(e.code), e.message);
            sh->cur_stage = saved;
        }
    }
    return 0;
}

static void on_warning(void *vctx, const afmt_error *w)
{
    ctx *c = vctx;
    c->warnings++;
    cur_inv[INV_ERRORS].checked++;
    if (w->offset > c->len || !memchr(w->message, 0, sizeof w->message) || !w->message[0] ||
        !memchr(w->field, 0, sizeof w->field))
        note_fail(INV_ERRORS, "%s %s on %s (%s): warning at offset %" PRIu64 " (input %" PRIu64 " bytes) with message \"%.80s\"",
                  afmt_formats[c->fmt]->name, mode_name(c->mode), c->label, c->what, w->offset, c->len, w->message);
}

static void on_trailer(void *vctx, const uint8_t *data, uint64_t n, uint64_t offset)
{
    ctx *c = vctx;
    cur_inv[INV_SIZES].checked++;
    if (!inside(c, data, n) || offset > c->len || (n && data != c->buf + offset))
        note_fail(INV_SIZES, "%s %s on %s (%s): trailer [%" PRIu64 ", +%" PRIu64 ") is outside the input",
                  afmt_formats[c->fmt]->name, mode_name(c->mode), c->label, c->what, offset, n);
}

/* ------------------------------------------------------------ one child */

/* I7: what a rejection must carry. */
static void check_rejection(const ctx *c, const afmt_error *e)
{
    const char *why = NULL;
    const char *fname = afmt_formats[c->fmt]->name;
    cur_inv[INV_ERRORS].checked++;
    if (e->code == AFMT_OK || (int)e->code < 0 || e->code >= AFMT_CODE_COUNT_) why = "code is not an error code";
    else if (e->offset > c->len) why = "offset is past the end of the input";
    else if (!memchr(e->message, 0, sizeof e->message) || !memchr(e->field, 0, sizeof e->field) ||
             !memchr(e->format, 0, sizeof e->format)) why = "a string is not NUL-terminated";
    else if (!e->message[0]) why = "message is empty";
    else if (!e->field[0] && e->code != AFMT_E_TRAILING) why = "field path is empty";
    else if (strcmp(e->format, fname) != 0) why = "format is not the validator's";
    if (why)
        note_fail(INV_ERRORS, "%s %s on %s (%s): %s: code %s, offset %" PRIu64 " of %" PRIu64 ", field \"%.60s\", format \"%.23s\", message \"%.100s\"",
                  fname, mode_name(c->mode), c->label, c->what, why, afmt_code_name(e->code), e->offset, c->len,
                  e->field, e->format, e->message);
}

/* Is this input validated a second time (I8)?  Always, except under the
 * sanitizers, which make every validation several times slower: there
 * whole files and hand-made inputs always, prefixes and mutations every
 * second one, to stay within the time `make asan` allows. */
static int recheck(int kind, uint64_t c)
{
#if defined(SEC_ASAN)
    return kind == K_FILE || kind == K_REGRESSION || c % 2 == 0;
#else
    (void)kind;
    (void)c;
    return 1;
#endif
}

/* Run the cases of one source from (first_kind, first_case) on; never
 * returns. */
static void run_child(size_t si, int first_kind, uint64_t first_case)
{
    const source *s = &sources[si];
    size_t f, nf = afmt_format_count < MAXF ? afmt_format_count : MAXF;
    static afmt_error e1[MAXF][2];
    static int rc1[MAXF][2];
    static uint64_t arrays1[MAXF][2], warnings1[MAXF][2];
    uint8_t *guard = region + region_size;
    struct rlimit rl;
    int kind;

    alarm(WATCHDOG_S);
    /* I4: validators use fixed-size stack frames; a frame that grows with
     * a header's claims would hit this limit and fault */
    if (getrlimit(RLIMIT_STACK, &rl) == 0) {
        rl.rlim_cur = STACK_LIMIT < rl.rlim_max ? STACK_LIMIT : rl.rlim_max;
        setrlimit(RLIMIT_STACK, &rl);
    }
    for (kind = first_kind; kind < NKIND; kind++) {
        uint64_t n = ncases(s, kind), ci;
        cur_inv = sh->inv[kind];
        sh->cur_kind = kind;
#if defined(SEC_HAVE_HEAP_METER)
        sh->heap_before[kind] = heap_in_use();
#endif
        for (ci = kind == first_kind ? first_case : 0; ci < n; ci++) {
            uint64_t len;
            uint8_t *buf;
            int pass, mode, passes = recheck(kind, ci) ? 2 : 1;
            char what[sizeof sh->cur_what];
            /* build the input, then move it to end right before the guard */
            len = make_case(s, si, kind, ci, region, region_size, what, sizeof what);
            buf = guard - len;
            memmove(buf, region, len);
            sh->cur_case = ci;
            sh->cur_len = len;
            memcpy(sh->cur_what, what, sizeof what);
            /* detection reads at most 64 bytes, never past the end */
            sh->cur_stage = 1;
            for (f = 0; f < nf; f++) {
                sh->cur_fmt = (int)f;
                (void)afmt_formats[f]->detect(buf, len);
            }
            sh->cur_fmt = -1;
            (void)afmt_format_detect(buf, len, NULL);
            sh->cur_stage = 0;
            for (pass = 0; pass < passes; pass++) {
                for (mode = 0; mode < 2; mode++) {
                    for (f = 0; f < nf; f++) {
                        afmt_options opt;
                        afmt_visitor vis;
                        afmt_error e;
                        ctx c;
                        int rc;
                        afmt_options_default(&opt);
                        opt.mode = mode ? AFMT_LENIENT : AFMT_STRICT;
                        memset(&c, 0, sizeof c);
                        c.buf = buf;
                        c.len = len;
                        c.fmt = (int)f;
                        c.mode = mode;
                        c.decode = pass == 0;
                        c.label = s->label;
                        c.what = sh->cur_what;
                        memset(&vis, 0, sizeof vis);
                        vis.ctx = &c;
                        vis.on_array = on_array;
                        vis.on_warning = on_warning;
                        vis.on_trailer = on_trailer;
                        /* garbage in err: validate must clear it all */
                        memset(&e, pass ? 0x5A : 0xA5, sizeof e);
                        sh->cur_fmt = (int)f;
                        sh->cur_mode = mode;
                        sh->runs_by_fmt[f]++;
                        rc = afmt_formats[f]->validate(buf, len, &opt, &vis, &e);
                        sh->validations[kind]++;
                        if (rc != 0) check_rejection(&c, &e);
                        if (rc != 0 && rc != -1)
                            note_fail(INV_ERRORS, "%s %s on %s (%s): validate returned %d", afmt_formats[f]->name,
                                      mode_name(mode), s->label, what, rc);
                        /* I5: each repetition consumes a byte, so callbacks
                         * are bounded by the input size */
                        cur_inv[INV_WORK].checked++;
                        if (c.arrays + c.warnings > 2 * (len + 1) + 16)
                            note_fail(INV_WORK, "%s %s on %s (%s): %" PRIu64 " arrays and %" PRIu64 " warnings from %" PRIu64 " bytes",
                                      afmt_formats[f]->name, mode_name(mode), s->label, what, c.arrays, c.warnings, len);
                        if (pass == 0) {
                            e1[f][mode] = e;
                            rc1[f][mode] = rc;
                            arrays1[f][mode] = c.arrays;
                            warnings1[f][mode] = c.warnings;
                        } else {
                            /* I8: same input, same bytes out, whatever ran in
                             * between (every format and mode did) */
                            cur_inv[INV_DETERMINISM].checked++;
                            if (rc != rc1[f][mode] || memcmp(&e, &e1[f][mode], sizeof e) != 0 ||
                                c.arrays != arrays1[f][mode] || c.warnings != warnings1[f][mode])
                                note_fail(INV_DETERMINISM, "%s %s on %s (%s): second run differs (rc %d/%d, code %s/%s, offset %" PRIu64 "/%" PRIu64 ", arrays %" PRIu64 "/%" PRIu64 ", warnings %" PRIu64 "/%" PRIu64 ", or bytes of afmt_error)",
                                          afmt_formats[f]->name, mode_name(mode), s->label, what, rc1[f][mode], rc,
                                          afmt_code_name(e1[f][mode].code), afmt_code_name(e.code), e1[f][mode].offset,
                                          e.offset, arrays1[f][mode], c.arrays, warnings1[f][mode], c.warnings);
                        }
                    }
                }
            }
        }
#if defined(SEC_HAVE_HEAP_METER)
        sh->heap_after[kind] = heap_in_use();
        sh->heap_measured[kind] = kind != first_kind || first_case == 0;
#endif
        sh->kind_done[kind] = 1;
    }
    sh->finished = 1;
    _exit(0);
}

/* ------------------------------------------------------------ the parent */

static void hex_of(const uint8_t *p, uint64_t n, char *out, size_t size)
{
    size_t o = 0;
    uint64_t i, shown = n > 96 ? 96 : n;
    out[0] = 0;
    for (i = 0; i < shown && o + 3 < size; i++) o += (size_t)snprintf(out + o, size - o, "%02x", p[i]);
    if (shown < n && o + 32 < size) snprintf(out + o, size - o, "... (%" PRIu64 " bytes)", n);
}

/* What the parent keeps of a source once its children are done. */
typedef struct outcome {
    slot res;                 /* the slot's results, copied */
    int crashes[NKIND];
    int hung[NKIND];
    char crash_msg[NKIND][2048];
} outcome;

typedef struct runner {
    slot *sl;
    uint8_t *region;
    pid_t pid;                /* 0: free */
    size_t si;
    int crashes;              /* children of this source that died */
} runner;

static outcome *outcomes;
static uint64_t fmt_crashes[MAXF], fmt_runs[MAXF];

static void start_child(runner *r, int first_kind, uint64_t first_case)
{
    pid_t pid;
    fflush(stdout);
    r->sl->finished = 0;
    pid = fork();
    if (pid < 0) { printf("FAIL security: fork: %s\n", strerror(errno)); exit(1); }
    if (pid == 0) {
        sh = r->sl;
        region = r->region;
        run_child(r->si, first_kind, first_case);
    }
    r->pid = pid;
}

/* A child of r ended with this status: keep its results, or report how it
 * died and start another after the input that killed it. */
static void child_ended(runner *r, int status)
{
    slot *sl = r->sl;
    outcome *o = &outcomes[r->si];
    const source *s = &sources[r->si];
    size_t f;
    r->pid = 0;
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0 && sl->finished)) {
        char hex[400], how[96];
        int kind = sl->cur_kind >= 0 && sl->cur_kind < NKIND ? sl->cur_kind : 0;
        const char *fname = sl->cur_fmt >= 0 && (size_t)sl->cur_fmt < afmt_format_count ? afmt_formats[sl->cur_fmt]->name : "(all)";
        uint64_t len = sl->cur_len <= region_size ? sl->cur_len : 0;
        int hang = WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM;
        if (hang)
            snprintf(how, sizeof how, "did not finish within %d s", WATCHDOG_S);
        else if (WIFSIGNALED(status))
            snprintf(how, sizeof how, "crashed with signal %d", WTERMSIG(status));
        else
            snprintf(how, sizeof how, "died with exit status %d (see the sanitizer report above)", WEXITSTATUS(status));
        hex_of(r->region + region_size - len, len, hex, sizeof hex);
        if (o->crashes[kind] == 0)
            snprintf(o->crash_msg[kind], sizeof o->crash_msg[kind], "%s %s of %s, mode %s, case %" PRIu64 " (%s) %s; input %s",
                     fname, stage_name[sl->cur_stage >= 0 && sl->cur_stage < 3 ? sl->cur_stage : 0], s->label,
                     mode_name(sl->cur_mode), sl->cur_case, sl->cur_what, how, hex);
        o->crashes[kind]++;
        o->hung[kind] += hang;
        if (sl->cur_fmt >= 0 && sl->cur_fmt < MAXF) fmt_crashes[sl->cur_fmt]++;
        if (++r->crashes < MAX_CRASHES) {
            start_child(r, kind, sl->cur_case + 1);
            return;
        }
    }
    o->res = *sl;
    for (f = 0; f < MAXF; f++) fmt_runs[f] += sl->runs_by_fmt[f];
}

static void report_source(size_t si)
{
    const source *s = &sources[si];
    outcome *o = &outcomes[si];
    int kind, inv;
    for (kind = 0; kind < NKIND; kind++) {
        uint64_t n = ncases(s, kind);
        if (n == 0) continue;
        for (inv = 0; inv < NINV; inv++) {
            inv_result *r = &o->res.inv[kind][inv];
            char name[1024];
            const char *detail = r->first;
            char msg[256];
            int ok;
            if (inv == INV_ALLOC) {
#if defined(SEC_HAVE_HEAP_METER)
                uint64_t grew = o->res.heap_after[kind] - o->res.heap_before[kind];
                if (!o->res.heap_measured[kind] || o->crashes[kind]) continue; /* no clean measure */
                snprintf(name, sizeof name, "%s: %s %s (%s unchanged over %" PRIu64 " validations)", inv_name[inv], s->label,
                         kind_name[kind], heap_meter_name, o->res.validations[kind]);
                snprintf(msg, sizeof msg, "heap in use changed by %" PRId64 " bytes during validation", (int64_t)grew);
                detail = msg;
                ok = o->res.heap_after[kind] == o->res.heap_before[kind];
#else
                continue;
#endif
            } else if (inv == INV_READ) {
                snprintf(name, sizeof name, "%s: %s %s (%" PRIu64 " input%s x %zu formats x strict/lenient)", inv_name[inv],
                         s->label, kind_name[kind], n, n == 1 ? "" : "s", afmt_format_count);
                ok = o->crashes[kind] == 0 && o->res.kind_done[kind];
                detail = o->crashes[kind] ? o->crash_msg[kind] : "not run: the children of this source died too often";
            } else if (inv == INV_WORK && o->hung[kind]) {
                snprintf(name, sizeof name, "%s: %s %s", inv_name[inv], s->label, kind_name[kind]);
                ok = 0;
                detail = o->crash_msg[kind];
            } else {
                if (r->checked == 0 && r->failed == 0) continue;
                snprintf(name, sizeof name, "%s: %s %s", inv_name[inv], s->label, kind_name[kind]);
                ok = r->failed == 0;
            }
            if (ok) {
                printf("PASS %s\n", name);
            } else {
                printf("FAIL %s: %s%s\n", name, detail, inv != INV_READ && r->failed > 1 ? " (and more)" : "");
                check_failures++;
            }
        }
    }
}

/* Run every source through every format, in up to `par` children at once;
 * print the results in source order. */
static void run_all(uint64_t page, int par)
{
    runner *rs = calloc((size_t)par, sizeof *rs);
    size_t next = 0, printed = 0, i;
    outcomes = calloc(nsources, sizeof *outcomes);
    if (!rs || !outcomes) { printf("FAIL security: out of memory\n"); exit(1); }
    for (i = 0; i < (size_t)par; i++) {
        /* the input area, then a guard page; shared with the child so the
         * input that killed it can still be shown */
        uint8_t *map = mmap(NULL, region_size + page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        void *sl = mmap(NULL, sizeof(slot), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (map == MAP_FAILED || sl == MAP_FAILED || mprotect(map + region_size, page, PROT_NONE) != 0) {
            printf("FAIL security: cannot map the guarded input areas: %s\n", strerror(errno));
            exit(1);
        }
        rs[i].region = map;
        rs[i].sl = sl;
    }
    while (printed < nsources) {
        /* start children while there are free slots */
        for (i = 0; i < (size_t)par && next < nsources; i++)
            if (rs[i].pid == 0) {
                memset(rs[i].sl, 0, sizeof(slot));
                rs[i].si = next++;
                rs[i].crashes = 0;
                start_child(&rs[i], 0, 0);
            }
        /* wait for one to end */
        {
            int status = 0;
            pid_t pid = waitpid(-1, &status, 0);
            if (pid < 0) {
                if (errno == EINTR) continue;
                printf("FAIL security: waitpid: %s\n", strerror(errno));
                exit(1);
            }
            for (i = 0; i < (size_t)par; i++)
                if (rs[i].pid == pid) {
                    size_t si = rs[i].si;
                    child_ended(&rs[i], status);
                    if (rs[i].pid == 0) outcomes[si].res.finished = 2; /* done */
                    break;
                }
        }
        /* print what is complete, in order */
        while (printed < nsources && outcomes[printed].res.finished == 2) report_source(printed++);
    }
    for (i = 0; i < (size_t)par; i++) {
        munmap(rs[i].region, region_size + page);
        munmap(rs[i].sl, sizeof(slot));
    }
    free(rs);
}

/* ------------------------------------------------------------ I3 (static) */

/* Text of the body of a top-level C function `name` in text, or NULL. */
static const char *find_body(const char *text, const char *name, size_t *body_len)
{
    size_t nl = strlen(name);
    const char *p = text;
    while ((p = strstr(p, name)) != NULL) {
        const char *q = p + nl, *ls = p;
        int depth = 0;
        if ((p > text && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') ||
                          (p[-1] >= '0' && p[-1] <= '9'))) || *q != '(') { p = q; continue; }
        while (ls > text && ls[-1] != '\n') ls--;
        if (*ls == ' ' || *ls == '\t' || *ls == '#' || *ls == '/' || *ls == '*' || ls == p) { p = q; continue; }
        /* the parameter list, then '{' means a definition */
        for (; *q; q++) {
            if (*q == '(') depth++;
            else if (*q == ')' && --depth == 0) { q++; break; }
        }
        while (*q == ' ' || *q == '\n' || *q == '\t' || *q == '\r') q++;
        if (*q == '{') {
            const char *b = q;
            depth = 0;
            for (; *q; q++) {
                /* braces inside comments, string and character literals do not count */
                if (q[0] == '/' && q[1] == '*') {
                    const char *c = strstr(q + 2, "*/");
                    if (!c) return NULL;
                    q = c + 1;
                    continue;
                }
                if (*q == '"' || *q == '\'') {
                    char quote = *q;
                    for (q++; *q && *q != quote; q++)
                        if (*q == '\\' && q[1]) q++;
                    if (!*q) return NULL;
                    continue;
                }
                if (*q == '{') depth++;
                else if (*q == '}' && --depth == 0) { *body_len = (size_t)(q + 1 - b); return b; }
            }
            return NULL;
        }
        p = q;
    }
    return NULL;
}

static const char *const allocators[] = {"malloc(", "calloc(", "realloc(", "free(", "strdup(", "strndup(",
                                         "aligned_alloc(", "posix_memalign(", "alloca(", "mmap(", "fopen(", NULL};

/* The runtime functions I3 allows to allocate (docs/SECURITY.md): the
 * list of a map header's entries and the parser's key area, both in
 * proportion to the header text already in memory, all given back
 * before the validator returns (test_header_arrays_map "memory: ... gives back
 * every byte it took").  Nothing else a validator reaches may. */
static const char *const bounded_allocators[] = {"afmt_header_map_grow", "afmt_header_map_work", "afmt_header_map_free", NULL};

static int is_bounded_allocator(const char *where)
{
    int i;
    for (i = 0; bounded_allocators[i]; i++)
        if (strcmp(where, bounded_allocators[i]) == 0) return 1;
    return 0;
}

/* Source texts the scan reads: every runtime .c and .h and one generated
 * file (the runtime had 82 in runtime ABI 15, with the archive files). */
#define SCAN_TEXTS_MAX 256

typedef struct scan {
    char *texts[SCAN_TEXTS_MAX];
    int ntexts;
    char seen[256][64];
    int nseen;
    char bad[512];
    char unresolved[512];
    int scratch;          /* reaches the run's scratch memory (afmt_scratch_grow) */
    int archive;          /* reaches afmt_archive_validate (an archive item) */
    int inflated;         /* reaches afmt_inflated_open (an inflated region) */
} scan;

/* The run's scratch memory (runtime/core/afmt_scratch.c) is the one allocator
 * a validator may reach, and only for a spec that keeps records ("unique",
 * "directory"): the scan notes its use instead of following it.  Freeing
 * it at the end of every run (afmt_scratch_free_all) or after a step
 * (afmt_scratch_free_since: a key-value's lists) allocates nothing. */
static int scratch_call(scan *sc, const char *id)
{
    /* an archive keeps its member table, the bytes of deflated members a
     * rule parses and a pickle's values, each bounded by the input's own
     * bytes and freed before it returns (docs/SECURITY.md I3): noted, not
     * followed, as the scratch is */
    if (!strcmp(id, "afmt_archive_validate")) {
        sc->archive = 1;
        return 1;
    }
    /* an inflated region keeps what it inflates to, its size held to
     * limits.max_decoded_bytes before it is allocated (in the scratch, so
     * limits.max_kept_bytes too), freed when the region closes; and its
     * decoder while it inflates (docs/SECURITY.md I3): noted, not followed */
    if (!strcmp(id, "afmt_inflated_open")) {
        sc->inflated = 1;
        return 1;
    }
    if (!strcmp(id, "afmt_scratch_free_all") || !strcmp(id, "afmt_scratch_free_since")) return 1;
    if (!strcmp(id, "afmt_scratch_grow")) {
        sc->scratch = 1;
        return 1;
    }
    return 0;
}

static int ident_char(char ch) { return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'); }

static void scan_code(scan *sc, const char *code, size_t n, const char *where, int depth)
{
    size_t i;
    int a;
    for (a = 0; allocators[a] && !is_bounded_allocator(where); a++) {
        const char *p = code;
        size_t al = strlen(allocators[a]);
        for (; (p = strstr(p, allocators[a])) != NULL && (size_t)(p - code) < n; p += al)
            if (p == code || !ident_char(p[-1])) {
                size_t bl = strlen(sc->bad);
                snprintf(sc->bad + bl, sizeof sc->bad - bl, "%s%.*s in %s", bl ? "; " : "", (int)al - 1, allocators[a], where);
                break;
            }
    }
    if (depth > 12) return;
    /* follow calls of afmt_* functions into the runtime */
    for (i = 0; i + 5 < n; i++) {
        char id[64];
        size_t k = 0, j;
        int t, found = 0;
        if (strncmp(code + i, "afmt_", 5) != 0 || (i > 0 && ident_char(code[i - 1]))) continue;
        while (i + k < n && ident_char(code[i + k]) && k + 1 < sizeof id) { id[k] = code[i + k]; k++; }
        id[k] = 0;
        j = i + k;
        while (j < n && code[j] == ' ') j++;
        i += k;
        if (j >= n || code[j] != '(') continue;
        for (t = 0; t < sc->nseen; t++)
            if (!strcmp(sc->seen[t], id)) break;
        if (t < sc->nseen || sc->nseen >= 256) continue;
        snprintf(sc->seen[sc->nseen++], sizeof sc->seen[0], "%s", id);
        if (scratch_call(sc, id)) continue;
        for (t = 0; t < sc->ntexts && !found; t++) {
            size_t bl;
            const char *b = find_body(sc->texts[t], id, &bl);
            if (b) {
                found = 1;
                scan_code(sc, b, bl, sc->seen[sc->nseen - 1], depth + 1);
            }
        }
        if (!found) {
            size_t ul = strlen(sc->unresolved);
            snprintf(sc->unresolved + ul, sizeof sc->unresolved - ul, "%s%s", ul ? " " : "", id);
        }
    }
}

/* A generated validator keeps records: a repeat's unique keys or a
 * directory's records (spec/LANGUAGE.md). */
static int keeps_records(const char *src)
{
    return strstr(src, "afmt_unique_keys_add") != NULL || strstr(src, "afmt_dir_add(") != NULL;
}

/* The runtime's files as paths under runtime/: those beside afmt.h and
 * those in its folders (core/afmt_step.c), sorted; NULL if absent. */
static char **list_runtime(size_t *n)
{
    size_t i, j, nd, nf;
    char **top = list_dir("runtime", &nd);
    char **v = NULL;
    *n = 0;
    for (i = 0; top && i < nd; i++) {
        char dir[600];
        char **files;
        snprintf(dir, sizeof dir, "runtime/%s", top[i]);
        files = list_dir(dir, &nf);
        if (!files) { /* a file beside afmt.h */
            v = realloc(v, sizeof *v * (*n + 1));
            if (!v) break;
            v[(*n)++] = strdup(top[i]);
            continue;
        }
        for (j = 0; j < nf; j++) {
            char path[1200];
            snprintf(path, sizeof path, "%s/%s", top[i], files[j]);
            v = realloc(v, sizeof *v * (*n + 1));
            if (!v) break;
            v[(*n)++] = strdup(path);
        }
        free_list(files, nf);
        if (!v) break;
    }
    free_list(top, nd);
    return v;
}

static void check_static_no_alloc(void)
{
    size_t f, i, n;
    char **v = list_runtime(&n);
    scan base;
    memset(&base, 0, sizeof base);
    for (i = 0; v && i < n; i++) {
        char path[1300];
        uint64_t len;
        size_t l = strlen(v[i]);
        if (l < 2 || (strcmp(v[i] + l - 2, ".c") != 0 && strcmp(v[i] + l - 2, ".h") != 0)) continue;
        if (base.ntexts == SCAN_TEXTS_MAX - 1) { /* one place stays for the generated file */
            printf("FAIL I3 no allocation: runtime/ has more than %d source files; raise SCAN_TEXTS_MAX\n",
                   SCAN_TEXTS_MAX - 1);
            check_failures++;
            break;
        }
        snprintf(path, sizeof path, "runtime/%s", v[i]);
        base.texts[base.ntexts] = slurp_text(path, &len);
        if (base.texts[base.ntexts]) base.ntexts++;
    }
    free_list(v, n);
    if (base.ntexts == 0) {
        printf("note: runtime/ not found from %s: the static allocation scan (I3) is skipped\n", getenv("PWD") ? getenv("PWD") : ".");
        return;
    }
    for (f = 0; f < afmt_format_count; f++) {
        const char *name = afmt_formats[f]->name;
        char path[600], marker[128], check[1024];
        uint64_t len;
        char *src;
        const char *end;
        scan sc;
        snprintf(path, sizeof path, "generated/%s.c", name);
        src = slurp_text(path, &len);
        if (!src) { printf("note: %s not found: the static allocation scan of %s (I3) is skipped\n", path, name); continue; }
        /* everything before the writer: detect, helpers, validate */
        snprintf(marker, sizeof marker, "static int %s_write_impl(", name);
        end = strstr(src, marker);
        sc = base;
        /* helpers and wrappers of the generated file itself */
        if (sc.ntexts < SCAN_TEXTS_MAX) sc.texts[sc.ntexts++] = src;
        scan_code(&sc, src, end ? (size_t)(end - src) : (size_t)len, path, 0);
        snprintf(check, sizeof check, "I3 no allocation: %s validate calls no allocator%s (source scan of %s and %d runtime functions)",
                 name, keeps_records(src) ? " but the run's scratch for the records it keeps"
                       : sc.archive ? " but the archive's, bounded by its bytes"
                       : sc.inflated ? " but an inflated region's, bounded by limits.max_decoded_bytes" : "", path, sc.nseen);
        if (sc.scratch && !keeps_records(src)) {
            printf("FAIL %s: it reaches afmt_scratch_grow but keeps no records (no unique key, no directory)\n", check);
            check_failures++;
        } else if (sc.bad[0]) {
            printf("FAIL %s: %s\n", check, sc.bad);
            check_failures++;
        } else if (sc.unresolved[0]) {
            printf("FAIL %s: cannot find the definition of: %s\n", check, sc.unresolved);
            check_failures++;
        } else {
            printf("PASS %s\n", check);
        }
        free(src);
    }
    for (i = 0; i < (size_t)base.ntexts; i++) free(base.texts[i]);
}

/* ------------------------------------------------------------ I9 writers */

typedef struct keep {
    afmt_array a[16];
    int n;
    afmt_views copies;  /* the transient views' bytes (keep_array) */
} keep;

/* A view whose data lives only during on_array (an inflated member's,
 * data_transient) is kept through afmt_views_add, which copies its bytes
 * (CSR indices too): the checks below read it after validate returns. */
static int keep_array(void *vctx, const afmt_array *a)
{
    keep *k = vctx;
    if (k->n < 16) {
        k->a[k->n] = *a;
        if (a->data_transient) {
            if (afmt_views_add(&k->copies, a) != 0 || k->copies.oom || k->copies.n > k->copies.max) return -1;
            k->a[k->n] = k->copies.v[k->copies.n - 1];
        }
    }
    k->n++;
    return 0;
}

static void keep_init(keep *k)
{
    memset(k, 0, sizeof *k);
    afmt_views_init(&k->copies, 16);
}

static void keep_free(keep *k) { afmt_views_free(&k->copies); }

/* Write arrays[0..n) with format t; if it can, its own validator must
 * accept the bytes.  Returns 1 if something was written. */
static int write_and_validate(const afmt_format *t, const afmt_array *arrays, size_t n, const char *label)
{
    uint64_t size = 0;
    afmt_error e;
    afmt_sink sink;
    uint8_t *out;
    char name[1024];
    int rc;
    if (t->encoded_size(arrays, n, NULL, &size, &e) != 0) return 0;
    out = malloc(size ? size : 1);
    if (!out) return 0;
    afmt_sink_buffer(&sink, out, size);
    snprintf(name, sizeof name, "I9 writer output validates: %s -> %s (%zu array%s, %" PRIu64 " bytes)", label, t->name, n,
             n == 1 ? "" : "s", size);
    rc = t->write(arrays, n, NULL, &sink, &e);
    if (rc != 0 || sink.written != size) {
        printf("FAIL %s: encoded_size said %" PRIu64 " bytes but write %s (%" PRIu64 " bytes): %s\n", name, size,
               rc ? "failed" : "succeeded", sink.written, e.message);
        check_failures++;
    } else {
        afmt_error v;
        keep back;
        afmt_visitor vis;
        keep_init(&back);
        memset(&vis, 0, sizeof vis);
        vis.ctx = &back;
        vis.on_array = keep_array;
        rc = t->validate(out, size, NULL, &vis, &v);
        if (rc != 0) {
            char d[600];
            afmt_error_describe(&v, d, sizeof d);
            printf("FAIL %s: the %s validator rejects it: %s\n", name, t->name, d);
            check_failures++;
        } else if ((size_t)back.n < n) {
            printf("FAIL %s: the validator finds %d arrays, %zu were written\n", name, back.n, n);
            check_failures++;
        } else {
            printf("PASS %s\n", name);
        }
        keep_free(&back);
    }
    free(out);
    return 1;
}

static void check_writers(void)
{
    size_t si, f, t;
    int wrote_any = 0;
    for (si = 0; si < nsources; si++) {
        const source *s = &sources[si];
        for (f = 0; f < afmt_format_count; f++) {
            keep k;
            afmt_visitor vis;
            afmt_error e;
            afmt_array plain[16];
            uint8_t *bufs[16];
            int i, n, ok = 1;
            keep_init(&k);
            memset(&vis, 0, sizeof vis);
            vis.ctx = &k;
            vis.on_array = keep_array;
            if (afmt_formats[f]->validate(s->data, s->len, NULL, &vis, &e) != 0 || k.n == 0 || k.n > 16) {
                keep_free(&k);
                continue;
            }
            n = k.n;
            for (t = 0; t < afmt_format_count; t++) {
                const afmt_format *tf = afmt_formats[t];
                char label[700];
                for (i = 0; i < n; i++) bufs[i] = NULL;
                ok = 1;
                for (i = 0; i < n && ok; i++) {
                    uint64_t size;
                    if (afmt_array_plain_size(&k.a[i], &size, &e) != 0 || size > (64u << 20)) { ok = 0; break; }
                    bufs[i] = malloc(size ? size : 1);
                    if (!bufs[i] || afmt_array_to_plain(&k.a[i], tf->order, bufs[i], size, &e) != 0) { ok = 0; break; }
                    afmt_array_plain_view(&k.a[i], tf->order, bufs[i], &plain[i]);
                }
                if (ok) {
                    snprintf(label, sizeof label, "%s (as %s)", s->label, afmt_formats[f]->name);
                    /* all arrays at once; else one by one */
                    if (write_and_validate(tf, plain, (size_t)n, label)) wrote_any = 1;
                    else if (n > 1)
                        for (i = 0; i < n; i++) {
                            char one[800];
                            snprintf(one, sizeof one, "%s array %d", label, i);
                            if (write_and_validate(tf, &plain[i], 1, one)) wrote_any = 1;
                        }
                }
                for (i = 0; i < n; i++) free(bufs[i]);
            }
            keep_free(&k);
        }
    }
    CHECK("I9 writers: at least one array was written and re-validated", wrote_any);
}

/* ------------------------------------------------------------ I10 sinks */

static int count_entries(const char *dir, const char *prefix, int *exact)
{
    size_t n, i;
    char **v = list_dir(dir, &n);
    int c = 0;
    *exact = 0;
    for (i = 0; v && i < n; i++) {
        if (!strcmp(v[i], prefix)) *exact = 1;
        else if (!strncmp(v[i], prefix, strlen(prefix))) c++;
    }
    free_list(v, n);
    return c;
}

static int file_is(const char *path, const char *want)
{
    uint64_t len = 0;
    uint8_t *d = fz_read_file(path, &len);
    int ok = d && len == strlen(want) && memcmp(d, want, len) == 0;
    free(d);
    return ok;
}

static void check_file_sink(void)
{
    char dir[] = "/tmp/afmt_security_XXXXXX", path[256];
    afmt_sink s;
    afmt_error e;
    int exact, temps;
    FILE *f;
    if (!mkdtemp(dir)) { printf("FAIL I10 atomic file write: mkdtemp: %s\n", strerror(errno)); check_failures++; return; }
    snprintf(path, sizeof path, "%s/out.bin", dir);
    CHECK("I10 atomic file write: open makes a temporary file beside the target",
          afmt_sink_file_open(&s, path, &e) == 0 && (temps = count_entries(dir, "out.bin", &exact)) == 1 && !exact);
    CHECK("I10 atomic file write: nothing appears at the target before commit",
          afmt_sink_put(&s, "new", 3, &e) == 0 && (fflush(s.fp), count_entries(dir, "out.bin", &exact)) == 1 && !exact);
    CHECK("I10 atomic file write: commit renames it into place",
          afmt_sink_commit(&s, &e) == 0 && count_entries(dir, "out.bin", &exact) == 0 && exact && file_is(path, "new"));
    f = fopen(path, "wb");
    if (f) { fputs("old", f); fclose(f); }
    CHECK("I10 atomic file write: an aborted write leaves the old file and no temporary",
          afmt_sink_file_open(&s, path, &e) == 0 && afmt_sink_put(&s, "partial", 7, &e) == 0 &&
              (afmt_sink_abort(&s), count_entries(dir, "out.bin", &exact)) == 0 && exact && file_is(path, "old"));
    CHECK("I10 atomic file write: a failed sink refuses to commit and keeps the old file",
          afmt_sink_file_open(&s, path, &e) == 0 && (s.failed = 1, afmt_sink_commit(&s, &e)) != 0 &&
              e.code == AFMT_E_IO && count_entries(dir, "out.bin", &exact) == 0 && exact && file_is(path, "old"));
    CHECK("I10 atomic file write: a commit replaces the old file whole",
          afmt_sink_file_open(&s, path, &e) == 0 && afmt_sink_put(&s, "replacement", 11, &e) == 0 &&
              afmt_sink_commit(&s, &e) == 0 && count_entries(dir, "out.bin", &exact) == 0 && exact &&
              file_is(path, "replacement"));
    unlink(path);
    rmdir(dir);
    (void)temps;
}

/* ------------------------------------------------------------ main */

/* glibc keeps small freed chunks in a per-thread cache that mallinfo2
 * counts as in use, so the heap of a validator that frees its scratch at
 * the end of each run (GGUF's keys and records) would look as if it grew:
 * run once more with that cache off, so the meter sees what is allocated. */
static void heap_meter_without_tcache(void)
{
#if defined(SEC_HAVE_HEAP_METER) && !defined(SEC_ASAN)
    static char *const self[] = {"test_security", NULL};
    if (getenv("AFMT_SEC_NO_TCACHE")) return;
    setenv("AFMT_SEC_NO_TCACHE", "1", 1);
    setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0", 1);
    execv("/proc/self/exe", self); /* on failure, go on as before */
#endif
}

int main(void)
{
    static char outbuf[1 << 16];
    const char *samples;
    int verbose = getenv("AFMT_TEST_VERBOSE") != NULL;
    uint64_t max_len = 0, page = (uint64_t)sysconf(_SC_PAGESIZE);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int par = cpus < 1 ? 1 : cpus > 4 ? 4 : (int)cpus;
    size_t si, r, f;
    struct timespec t0, t1;

    heap_meter_without_tcache();
    /* stdout's buffer is ours from the start: printing allocates nothing */
    setvbuf(stdout, outbuf, _IOLBF, sizeof outbuf);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    samples = samples_root("test_security on the samples (the corpus/ copies and golden inputs run instead)");
    CHECK("security: the registry holds formats", afmt_format_count > 0 && afmt_format_count <= MAXF);
    collect_sources(samples);
    for (r = 0; r < sizeof regression_inputs / sizeof regression_inputs[0]; r++) {
        uint64_t len = 0;
        uint8_t *d = build_input(regression_inputs[r].ops, &len);
        if (d) add_source(regression_inputs[r].name, d, len, 1);
    }
    CHECK("security: found inputs (samples or golden cases)", nsources > sizeof regression_inputs / sizeof regression_inputs[0]);
    for (si = 0; si < nsources; si++)
        if (sources[si].len > max_len) max_len = sources[si].len;
    region_size = (max_len + GROW_MAX + page - 1) / page * page;
#if !defined(SEC_HAVE_HEAP_METER)
    if (verbose) printf("note: no heap meter (mallinfo2 or the sanitizer allocator) in this build: the dynamic I3 check is skipped\n");
#endif
#if defined(SEC_ASAN)
    if (verbose) printf("note: sanitizer build: I8 validates whole files and every second prefix and mutation twice\n");
#endif
    run_all(page, par);

    /* I4 per format: no validation died (a fault, or a stack that grew
     * past the limit); the heap part is the I3 lines */
    for (f = 0; f < afmt_format_count && f < MAXF; f++) {
        char name[256];
        snprintf(name, sizeof name, "I4 fixed memory: %s: %" PRIu64 " validations under a %llu MiB stack limit without a fault",
                 afmt_formats[f]->name, fmt_runs[f], (unsigned long long)(STACK_LIMIT >> 20));
        if (fmt_crashes[f] == 0) {
            printf("PASS %s\n", name);
        } else {
            printf("FAIL %s: %" PRIu64 " validation(s) died (see the I1 lines)\n", name, fmt_crashes[f]);
            check_failures++;
        }
    }
    check_static_no_alloc();
    check_writers();
    check_file_sink();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (verbose)
        printf("note: test_security ran in %.1f s (%d children at a time)\n",
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, par);
    CHECK_DONE();
}
