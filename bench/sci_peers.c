/* afmt bench: the scientific formats' reference readers, timed in process
 * (benchmark 13, bench/sci_bench.sh).
 *
 *   sci_peers fits-open FILE RUNS   cfitsio: fits_open_file, the image's
 *                                   type and shape, fits_close_file
 *   sci_peers fits-read FILE RUNS   the same and fits_read_img of the
 *                                   primary image in its stored type into
 *                                   a pre-touched buffer
 *   sci_peers mat-open FILE RUNS    matio: Mat_Open, Mat_VarReadNextInfo
 *                                   of the first variable, Mat_Close
 *   sci_peers mat-read FILE RUNS    Mat_Open, Mat_VarReadNext (the data
 *                                   read or inflated), Mat_VarFree, Mat_Close
 *   sci_peers zlib FILE RUNS        zlib's uncompress of the first
 *                                   top-level miCOMPRESSED element's stream
 *                                   (little-endian file, at offset 128) into
 *                                   a pre-touched buffer of its exact size
 *
 * Each mode runs RUNS rounds after one untimed warm-up and prints
 * "RESULT <median s> <min s> <max s>" (as bench/torch_peer.py does).
 * Built with the peers whose headers are there (HAVE_CFITSIO, HAVE_MATIO,
 * HAVE_ZLIB); a mode without its peer exits 3 saying so.
 * Timing: clock_gettime(CLOCK_MONOTONIC).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_CFITSIO
#include <fitsio.h>
#endif
#ifdef HAVE_MATIO
#include <matio.h>
#endif
#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

typedef int (*round_fn)(const char *path, void *state);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* RUNS rounds after a warm-up; the line on stdout; 0 or 1. */
static int time_rounds(round_fn fn, const char *path, void *state, int runs)
{
    double *s = calloc((size_t)runs, sizeof *s), med;
    int r;

    if (!s || fn(path, state) != 0)
        return 1;
    for (r = 0; r < runs; r++) {
        double t0 = now();
        if (fn(path, state) != 0)
            return 1;
        s[r] = now() - t0;
    }
    qsort(s, (size_t)runs, sizeof *s, by_value);
    med = runs % 2 ? s[runs / 2] : (s[runs / 2 - 1] + s[runs / 2]) / 2;
    printf("RESULT %.9f %.9f %.9f\n", med, s[0], s[runs - 1]);
    free(s);
    return 0;
}

/* A buffer of n bytes, every page touched (not timed). */
static void *touched(size_t n)
{
    unsigned char *p = malloc(n ? n : 1);
    if (p)
        memset(p, 1, n);
    return p;
}

#ifdef HAVE_CFITSIO
typedef struct fits_state {
    void *buf;
    size_t cap;
} fits_state;

static int fits_round(const char *path, fits_state *st, int read)
{
    fitsfile *f = NULL;
    int status = 0, bitpix = 0, naxis = 0, anynul = 0, type;
    LONGLONG n = 1, axes[999];
    int k;

    if (fits_open_file(&f, path, READONLY, &status) ||
        fits_get_img_paramll(f, 999, &bitpix, &naxis, axes, &status))
        goto fail;
    for (k = 0; k < naxis; k++)
        n *= axes[k];
    if (read) {
        size_t bytes = (size_t)n * (size_t)(bitpix < 0 ? -bitpix : bitpix) / 8;
        type = bitpix == 8 ? TBYTE : bitpix == 16 ? TSHORT : bitpix == 32 ? TINT
             : bitpix == 64 ? TLONGLONG : bitpix == -32 ? TFLOAT : TDOUBLE;
        if (!st->buf) {
            st->buf = touched(bytes);
            st->cap = bytes;
        }
        if (!st->buf || st->cap < bytes || fits_read_img(f, type, 1, n, NULL, st->buf, &anynul, &status))
            goto fail;
    }
    fits_close_file(f, &status);
    return status != 0;
fail:
    fits_report_error(stderr, status);
    if (f)
        fits_close_file(f, &status);
    return 1;
}

static int fits_open_round(const char *path, void *st) { return fits_round(path, st, 0); }
static int fits_read_round(const char *path, void *st) { return fits_round(path, st, 1); }
#endif

