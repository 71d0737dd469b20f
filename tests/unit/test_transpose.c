/* Transposes: afmt_array_to_plain between row- and column-major, and the
 * kernel afmt_transpose2d, against a one-element-at-a-time reference, for
 * every element size with a fast kernel (1, 2, 4, 8, 16) and odd ones
 * (3, 12, and one above the scratch limit), many shapes (1xN, Nx1, primes,
 * powers of two, thin and wide, rank 3 to 5), both byte orders, and one
 * array large enough for non-temporal stores.  One CHECK per (case family,
 * element size) so that a failure names what broke without printing
 * thousands of lines. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afmt_internal.h"
#include "array/afmt_transpose.h"
#include "check.h"

/* A byte that depends on the storage position and the byte within the
 * element, so that any misplaced or mis-swapped byte shows. */
static uint8_t pattern(uint64_t q, uint64_t j)
{
    uint64_t h = (q + 1) * UINT64_C(0x9E3779B97F4A7C15) ^ (j + 1) * UINT64_C(0xC2B2AE3D27D4EB4F);
    return (uint8_t)(h >> 56 ^ h >> 29 ^ h);
}

/* Expected result, by logical index: walk the logical multi-index in the
 * destination order and find each element's storage position. */
static void reference(const uint64_t *dims, uint32_t rank, afmt_order from, afmt_order to,
                      uint64_t es, unsigned comp, const uint8_t *src, uint8_t *dst,
                      uint64_t count)
{
    uint64_t idx[8] = {0}, q, p, stride, c, j;
    uint32_t t;

    for (p = 0; p < count; p++) {
        /* idx is the logical index of destination element p */
        q = 0;
        stride = 1;
        for (t = 0; t < rank; t++) {
            uint32_t ax = from == AFMT_ROW_MAJOR ? rank - 1 - t : t;
            q += idx[ax] * stride;
            stride *= dims[ax];
        }
        for (c = 0; c < es; c += comp)
            for (j = 0; j < comp; j++)
                dst[p * es + c + j] = src[q * es + c + (comp - 1 - j)];
        /* next destination index: the fastest axis of `to` first */
        for (t = 0; t < rank; t++) {
            uint32_t ax = to == AFMT_ROW_MAJOR ? rank - 1 - t : t;
            if (++idx[ax] < dims[ax])
                break;
            idx[ax] = 0;
        }
    }
}

typedef struct elem {
    afmt_dtype dtype;
    uint64_t size;
    unsigned comp; /* byte-swap component for big-endian */
} elem;

static const elem elems[] = {
    { AFMT_U8, 1, 1 },   { AFMT_U16, 2, 2 },   { AFMT_OPAQUE, 3, 1 }, { AFMT_F32, 4, 4 },
    { AFMT_F64, 8, 8 },  { AFMT_OPAQUE, 12, 1 }, { AFMT_C128, 16, 8 }, { AFMT_OPAQUE, 1500, 1 },
};

typedef struct shape {
    uint32_t rank;
    uint64_t dims[5];
} shape;

static const shape shapes[] = {
    { 1, { 7 } },          { 2, { 1, 1 } },        { 2, { 1, 37 } },       { 2, { 37, 1 } },
    { 2, { 2, 3 } },       { 2, { 3, 2 } },        { 2, { 8, 8 } },        { 2, { 16, 16 } },
    { 2, { 17, 31 } },     { 2, { 31, 17 } },      { 2, { 64, 64 } },      { 2, { 65, 63 } },
    { 2, { 127, 129 } },   { 2, { 1, 1000 } },     { 2, { 1000, 1 } },     { 2, { 3, 1000 } },
    { 2, { 1000, 3 } },    { 2, { 256, 5 } },      { 2, { 5, 256 } },      { 2, { 97, 101 } },
    { 2, { 128, 256 } },   { 2, { 2, 4099 } },     { 2, { 4099, 2 } },     { 2, { 7, 1031 } },
    { 3, { 2, 3, 4 } },    { 3, { 5, 1, 7 } },     { 3, { 7, 9, 11 } },    { 3, { 16, 3, 33 } },
    { 3, { 1, 64, 1 } },   { 4, { 2, 3, 4, 5 } },  { 4, { 3, 1, 2, 7 } },  { 4, { 9, 2, 2, 13 } },
    { 5, { 2, 3, 2, 3, 5 } }, { 5, { 4, 1, 3, 1, 17 } },
};

