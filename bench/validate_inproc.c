/* afmt bench: in-process validation against memcpy of the same bytes.
 *
 *   validate_inproc FORMAT FILE [RUNS]
 *   validate_inproc --to-row-major FORMAT FILE [RUNS]
 *   validate_inproc --read FORMAT FILE [RUNS]
 *   validate_inproc --write FORMAT FILE OUT [RUNS]
 *   validate_inproc --transpose ES ROWS COLS [RUNS]
 *
 * Maps FILE (MAP_POPULATE, page cache warm), pre-touches a destination
 * buffer of the same size, then alternates RUNS times (default 9):
 *   tool:     afmt_<FORMAT>_validate(map, len, NULL opts = strict defaults
 *             with value checks, no visitor)
 *   baseline: memcpy(dst, map, len)
 * With --to-row-major the tool is instead afmt_array_to_plain() of the
 * file's first array into row-major order (for a column-major rawarray:
 * the cache-blocked transpose that `afmt convert` runs), into the same
 * pre-touched buffer, and the baseline a memcpy of that array's bytes.
 * With --read the tool is the whole read of FILE into memory as a library
 * user does it: afmt_file_open (open, map, nothing read), validate (strict,
 * value checks), and afmt_file_read_array of its first array, in its own
 * order, into the pre-touched caller buffer (what afmt_array_to_plain
 * gives, read with pread when the bytes need no decoding); close.  The baseline: memcpy of the
 * payload.  (numpy's peer: np.fromfile, bench/np_peer.py.)
 * With --write the tool writes FILE's first array (decoded beforehand
 * into memory) as FORMAT to OUT with the format's writer through a stdio
 * sink (fopen, write, fclose; no fsync, like numpy's tofile); OUT is
 * deleted, untimed, before each round.  No baseline (its columns print
 * 0): a round is delete + write and nothing else, as in numpy's peer
 * (bench/np_peer.py), and no second GiB is touched that numpy's process
 * does not touch; row 8d/8e compare the two processes.
 * With --transpose no file is read: a column-major array of ROWS x COLS
 * elements of ES bytes (1 u8, 2 u16, 4 f32, 8 f64, 16 c128) is made in
 * memory and afmt_array_to_plain turns it row-major, against memcpy of
 * the same bytes, both buffers pre-touched.
 * Prints, on one line:
 *   RESULT <tool median s> <baseline median s> <bytes> <tool min s> <tool max s> <base min s> <base max s>
 * Each timed sample of a very fast validator (< 1 ms) is a batch of calls
 * divided by the batch size, so the clock's resolution does not dominate.
 * Timing: clock_gettime(CLOCK_MONOTONIC).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "afmt.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static const afmt_format *fmt;
static afmt_array first;
static int have_first;

static int keep_first(void *ctx, const afmt_array *a)
{
    (void)ctx;
    if (!have_first) {
        first = *a;
        have_first = 1;
    }
    return 0;
}

/* The first array of buf (a whole file) into `first`. */
static int first_array(const uint8_t *buf, uint64_t len)
{
    afmt_visitor vis;
    afmt_error err;

    memset(&vis, 0, sizeof vis);
    vis.on_array = keep_first;
    have_first = 0;
    afmt_error_clear(&err);
    if (fmt->validate(buf, len, NULL, &vis, &err) != 0 || !have_first) {
        fprintf(stderr, "validate_inproc: %s: invalid or no array: %s\n", fmt->name, err.message);
        return -1;
    }
    return 0;
}

/* A library user's read of a whole file into a buffer of theirs, through
 * the library's file API: afmt_file_open (maps the file, reads nothing),
 * the format's validator on the mapping, afmt_file_read_array (pread
 * straight into dst when the stored bytes need no decoding), close. */
static int read_once(const char *path, uint8_t *dst, uint64_t cap)
{
    afmt_file f;
    afmt_error err;
    int rc;

    afmt_error_clear(&err);
    if (afmt_file_open(&f, path, &err) != 0) {
        fprintf(stderr, "validate_inproc: %s\n", err.message);
        return -1;
    }
    rc = first_array(f.data, f.len) == 0 &&
                 afmt_file_read_array(&f, &first, first.order, dst, cap, &err) == 0
             ? 0
             : -1;
    if (rc != 0 && err.code != AFMT_OK)
        fprintf(stderr, "validate_inproc: read: %s\n", err.message);
    afmt_file_close(&f);
    return rc;
}

