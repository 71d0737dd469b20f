/* afmt bench: generate the benchmark inputs (no downloads).
 *
 *   gen_data DIR [N [PART]...]   N: side of the square f32 matrix (default 16384)
 *
 * writes into DIR the files that are missing (all PARTs, or only those
 * named: ra ten bool csr small):
 *   big.ra      rawarray f32[N,N], column-major          (N = 16384: 1 GiB payload)
 *   big.ten     tenbin f32[N*N], one array               (1 GiB payload)
 *   bool.fut    futhark bool[4*N*N], every byte 0 or 1   (1 GiB payload)
 *   csr.dbdf    DAPHNE CSR f64, NNZ_ROWS x NNZ_COLS, NNZ_PER_ROW per row
 *   small/      10,000 files of about 200 B, five formats in turn
 *
 * The headers are written by hand from the format documents (not with
 * afmt's writers), so a bug in afmt's writers cannot make the inputs agree
 * with its validators by accident; run.sh checks each input with
 * afmt-validate before timing anything.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (8u << 20)

static uint8_t *chunk;
static const char *dir;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "gen_data: %s %s: %s\n", what, path, strerror(errno));
    exit(2);
}

static void put(FILE *f, const void *p, size_t n, const char *path)
{
    if (n && fwrite(p, 1, n, f) != n)
        die("cannot write", path);
}

static void put_u8(FILE *f, uint8_t v, const char *path) { put(f, &v, 1, path); }

static void put_u32(FILE *f, uint32_t v, const char *path)
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(f, b, 4, path);
}

static void put_u64(FILE *f, uint64_t v, const char *path)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(f, b, 8, path);
}

static void put_zeros(FILE *f, size_t n, const char *path)
{
    static const uint8_t z[64];
    while (n) {
        size_t k = n < sizeof z ? n : sizeof z;
        put(f, z, k, path);
        n -= k;
    }
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Write DIR/name.tmp, then rename it to DIR/name (close_out): an
 * interrupted run never leaves a truncated input behind. */
static FILE *open_out(const char *name, char *path, char *tmp, size_t size)
{
    FILE *f;
    snprintf(path, size, "%s/%s", dir, name);
    snprintf(tmp, size, "%s/%s.tmp", dir, name);
    f = fopen(tmp, "wb");
    if (!f)
        die("cannot create", tmp);
    return f;
}

static void close_out(FILE *f, const char *path, const char *tmp)
{
    if (fclose(f) != 0)
        die("cannot write", tmp);
    if (rename(tmp, path) != 0)
        die("cannot rename to", path);
}

/* Payload of f32 values: element k is (float)(k % 1000003) * 0.5f. */
static void put_f32_payload(FILE *f, uint64_t count, const char *path)
{
    uint64_t k = 0;
    while (k < count) {
        uint64_t n = count - k, i;
        float *p = (float *)chunk;
        if (n > CHUNK / 4)
            n = CHUNK / 4;
        for (i = 0; i < n; i++)
            p[i] = (float)((k + i) % 1000003u) * 0.5f;
        put(f, chunk, (size_t)(n * 4), path);
        k += n;
    }
}

static void gen_rawarray(uint64_t side)
{
    char path[4096], tmp[4096];
    FILE *f;
    if (exists((snprintf(path, sizeof path, "%s/big.ra", dir), path)))
        return;
    f = open_out("big.ra", path, tmp, sizeof path);
    put(f, "rawarray", 8, tmp);
    put_u64(f, 0, tmp);                 /* flags */
    put_u64(f, 3, tmp);                 /* eltype: float */
    put_u64(f, 4, tmp);                 /* elbyte */
    put_u64(f, side * side * 4, tmp);   /* size */
    put_u64(f, 2, tmp);                 /* ndims */
    put_u64(f, side, tmp);
    put_u64(f, side, tmp);
    put_f32_payload(f, side * side, tmp);
    close_out(f, path, tmp);
}

static void tenbin_header(FILE *f, const char *dtype, const uint64_t *dims, int ndim,
                          uint64_t data_len, const char *path)
{
    uint64_t hlen = 24 + 8 * (uint64_t)ndim;
    char code[8] = { 0 };
    memcpy(code, dtype, strlen(dtype));
    put(f, "~TenBin~", 8, path);
    put_u64(f, hlen, path);
    put(f, code, 8, path);
    put_zeros(f, 8, path);              /* info */
    put_u64(f, (uint64_t)ndim, path);
    for (int i = 0; i < ndim; i++)
        put_u64(f, dims[i], path);
    put_zeros(f, (size_t)((64 - hlen % 64) % 64), path);
    put(f, "~TenBin~", 8, path);
    put_u64(f, data_len, path);
}