/* afmt_array_to_plain_part over the whole result, in pieces of 1, 2, 3...
 * units (varying with seed), into dst. */
static int to_plain_in_pieces(const afmt_array *a, afmt_order to, uint8_t *dst,
                              uint64_t total, size_t seed)
{
    uint64_t unit, first = 0, n;
    afmt_error err;

    afmt_error_clear(&err);
    if (afmt_array_part_unit(a, to, &unit, &err) != 0 || unit == 0 || total % unit != 0)
        return -1;
    while (first < total) {
        n = unit * (1 + (first / unit + seed) % 3);
        if (n > total - first)
            n = total - first;
        if (afmt_array_to_plain_part(a, to, first, dst + first, n, &err) != 0)
            return -1;
        first += n;
    }
    return 0;
}

/* to_plain of every shape, both directions, both byte orders (whole, or
 * in pieces): returns the number of failing cases (and prints the first). */
static int run_to_plain(const elem *e, int big, int pieces)
{
    size_t si;
    int bad = 0;

    for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const shape *sh = &shapes[si];
        uint64_t count = 1, total, k;
        uint32_t t;
        int dir;

        for (t = 0; t < sh->rank; t++)
            count *= sh->dims[t];
        if (e->size > 100 && count > 4000)
            continue; /* keep the big-element cases small */
        total = count * e->size;
        for (dir = 0; dir < 2; dir++) {
            afmt_order from = dir ? AFMT_ROW_MAJOR : AFMT_COL_MAJOR;
            afmt_order to = dir ? AFMT_COL_MAJOR : AFMT_ROW_MAJOR;
            uint8_t *src = malloc((size_t)total), *got = malloc((size_t)total),
                    *want = malloc((size_t)total);
            afmt_array a;
            afmt_error err;

            if (!src || !got || !want) {
                free(src), free(got), free(want);
                return bad + 1;
            }
            for (k = 0; k < total; k++)
                src[k] = pattern(k / e->size, k % e->size);
            afmt_array_init(&a, e->dtype);
            a.elsize = e->size;
            a.stride = e->size;
            a.rank = sh->rank;
            memcpy(a.dims, sh->dims, sh->rank * sizeof sh->dims[0]);
            a.count = count;
            a.order = from;
            a.endian = big ? AFMT_BIG : AFMT_LITTLE;
            a.data = src;
            a.nbytes = total;
            reference(sh->dims, sh->rank, from, to, e->size, big ? e->comp : 1, src, want, count);
            memset(got, 0xA5, (size_t)total);
            afmt_error_clear(&err);
            if ((pieces ? to_plain_in_pieces(&a, to, got, total, si)
                        : afmt_array_to_plain(&a, to, got, total, &err)) != 0 ||
                memcmp(got, want, (size_t)total) != 0) {
                if (!bad)
                    printf("# es %llu %s rank %u dims[0] %llu dims[last] %llu %s: wrong\n",
                           (unsigned long long)e->size, big ? "big" : "little", sh->rank,
                           (unsigned long long)sh->dims[0],
                           (unsigned long long)sh->dims[sh->rank - 1],
                           dir ? "row->col" : "col->row");
                bad++;
            }
            free(src);
            free(got);
            free(want);
        }
    }
    return bad;
}

/* The kernel on sub-matrices: row strides larger than the rows, and the
 * bytes around the destination block must stay untouched. */