/* One array written as fmt to path through a stdio sink. */
static int write_once(const char *path, const afmt_array *view)
{
    afmt_sink sink;
    afmt_error err;
    FILE *f = fopen(path, "wb");
    int rc;

    if (!f)
        return -1;
    afmt_sink_stdio(&sink, f);
    afmt_error_clear(&err);
    rc = fmt->write(view, 1, NULL, &sink, &err);
    if (fclose(f) != 0)
        rc = -1;
    if (rc != 0)
        fprintf(stderr, "validate_inproc: write: %s\n", err.message);
    return rc;
}

static void validate_once(const uint8_t *buf, uint64_t len)
{
    afmt_error err;
    afmt_error_clear(&err);
    if (fmt->validate(buf, len, NULL, NULL, &err) != 0) {
        char msg[1024];
        afmt_error_describe(&err, msg, sizeof msg);
        fprintf(stderr, "validate_inproc: %s: invalid: %s\n", fmt->name, msg);
        exit(1);
    }
}

/* The tool step of alternate(): returns 0 when it worked. */
typedef int (*timed_op)(void *ctx);

/* runs + 1 rounds (round 0 warms up, untimed) of: prep(ctx) untimed when
 * given, op(ctx) timed into tv, memcpy(cd, cs, n) timed into bv (cd NULL:
 * no baseline, bv 0); tool and baseline alternate so that both see the
 * same machine.  -1 when op failed. */
static int alternate(timed_op op, void (*prep)(void *), void *ctx, void *cd, const void *cs,
                     uint64_t n, double *tv, double *bv, int runs)
{
    double t0, t1;
    int i;

    for (i = 0; i <= runs; i++) {
        if (prep)
            prep(ctx);
        t0 = now();
        if (op(ctx) != 0)
            return -1;
        __asm__ __volatile__("" : : "r"(cd) : "memory");
        t1 = now();
        if (i)
            tv[i - 1] = t1 - t0;
        if (!cd) {
            if (i)
                bv[i - 1] = 0;
            continue;
        }
        t0 = now();
        memcpy(cd, cs, (size_t)n);
        /* The copy must happen: make cd observable. */
        __asm__ __volatile__("" : : "r"(cd) : "memory");
        t1 = now();
        if (i)
            bv[i - 1] = t1 - t0;
    }
    return 0;
}

/* What the timed operations of main and transpose_bench work on. */
typedef struct op_ctx {
    const afmt_array *a;   /* to_plain: the array; write: the view to write */
    uint8_t *dst;          /* to_plain / read: destination */
    uint64_t cap;          /* its size */
    afmt_order order;      /* to_plain: the order wanted */
    const char *path;      /* read: the file; write: the output */
} op_ctx;

static int op_to_plain(void *c)
{
    op_ctx *x = c;
    afmt_error err;
    afmt_error_clear(&err);
    if (afmt_array_to_plain(x->a, x->order, x->dst, x->cap, &err) == 0)
        return 0;
    fprintf(stderr, "validate_inproc: afmt_array_to_plain failed: %s\n", err.message);
    return -1;
}

static int op_read(void *c)
{
    op_ctx *x = c;
    return read_once(x->path, x->dst, x->cap);
}

static int op_write(void *c)
{
    op_ctx *x = c;
    return write_once(x->path, x->a);
}

/* An output is deleted before it is written again: overwriting would wait
 * on the old file's writeback (BENCH-NOTES). */
static void prep_write(void *c)
{
    unlink(((op_ctx *)c)->path);
}