static void gen_tenbin(uint64_t side)
{
    char path[4096], tmp[4096];
    uint64_t count = side * side;
    FILE *f;
    if (exists((snprintf(path, sizeof path, "%s/big.ten", dir), path)))
        return;
    f = open_out("big.ten", path, tmp, sizeof path);
    tenbin_header(f, "f4", &count, 1, count * 4, tmp);
    put_f32_payload(f, count, tmp);
    put_zeros(f, (size_t)((64 - (count * 4) % 64) % 64), tmp);
    close_out(f, path, tmp);
}

static void futhark_header(FILE *f, const char *type4, const uint64_t *dims, int rank,
                           const char *path)
{
    put(f, "b", 1, path);
    put_u8(f, 2, path);
    put_u8(f, (uint8_t)rank, path);
    put(f, type4, 4, path);
    for (int i = 0; i < rank; i++)
        put_u64(f, dims[i], path);
}

static void gen_bool(uint64_t side)
{
    char path[4096], tmp[4096];
    uint64_t count = 4 * side * side, k = 0, x = 88172645463325252ull;
    FILE *f;
    if (exists((snprintf(path, sizeof path, "%s/bool.fut", dir), path)))
        return;
    f = open_out("bool.fut", path, tmp, sizeof path);
    futhark_header(f, "bool", &count, 1, tmp);
    while (k < count) {
        uint64_t n = count - k, i;
        if (n > CHUNK)
            n = CHUNK;
        for (i = 0; i < n; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;   /* xorshift64 */
            chunk[i] = (uint8_t)(x >> 63);
        }
        put(f, chunk, (size_t)n, tmp);
        k += n;
    }
    close_out(f, path, tmp);
}

/* DAPHNE CSR (DAPHNE's own layout, see spec/daphne.json): header, rows+1
 * u64 row offsets, nnz u64 column indices (strictly increasing in a row),
 * nnz f64 values. */
static void gen_csr(uint64_t rows, uint64_t cols, uint64_t per_row)
{
    char path[4096], tmp[4096];
    uint64_t nnz = rows * per_row, r, j, n = 0, band = cols / per_row;
    uint64_t *p = (uint64_t *)chunk;
    FILE *f;
    if (exists((snprintf(path, sizeof path, "%s/csr.dbdf", dir), path)))
        return;
    f = open_out("csr.dbdf", path, tmp, sizeof path);
    put_u8(f, 1, tmp);                  /* version */
    put_u8(f, 2, tmp);                  /* data type: CSR matrix */
    put_u64(f, rows, tmp);
    put_u64(f, cols, tmp);
    put_u8(f, 7, tmp);                  /* value type: f64 */
    put_u64(f, 0, tmp);                 /* block row */
    put_u64(f, 0, tmp);                 /* block col */
    put_u32(f, (uint32_t)rows, tmp);
    put_u32(f, (uint32_t)cols, tmp);
    put_u8(f, 2, tmp);                  /* block type: CSR */
    put_u8(f, 7, tmp);
    put_u64(f, nnz, tmp);
    for (r = 0; r <= rows; r++) {
        p[n++] = r * per_row;
        if (n == CHUNK / 8) { put(f, p, CHUNK, tmp); n = 0; }
    }
    for (r = 0; r < rows; r++)
        for (j = 0; j < per_row; j++) {
            /* one column in each band of width cols/per_row: increasing */
            p[n++] = j * band + (r * 2654435761u + j * 40503u) % band;
            if (n == CHUNK / 8) { put(f, p, CHUNK, tmp); n = 0; }
        }
    for (j = 0; j < nnz; j++) {
        double v = (double)(j % 9973) + 0.25;
        memcpy(&p[n++], &v, 8);
        if (n == CHUNK / 8) { put(f, p, CHUNK, tmp); n = 0; }
    }
    put(f, p, (size_t)n * 8, tmp);
    close_out(f, path, tmp);
}

/* 10,000 files of about 200 B, rawarray / futhark / tenbin / inebin /
 * daphne in turn (2,000 each). */