static int run_kernel_strides(uint64_t es, unsigned comp)
{
    static const uint64_t dims[][4] = {
        /* rows, cols, extra source stride, extra destination stride */
        { 1, 1, 0, 3 }, { 5, 9, 1, 2 }, { 33, 17, 7, 0 }, { 64, 64, 64, 64 },
        { 70, 130, 3, 5 }, { 3, 500, 11, 1 }, { 500, 3, 0, 13 }, { 129, 65, 1, 1 },
    };
    size_t di;
    int bad = 0;

    for (di = 0; di < sizeof dims / sizeof dims[0]; di++) {
        uint64_t rows = dims[di][0], cols = dims[di][1];
        uint64_t srs = cols + dims[di][2], drs = rows + dims[di][3];
        uint64_t sbytes = rows * srs * es, dbytes = cols * drs * es, i, k, j;
        uint8_t *src = malloc((size_t)sbytes), *dst = malloc((size_t)dbytes);
        int ok = 1;

        if (!src || !dst) {
            free(src), free(dst);
            return bad + 1;
        }
        for (k = 0; k < sbytes; k++)
            src[k] = pattern(k, 7);
        memset(dst, 0x5A, (size_t)dbytes);
        afmt_transpose2d(src, srs, dst, drs, rows, cols, es, comp, (int)(di & 1));
        for (k = 0; k < cols && ok; k++) {
            for (i = 0; i < drs && ok; i++) {
                const uint8_t *d = dst + (k * drs + i) * es;
                for (j = 0; j < es && ok; j++) {
                    uint64_t c = comp > 1 ? j / comp * comp : j;
                    uint64_t jj = comp > 1 ? c + (comp - 1 - (j - c)) : j;
                    uint8_t want = i < rows ? src[(i * srs + k) * es + jj] : 0x5A;
                    ok = d[j] == want;
                }
            }
        }
        if (!ok) {
            if (!bad)
                printf("# kernel es %llu comp %u %llux%llu strides %llu/%llu: wrong\n",
                       (unsigned long long)es, comp, (unsigned long long)rows,
                       (unsigned long long)cols, (unsigned long long)srs,
                       (unsigned long long)drs);
            bad++;
        }
        free(src);
        free(dst);
    }
    return bad;
}

/* afmt_transpose2d against a naive reference over odd shapes, both thin
 * shapes (2 x N: the interleave; N x 2: its reverse), shapes of several
 * blocks in both directions, strided rows, source and destination at odd
 * byte offsets, with and without non-temporal stores: every destination
 * byte must be the reference's, and the bytes around and between the
 * destination rows must stay untouched. */
typedef struct kernel_case {
    uint64_t rows, cols;    /* of the source */
    uint64_t sextra, dextra; /* row strides: cols + sextra, rows + dextra */
    uint64_t soff, doff;    /* byte offsets of src and dst from an aligned base */
    int stream;
} kernel_case;

static const kernel_case kernel_cases[] = {
    { 1, 300, 0, 0, 1, 3, 1 },      { 300, 1, 0, 0, 0, 5, 1 },     { 1, 1, 0, 0, 3, 0, 0 },
    { 15, 17, 0, 0, 1, 1, 0 },      { 16, 16, 0, 0, 0, 0, 1 },     { 17, 15, 3, 1, 7, 9, 1 },
    { 33, 65, 0, 0, 2, 14, 1 },     { 65, 33, 1, 0, 0, 0, 0 },
    /* two source rows (drs 2: the interleave), odd and even lengths */
    { 2, 1000, 0, 0, 1, 0, 1 },     { 2, 1001, 0, 0, 0, 8, 1 },    { 2, 999, 5, 0, 3, 0, 0 },
    { 2, 7, 0, 0, 0, 0, 1 },        { 2, 1000, 0, 1, 0, 0, 1 },
    /* two source columns (srs 2: the reverse), the destination rows at the
     * same or at different alignments */
    { 1000, 2, 0, 0, 0, 0, 1 },     { 1001, 2, 0, 3, 1, 5, 1 },    { 999, 2, 0, 1, 0, 8, 1 },
    { 1000, 2, 0, 0, 4, 4, 1 },     { 1000, 2, 0, 0, 8, 8, 0 },    { 7, 2, 0, 0, 0, 0, 1 },
    { 1000, 2, 1, 0, 0, 0, 1 },
    /* several blocks in each direction */
    { 517, 1031, 0, 0, 1, 1, 1 },   { 300, 1100, 9, 13, 0, 0, 1 }, { 1100, 300, 0, 0, 3, 6, 1 },
    { 100, 2100, 0, 0, 0, 0, 1 },   { 2100, 100, 0, 0, 0, 0, 1 },
    /* line-aligned destination rows from an unaligned start: a short first
     * block in each band aligns the others */
    { 600, 300, 0, 0, 0, 4, 1 },    { 128, 300, 0, 0, 0, 20, 1 },  { 600, 70, 0, 0, 3, 48, 1 },
};