/* --transpose ES ROWS COLS [RUNS]: see the top of the file. */
static int transpose_bench(int argc, char **argv)
{
    uint64_t es = strtoull(argv[2], NULL, 10), rows = strtoull(argv[3], NULL, 10);
    uint64_t cols = strtoull(argv[4], NULL, 10), n = rows * cols * es, k;
    int runs = argc > 5 ? atoi(argv[5]) : 9;
    afmt_dtype dt = es == 1 ? AFMT_U8 : es == 2 ? AFMT_U16 : es == 4 ? AFMT_F32 : es == 8 ? AFMT_F64 : AFMT_C128;
    uint8_t *src = malloc((size_t)n), *dst = malloc((size_t)n);
    double *tv = calloc((size_t)(runs > 0 ? runs : 1), sizeof *tv), *bv = calloc((size_t)(runs > 0 ? runs : 1), sizeof *bv);
    afmt_array a;
    op_ctx ctx;

    if (runs < 1 || n == 0 || afmt_dtype_get(dt)->size != es || !src || !dst || !tv || !bv) {
        fprintf(stderr, "validate_inproc: --transpose ES(1,2,4,8,16) ROWS COLS [RUNS]\n");
        return 2;
    }
    for (k = 0; k < n; k++)
        src[k] = (uint8_t)(k * 2654435761u >> 13);
    memset(dst, 1, (size_t)n);
    afmt_array_init(&a, dt);
    a.rank = 2;
    a.dims[0] = rows;
    a.dims[1] = cols;
    a.count = rows * cols;
    a.order = AFMT_COL_MAJOR;
    a.data = src;
    a.nbytes = n;
    ctx.a = &a;
    ctx.dst = dst;
    ctx.cap = n;
    ctx.order = AFMT_ROW_MAJOR;
    if (alternate(op_to_plain, NULL, &ctx, dst, src, n, tv, bv, runs) != 0)
        return 1;
    {
        double tm = median(tv, runs), bm = median(bv, runs); /* sorts them */
        printf("RESULT %.9f %.9f %llu %.9f %.9f %.9f %.9f\n", tm, bm, (unsigned long long)n,
               tv[0], tv[runs - 1], bv[0], bv[runs - 1]);
    }
    free(src);
    free(dst);
    free(tv);
    free(bv);
    return 0;
}