#ifdef HAVE_MATIO
static int mat_round(const char *path, int read)
{
    mat_t *m = Mat_Open(path, MAT_ACC_RDONLY);
    matvar_t *v;

    if (!m)
        return 1;
    v = read ? Mat_VarReadNext(m) : Mat_VarReadNextInfo(m);
    Mat_Close(m);
    if (!v)
        return 1;
    Mat_VarFree(v);
    return 0;
}

static int mat_open_round(const char *path, void *st) { (void)st; return mat_round(path, 0); }
static int mat_read_round(const char *path, void *st) { (void)st; return mat_round(path, 1); }
#endif

#ifdef HAVE_ZLIB
typedef struct zlib_state {
    unsigned char *in, *out;
    uLong in_len, out_len;
} zlib_state;

/* The stream of the element at 128 and its inflated size (untimed). */
static int zlib_prepare(const char *path, zlib_state *z)
{
    FILE *f = fopen(path, "rb");
    unsigned char tag[8];
    uint32_t type, n;
    z_stream s;
    unsigned char chunk[1 << 16];
    int rc;

    if (!f || fseek(f, 128, SEEK_SET) != 0 || fread(tag, 1, 8, f) != 8)
        return 1;
    type = (uint32_t)tag[0] | (uint32_t)tag[1] << 8 | (uint32_t)tag[2] << 16 | (uint32_t)tag[3] << 24;
    n = (uint32_t)tag[4] | (uint32_t)tag[5] << 8 | (uint32_t)tag[6] << 16 | (uint32_t)tag[7] << 24;
    if (type != 15 || !(z->in = malloc(n)) || fread(z->in, 1, n, f) != n)
        return 1;
    fclose(f);
    z->in_len = n;
    memset(&s, 0, sizeof s);
    if (inflateInit(&s) != Z_OK)
        return 1;
    s.next_in = z->in;
    s.avail_in = n;
    do { /* counted once, untimed, to size the buffer exactly */
        s.next_out = chunk;
        s.avail_out = sizeof chunk;
        rc = inflate(&s, Z_NO_FLUSH);
    } while (rc == Z_OK);
    z->out_len = s.total_out;
    inflateEnd(&s);
    return rc != Z_STREAM_END || !(z->out = touched(z->out_len));
}

static int zlib_round(const char *path, void *st)
{
    zlib_state *z = st;
    uLongf len = z->out_len;
    (void)path;
    return uncompress(z->out, &len, z->in, z->in_len) != Z_OK || len != z->out_len;
}
#endif

int main(int argc, char **argv)
{
    const char *mode = argc == 4 ? argv[1] : "";
    int runs = argc == 4 ? atoi(argv[3]) : 0;

    if (runs < 1) {
        fprintf(stderr, "usage: sci_peers fits-open|fits-read|mat-open|mat-read|zlib FILE RUNS\n");
        return 2;
    }
#ifdef HAVE_CFITSIO
    {
        fits_state st = {NULL, 0};
        if (strcmp(mode, "fits-open") == 0)
            return time_rounds(fits_open_round, argv[2], &st, runs);
        if (strcmp(mode, "fits-read") == 0)
            return time_rounds(fits_read_round, argv[2], &st, runs);
    }
#endif
#ifdef HAVE_MATIO
    if (strcmp(mode, "mat-open") == 0)
        return time_rounds(mat_open_round, argv[2], NULL, runs);
    if (strcmp(mode, "mat-read") == 0)
        return time_rounds(mat_read_round, argv[2], NULL, runs);
#endif
#ifdef HAVE_ZLIB
    if (strcmp(mode, "zlib") == 0) {
        zlib_state z;
        memset(&z, 0, sizeof z);
        if (zlib_prepare(argv[2], &z) != 0) {
            fprintf(stderr, "sci_peers: %s: no miCOMPRESSED element at offset 128\n", argv[2]);
            return 1;
        }
        return time_rounds(zlib_round, argv[2], &z, runs);
    }
#endif
    fprintf(stderr, "sci_peers: %s: this build has no peer for it\n", mode);
    return 3;
}