static int run_kernel_cases(uint64_t es, unsigned comp)
{
    size_t ci;
    int bad = 0;

    for (ci = 0; ci < sizeof kernel_cases / sizeof kernel_cases[0]; ci++) {
        const kernel_case *c = &kernel_cases[ci];
        const uint64_t srs = c->cols + c->sextra, drs = c->rows + c->dextra, guard = 64;
        const uint64_t sbytes = c->rows * srs * es, dbytes = c->cols * drs * es;
        uint8_t *sbuf = malloc((size_t)(sbytes + 64)), *dbuf = malloc((size_t)(dbytes + 64 + 2 * guard));
        uint8_t *src, *dst;
        uint64_t i, k, j, q;
        int ok = 1;

        if (!sbuf || !dbuf) {
            free(sbuf), free(dbuf);
            return bad + 1;
        }
        /* offsets from a 64-byte boundary inside the buffers */
        src = sbuf + ((64 - (uintptr_t)sbuf % 64) % 64 + c->soff) % 64;
        dst = dbuf + guard + ((64 - (uintptr_t)(dbuf + guard) % 64) % 64 + c->doff) % 64;
        for (k = 0; k < sbytes; k++)
            src[k] = pattern(k, 3);
        memset(dbuf, 0x5A, (size_t)(dbytes + 64 + 2 * guard));
        afmt_transpose2d(src, srs, dst, drs, c->rows, c->cols, es, comp, c->stream);
        for (q = 0; q < dbytes + 64 + 2 * guard && ok; q++) {
            const uint8_t *d = dbuf + q;
            uint8_t want = 0x5A;
            if (d >= dst && d < dst + dbytes) {
                uint64_t off = (uint64_t)(d - dst);
                k = off / es / drs;
                i = off / es % drs;
                j = off % es;
                if (i < c->rows) {
                    uint64_t b0 = comp > 1 ? j / comp * comp : j;
                    uint64_t jj = comp > 1 ? b0 + (comp - 1 - (j - b0)) : j;
                    want = src[(i * srs + k) * es + jj];
                }
            }
            ok = *d == want;
        }
        if (!ok) {
            if (!bad)
                printf("# kernel case es %llu comp %u %llux%llu strides %llu/%llu offsets %llu/%llu "
                       "stream %d: wrong\n",
                       (unsigned long long)es, comp, (unsigned long long)c->rows,
                       (unsigned long long)c->cols, (unsigned long long)srs,
                       (unsigned long long)drs, (unsigned long long)c->soff,
                       (unsigned long long)c->doff, c->stream);
            bad++;
        }
        free(sbuf);
        free(dbuf);
    }
    return bad;
}

/* afmt_swap_copy (16 bytes at a time where it can, the rest one component
 * at a time) against a naive reference: every length up to 100 bytes that
 * is whole components, at every source and destination offset within a
 * line (mod 16), copying and in place; the bytes after the result must
 * stay untouched. */