int main(int argc, char **argv)
{
    const char *path;
    struct stat st;
    uint8_t *map, *dst;
    uint64_t len;
    double *tv, *bv, t0, t1;
    long batch = 1, b;
    int runs = 9, fd, i, to_plain = 0, read_mode = 0, write_mode = 0;
    const char *out_path = NULL;
    uint64_t copy_len;
    const uint8_t *copy_src;
    op_ctx ctx;

    if (argc > 4 && strcmp(argv[1], "--transpose") == 0)
        return transpose_bench(argc, argv);
    if (argc > 1 && strcmp(argv[1], "--to-row-major") == 0) {
        to_plain = 1;
        argv++;
        argc--;
    } else if (argc > 1 && strcmp(argv[1], "--read") == 0) {
        read_mode = 1;
        argv++;
        argc--;
    } else if (argc > 2 && strcmp(argv[1], "--write") == 0) {
        /* --write FORMAT FILE OUT [RUNS] -> FORMAT FILE [RUNS] */
        write_mode = 1;
        if (argc < 5)
            argc = 0; /* usage */
        else {
            out_path = argv[4];
            argv[4] = argv[3];
            argv[3] = argv[2];
            argv[2] = argv[0];
            argv += 2;
            argc -= 2;
        }
    }
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: validate_inproc [--to-row-major | --read] FORMAT FILE [RUNS]\n"
                        "       validate_inproc --write FORMAT FILE OUT [RUNS]\n");
        return 2;
    }
    fmt = afmt_format_by_name(argv[1]);
    if (!fmt) {
        fprintf(stderr, "validate_inproc: unknown format %s\n", argv[1]);
        return 2;
    }
    path = argv[2];
    if (argc == 4)
        runs = atoi(argv[3]);
    if (runs < 1)
        runs = 1;
    fd = open(path, O_RDONLY);
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
        perror(path);
        return 2;
    }
    len = (uint64_t)st.st_size;
    map = mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (map == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    close(fd);
    dst = malloc((size_t)len);
    tv = calloc((size_t)runs, sizeof *tv);
    bv = calloc((size_t)runs, sizeof *bv);
    if (!dst || !tv || !bv) {
        fprintf(stderr, "validate_inproc: out of memory\n");
        return 2;
    }
    /* Pre-touch: first touches of fresh memory are slow and bimodal on
     * these machines (BENCH-NOTES); none of that may land in a sample. */
    memset(dst, 1, (size_t)len);
    memcpy(dst, map, (size_t)len);
    memset(&ctx, 0, sizeof ctx);
    copy_src = map;
    copy_len = len;

    if (read_mode || write_mode) {
        afmt_array view;
        uint8_t *copy_dst = dst;
        if (first_array(map, len) != 0)
            return 1;
        copy_src = first.data;
        copy_len = first.nbytes;
        if (write_mode) {
            /* the array to write, decoded into dst; the memcpy goes elsewhere */
            if (afmt_array_to_plain(&first, first.order, dst, len, NULL) != 0)
                return 1;
            afmt_array_plain_view(&first, first.order, dst, &view);
            copy_dst = NULL; /* no baseline: see the top of the file */
        }
        ctx.a = &view;
        ctx.dst = dst;
        ctx.cap = len;
        ctx.path = read_mode ? path : out_path;
        if (alternate(read_mode ? op_read : op_write, write_mode ? prep_write : NULL, &ctx,
                      copy_dst, copy_src, copy_len, tv, bv, runs) != 0) {
            fprintf(stderr, "validate_inproc: %s failed\n", read_mode ? "read" : "write");
            return 1;
        }
        if (write_mode)
            unlink(out_path);
        goto report;
    }

    if (to_plain) {
        afmt_visitor vis;
        afmt_error err;
        uint64_t need;
        memset(&vis, 0, sizeof vis);
        vis.on_array = keep_first;
        afmt_error_clear(&err);
        if (fmt->validate(map, len, NULL, &vis, &err) != 0 || !have_first ||
            afmt_array_plain_size(&first, &need, &err) != 0 || need > len) {
            fprintf(stderr, "validate_inproc: %s: no array to reorder\n", path);
            return 1;
        }
        copy_src = first.data;
        copy_len = first.nbytes;
        ctx.a = &first;
        ctx.dst = dst;
        ctx.cap = len;
        ctx.order = AFMT_ROW_MAJOR;
        if (alternate(op_to_plain, NULL, &ctx, dst, copy_src, copy_len, tv, bv, runs) != 0)
            return 1;
        goto report;
    }

    /* Warm-up, and the batch size for fast validators. */
    t0 = now();
    validate_once(map, len);
    t1 = now();
    if (t1 - t0 < 1e-3) {
        t0 = now();
        for (b = 0; b < 100; b++)
            validate_once(map, len);
        t1 = now();
        batch = (long)(1e-3 / ((t1 - t0) / 100 + 1e-12)) + 1;
        if (batch > 1000000)
            batch = 1000000;
    }

    for (i = 0; i < runs; i++) {
        t0 = now();
        for (b = 0; b < batch; b++)
            validate_once(map, len);
        t1 = now();
        tv[i] = (t1 - t0) / (double)batch;

        t0 = now();
        memcpy(dst, copy_src, (size_t)copy_len);
        /* The copy must happen: make dst observable. */
        __asm__ __volatile__("" : : "r"(dst) : "memory");
        t1 = now();
        bv[i] = t1 - t0;
    }
report:
    {
        double tmin, tmax, bmin, bmax, tm, bm;
        double *ts = malloc((size_t)runs * sizeof *ts), *bs = malloc((size_t)runs * sizeof *bs);
        if (!ts || !bs)
            return 2;
        memcpy(ts, tv, (size_t)runs * sizeof *ts);
        memcpy(bs, bv, (size_t)runs * sizeof *bs);
        tm = median(ts, runs);
        bm = median(bs, runs);
        tmin = ts[0]; tmax = ts[runs - 1];
        bmin = bs[0]; bmax = bs[runs - 1];
        printf("RESULT %.9f %.9f %llu %.9f %.9f %.9f %.9f\n", tm, bm,
               (unsigned long long)copy_len, tmin, tmax, bmin, bmax);
        free(ts);
        free(bs);
    }
    munmap(map, (size_t)len);
    free(dst);
    free(tv);
    free(bv);
    return 0;
}