static void gen_small(int count)
{
    char sdir[4096], path[4096], tmp[4096], name[64];
    int i;
    snprintf(sdir, sizeof sdir, "%s/small", dir);
    snprintf(path, sizeof path, "%s/small/done", dir);
    if (exists(path))
        return;
    if (mkdir(sdir, 0755) != 0 && errno != EEXIST)
        die("cannot create", sdir);
    for (i = 0; i < count; i++) {
        FILE *f;
        uint64_t d;
        int k;
        switch (i % 5) {
        case 0: /* rawarray f32[36]: 56 + 144 = 200 B */
            snprintf(name, sizeof name, "small/%05d.ra", i);
            f = open_out(name, path, tmp, sizeof path);
            put(f, "rawarray", 8, tmp);
            put_u64(f, 0, tmp); put_u64(f, 3, tmp); put_u64(f, 4, tmp);
            put_u64(f, 144, tmp); put_u64(f, 1, tmp); put_u64(f, 36, tmp);
            for (k = 0; k < 36; k++) { float v = (float)(i + k); put(f, &v, 4, tmp); }
            break;
        case 1: /* futhark bool[185]: 15 + 185 = 200 B (values checked) */
            snprintf(name, sizeof name, "small/%05d.bin", i);
            f = open_out(name, path, tmp, sizeof path);
            d = 185;
            futhark_header(f, "bool", &d, 1, tmp);
            for (k = 0; k < 185; k++) put_u8(f, (uint8_t)((i + k) & 1), tmp);
            break;
        case 2: /* tenbin f32[30]: 80 + 16 + 120 + 8 = 224 B */
            snprintf(name, sizeof name, "small/%05d.ten", i);
            f = open_out(name, path, tmp, sizeof path);
            d = 30;
            tenbin_header(f, "f4", &d, 1, 120, tmp);
            for (k = 0; k < 30; k++) { float v = (float)(i - k); put(f, &v, 4, tmp); }
            put_zeros(f, 8, tmp);
            break;
        case 3: /* inebin R (f64) 1x23: 16 + 184 = 200 B */
            snprintf(name, sizeof name, "small/%05d.ine", i);
            f = open_out(name, path, tmp, sizeof path);
            put(f, "INEBIN", 6, tmp); put_u8(f, 0, tmp); put(f, "R", 1, tmp);
            put_u32(f, 1, tmp); put_u32(f, 23, tmp);
            for (k = 0; k < 23; k++) { double v = i * 0.5 + k; put(f, &v, 8, tmp); }
            break;
        default: /* daphne dense u8 1x155: 45 + 155 = 200 B */
            snprintf(name, sizeof name, "small/%05d.dbdf", i);
            f = open_out(name, path, tmp, sizeof path);
            put_u8(f, 1, tmp); put_u8(f, 1, tmp);
            put_u64(f, 1, tmp); put_u64(f, 155, tmp);
            put_u8(f, 3, tmp); put_u64(f, 0, tmp); put_u64(f, 0, tmp);
            put_u32(f, 1, tmp); put_u32(f, 155, tmp);
            put_u8(f, 1, tmp); put_u8(f, 3, tmp);
            for (k = 0; k < 155; k++) put_u8(f, (uint8_t)(i + k), tmp);
            break;
        }
        close_out(f, path, tmp);
    }
    snprintf(path, sizeof path, "%s/small/done", dir);
    {
        FILE *f = fopen(path, "w");
        if (!f || fclose(f) != 0)
            die("cannot create", path);
    }
}

static int wanted(int argc, char **argv, const char *part)
{
    int i;
    if (argc <= 3)
        return 1;
    for (i = 3; i < argc; i++)
        if (strcmp(argv[i], part) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t side = 16384, csr_rows = 1000000, csr_cols = 1000000, per_row = 100;
    if (argc < 2) {
        fprintf(stderr, "usage: gen_data DIR [SIDE [ra|ten|bool|csr|small]...]\n");
        return 2;
    }
    dir = argv[1];
    if (argc >= 3)
        side = strtoull(argv[2], NULL, 10);
    if (getenv("BENCH_CSR_ROWS"))
        csr_rows = strtoull(getenv("BENCH_CSR_ROWS"), NULL, 10);
    if (getenv("BENCH_CSR_PER_ROW"))
        per_row = strtoull(getenv("BENCH_CSR_PER_ROW"), NULL, 10);
    if (side == 0 || csr_rows == 0 || per_row == 0 || per_row > csr_cols) {
        fprintf(stderr, "gen_data: bad sizes\n");
        return 2;
    }
    chunk = malloc(CHUNK);
    if (!chunk)
        return 2;
    if (wanted(argc, argv, "ra"))
        gen_rawarray(side);
    if (wanted(argc, argv, "ten"))
        gen_tenbin(side);
    if (wanted(argc, argv, "bool"))
        gen_bool(side);
    if (wanted(argc, argv, "csr"))
        gen_csr(csr_rows, csr_cols, per_row);
    if (wanted(argc, argv, "small"))
        gen_small(10000);
    free(chunk);
    return 0;
}