static int run_swap_copy(unsigned comp)
{
    uint8_t src[192], buf[192], want[192];
    uint64_t n, so, d_o, j;
    int bad = 0, inplace;

    for (n = 0; n <= 100; n += comp)
        for (so = 0; so < 16; so += 3)
            for (d_o = 0; d_o < 16; d_o += 5)
                for (inplace = 0; inplace < 2; inplace++) {
                    uint8_t *d = buf + d_o;
                    for (j = 0; j < sizeof src; j++)
                        src[j] = pattern(j, comp);
                    memset(buf, 0x5A, sizeof buf);
                    memcpy(want, buf, sizeof want);
                    for (j = 0; j < n; j++)
                        want[d_o + j] = src[so + j / comp * comp + (comp - 1 - j % comp)];
                    if (inplace) {
                        memcpy(d, src + so, (size_t)n);
                        afmt_swap_copy(d, d, n, comp);
                    } else {
                        afmt_swap_copy(d, src + so, n, comp);
                    }
                    if (memcmp(buf, want, sizeof buf) != 0) {
                        if (!bad)
                            printf("# swap_copy comp %u n %llu offsets %llu/%llu %s: wrong\n", comp,
                                   (unsigned long long)n, (unsigned long long)so,
                                   (unsigned long long)d_o, inplace ? "in place" : "copy");
                        bad++;
                    }
                }
    return bad;
}

/* Large enough for the non-temporal path of afmt_array_to_plain. */
static int run_large(void)
{
    const uint64_t rows = 2900, cols = 2901, es = 4, total = rows * cols * es;
    uint8_t *src = malloc((size_t)total), *got = malloc((size_t)total);
    uint64_t k, i;
    afmt_array a;
    afmt_error err;
    int ok = 1;

    if (!src || !got) {
        free(src), free(got);
        return 0;
    }
    for (k = 0; k < rows * cols; k++) {
        uint32_t v = (uint32_t)k;
        memcpy(src + 4 * k, &v, 4);
    }
    afmt_array_init(&a, AFMT_U32);
    a.rank = 2;
    a.dims[0] = rows;
    a.dims[1] = cols;
    a.count = rows * cols;
    a.order = AFMT_COL_MAJOR; /* element (i, k) at k * rows + i */
    a.data = src;
    a.nbytes = total;
    afmt_error_clear(&err);
    if (afmt_array_to_plain(&a, AFMT_ROW_MAJOR, got, total, &err) != 0)
        ok = 0;
    for (i = 0; i < rows && ok; i++)
        for (k = 0; k < cols && ok; k++) {
            uint32_t v;
            memcpy(&v, got + 4 * (i * cols + k), 4);
            ok = v == (uint32_t)(k * rows + i);
        }
    free(src);
    free(got);
    return ok;
}

/* afmt_array_to_plain_as against afmt_array_to_plain + afmt_convert_elements
 * (the same bytes, or the same refusal), over shapes and type pairs. */
static int run_plain_as(void)
{
    static const struct { afmt_dtype from, to; int lossy_ok; } pairs[] = {
        { AFMT_F32, AFMT_F64, 0 }, { AFMT_U16, AFMT_I32, 0 }, { AFMT_I32, AFMT_U8, 0 },
        { AFMT_I32, AFMT_U8, 1 },  { AFMT_F64, AFMT_F32, 0 }, { AFMT_U8, AFMT_F32, 0 },
    };
    static const uint64_t dims[][2] = { { 1, 1 }, { 3, 5 }, { 129, 65 }, { 700, 300 }, { 2, 70001 } };
    size_t pi, di;
    int bad = 0, big;

    for (pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++)
        for (di = 0; di < sizeof dims / sizeof dims[0]; di++)
            for (big = 0; big < 2; big++) {
                const afmt_dtype_info *fi = afmt_dtype_get(pairs[pi].from);
                const afmt_dtype_info *ti = afmt_dtype_get(pairs[pi].to);
                uint64_t count = dims[di][0] * dims[di][1], k;
                uint8_t *src = malloc((size_t)(count * fi->size)), *mid = malloc((size_t)(count * fi->size));
                uint8_t *want = malloc((size_t)(count * ti->size)), *got = malloc((size_t)(count * ti->size));
                afmt_array a;
                afmt_error e1, e2;
                int r1, r2;

                if (!src || !mid || !want || !got) {
                    free(src), free(mid), free(want), free(got);
                    return bad + 1;
                }
                /* small values (exact in every pair), one large one late in
                 * the array so that narrowing casts refuse somewhere inside */
                for (k = 0; k < count; k++) {
                    uint64_t v = k % 100;
                    double d = (double)v;
                    float f = (float)v;
                    uint8_t tmp[8];
                    if (k == count - count / 3 - 1)
                        v = 1000, d = 1e40, f = 1000.0f;
                    switch (pairs[pi].from) {
                    case AFMT_F32: memcpy(tmp, &f, 4); break;
                    case AFMT_F64: memcpy(tmp, &d, 8); break;
                    case AFMT_U16: { uint16_t u = (uint16_t)v; memcpy(tmp, &u, 2); break; }
                    case AFMT_I32: { int32_t i = (int32_t)v; memcpy(tmp, &i, 4); break; }
                    default: tmp[0] = (uint8_t)v; break;
                    }
                    if (big)
                        afmt_swap_copy(src + k * fi->size, tmp, fi->size, fi->component);
                    else
                        memcpy(src + k * fi->size, tmp, fi->size);
                }
                afmt_array_init(&a, pairs[pi].from);
                a.rank = 2;
                a.dims[0] = dims[di][0];
                a.dims[1] = dims[di][1];
                a.count = count;
                a.order = AFMT_COL_MAJOR;
                a.endian = big ? AFMT_BIG : AFMT_LITTLE;
                a.data = src;
                a.nbytes = count * fi->size;
                afmt_error_clear(&e1);
                afmt_error_clear(&e2);
                r1 = afmt_array_to_plain(&a, AFMT_ROW_MAJOR, mid, count * fi->size, &e1);
                if (r1 == 0)
                    r1 = afmt_convert_elements(pairs[pi].from, mid, pairs[pi].to, want, count,
                                               pairs[pi].lossy_ok, &e1);
                r2 = afmt_array_to_plain_as(&a, AFMT_ROW_MAJOR, pairs[pi].to, pairs[pi].lossy_ok,
                                            got, count * ti->size, &e2);
                if (r1 != r2 || (r1 == 0 && memcmp(want, got, (size_t)(count * ti->size)) != 0) ||
                    (r1 != 0 && (e1.code != e2.code || strcmp(e1.message, e2.message) != 0 ||
                                 e1.offset != e2.offset))) {
                    if (!bad)
                        printf("# plain_as %s -> %s %llux%llu %s: rc %d/%d, '%s' / '%s'\n", fi->name,
                               ti->name, (unsigned long long)dims[di][0],
                               (unsigned long long)dims[di][1], big ? "big" : "little", r1, r2,
                               e1.message, e2.message);
                    bad++;
                }
                free(src), free(mid), free(want), free(got);
            }
    return bad;
}

int main(void)
{
    size_t ei;
    char name[96];
    static const unsigned comps[] = { 1, 2, 4, 8 };
    static const uint64_t kernel_sizes[] = { 1, 2, 3, 4, 8, 16, 24, 2000 };
    size_t ci, ki;

    for (ei = 0; ei < sizeof elems / sizeof elems[0]; ei++) {
        const elem *e = &elems[ei];
        snprintf(name, sizeof name, "transpose to_plain es=%llu little-endian, all shapes",
                 (unsigned long long)e->size);
        CHECK(name, run_to_plain(e, 0, 0) == 0);
        snprintf(name, sizeof name, "transpose to_plain_part es=%llu little-endian, all shapes",
                 (unsigned long long)e->size);
        CHECK(name, run_to_plain(e, 0, 1) == 0);
        if (e->comp > 1) {
            snprintf(name, sizeof name, "transpose to_plain es=%llu big-endian, all shapes",
                     (unsigned long long)e->size);
            CHECK(name, run_to_plain(e, 1, 0) == 0);
            snprintf(name, sizeof name, "transpose to_plain_part es=%llu big-endian, all shapes",
                     (unsigned long long)e->size);
            CHECK(name, run_to_plain(e, 1, 1) == 0);
        }
    }
    for (ki = 0; ki < sizeof kernel_sizes / sizeof kernel_sizes[0]; ki++)
        for (ci = 0; ci < sizeof comps / sizeof comps[0]; ci++) {
            if (kernel_sizes[ki] % comps[ci] != 0)
                continue;
            snprintf(name, sizeof name, "afmt_transpose2d es=%llu comp=%u, strided sub-matrices",
                     (unsigned long long)kernel_sizes[ki], comps[ci]);
            CHECK(name, run_kernel_strides(kernel_sizes[ki], comps[ci]) == 0);
        }
    for (ki = 0; ki < sizeof kernel_sizes / sizeof kernel_sizes[0]; ki++)
        for (ci = 0; ci < sizeof comps / sizeof comps[0]; ci++) {
            if (kernel_sizes[ki] % comps[ci] != 0 || kernel_sizes[ki] > 100)
                continue;
            snprintf(name, sizeof name,
                     "afmt_transpose2d es=%llu comp=%u, odd and thin shapes, unaligned, streamed",
                     (unsigned long long)kernel_sizes[ki], comps[ci]);
            CHECK(name, run_kernel_cases(kernel_sizes[ki], comps[ci]) == 0);
        }
    for (ci = 1; ci < sizeof comps / sizeof comps[0]; ci++) {
        snprintf(name, sizeof name, "afmt_swap_copy comp=%u, lengths 0-100, offsets, in place",
                 comps[ci]);
        CHECK(name, run_swap_copy(comps[ci]) == 0);
    }
    CHECK("transpose u32[2900,2901] col->row (non-temporal stores)", run_large());
    CHECK("afmt_array_to_plain_as = to_plain + convert_elements (bytes and refusals)",
          run_plain_as() == 0);
    {
        /* pieces must be whole units; encodings other than plain are refused */
        uint8_t data[24] = {0}, out[24];
        afmt_array a;
        afmt_error err;
        uint64_t unit = 0;
        afmt_array_init(&a, AFMT_U16);
        a.rank = 2;
        a.dims[0] = 3;
        a.dims[1] = 4;
        a.count = 12;
        a.order = AFMT_COL_MAJOR;
        a.data = data;
        a.nbytes = sizeof data;
        afmt_error_clear(&err);
        CHECK("part unit of a 3x4 u16 transpose is one result row (4 elements)",
              afmt_array_part_unit(&a, AFMT_ROW_MAJOR, &unit, &err) == 0 && unit == 8);
        CHECK("part unit without a transpose is one element",
              afmt_array_part_unit(&a, AFMT_COL_MAJOR, &unit, &err) == 0 && unit == 2);
        CHECK("a piece that is not whole units is refused",
              afmt_array_to_plain_part(&a, AFMT_ROW_MAJOR, 2, out, 8, &err) == -1 &&
                  err.code == AFMT_E_USAGE);
        CHECK("a piece past the end is refused",
              afmt_array_to_plain_part(&a, AFMT_ROW_MAJOR, 16, out, 16, &err) == -1 &&
                  err.code == AFMT_E_USAGE);
        a.nbytes = 23;
        CHECK("a view shorter than its elements is refused",
              afmt_array_to_plain_part(&a, AFMT_ROW_MAJOR, 0, out, 8, &err) == -1 &&
                  err.code == AFMT_E_SIZE);
        a.nbytes = sizeof data;
        a.stride = 4;
        CHECK("a strided view is not cut into pieces",
              afmt_array_part_unit(&a, AFMT_ROW_MAJOR, &unit, &err) == -1 &&
                  err.code == AFMT_E_UNSUPPORTED);
        /* an empty column-major array whose last stored axis is 0 (a
         * RawArray i16[0,4] from an empty .npy) divided by zero */
        a.stride = 2;
        a.dims[0] = 0;
        a.count = 0;
        a.nbytes = 0;
        CHECK("part unit of an empty 0x4 transpose is defined",
              afmt_array_part_unit(&a, AFMT_ROW_MAJOR, &unit, &err) == 0 && unit > 0);
    }
    CHECK_DONE();
}
