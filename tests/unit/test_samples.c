/* Reference samples (../shared/samples, or $AFMT_SAMPLES): every file is
 * judged as the table says (format, verdict, dtype[shape], order), and every
 * valid file re-encodes byte for byte through the generated writer
 * (decode -> encode is the identity on files a conforming writer made). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "afmt_internal.h"
#include "check.h"
#include "samples.h"
#include "testutil.h"

typedef struct sample_case {
    const char *path;     /* relative to the samples folder */
    const char *format;   /* expected detected format */
    int valid;
    const char *first;    /* afmt_array_describe of the first array */
    int narrays;
    int col_major;
    int reencode;         /* 1: writer output must equal the file */
} sample_case;

static const sample_case CASES[] = {
    {"rawarray/test.ra", "rawarray", 1, "c64[3,4]", 1, 1, 1},
    {"rawarray/randc32.ra", "rawarray", 1, "c64[4,4]", 1, 1, 1},
    {"rawarray/randc64.ra", "rawarray", 1, "c128[4,4]", 1, 1, 1},
    {"rawarray/randf16.ra", "rawarray", 1, "f16[4,4]", 1, 1, 1},
    {"rawarray/randf32.ra", "rawarray", 1, "f32[4,4]", 1, 1, 1},
    {"rawarray/randf64.ra", "rawarray", 1, "f64[4,4]", 1, 1, 1},
    {"rawarray/randi32.ra", "rawarray", 1, "i32[4,4]", 1, 1, 1},
    {"rawarray/randi8.ra", "rawarray", 1, "i8[4,4]", 1, 1, 1},
    {"rawarray/randu32.ra", "rawarray", 1, "u32[4,4]", 1, 1, 1},
    {"rawarray/randu8.ra", "rawarray", 1, "u8[4,4]", 1, 1, 1},
    {"rawarray/rand100.ra", "rawarray", 1, "i64[8,8]", 1, 1, 1},
    {"rawarray/shepplogan.ra", "rawarray", 1, "f64[256,256]", 1, 1, 1},
    {"rawarray/mnist_8.ra", "rawarray", 1, NULL, 1, 1, 1},
    {"rawarray/cifar_airplane.ra", "rawarray", 1, NULL, 1, 1, 1},
    {"rawarray/py_f32_2x3.ra", "rawarray", 1, "f32[2,3]", 1, 1, 1},
    {"rawarray/py_c64_1x2.ra", "rawarray", 1, "c64[1,2]", 1, 1, 1},
    {"rawarray/py_bool_2_eltype0.ra", "rawarray", 1, "opaque[2]", 1, 1, 0},
    {"rawarray/mnist_8_z.ra", "rawarray", 1, "u8[28,28,3]", 1, 1, 0},
    {"rawarray/cifar_airplane_z.ra", "rawarray", 1, "u8[32,32,3]", 1, 1, 0},
    {"futhark/bool_3.bin", "futhark", 1, "bool[3]", 1, 0, 1},
    {"futhark/f16_2.bin", "futhark", 1, "f16[2]", 1, 0, 1},
    {"futhark/f32_special_3.bin", "futhark", 1, "f32[3]", 1, 0, 1},
    {"futhark/f64_scalar.bin", "futhark", 1, "f64[]", 1, 0, 1},
    {"futhark/i16_2x0_empty.bin", "futhark", 1, "i16[2,0]", 1, 0, 1},
    {"futhark/i32_2x3.bin", "futhark", 1, "i32[2,3]", 1, 0, 1},
    {"futhark/i8_2.bin", "futhark", 1, "i8[2]", 1, 0, 1},
    {"futhark/py_bool_3.bin", "futhark", 1, "bool[3]", 1, 0, 1},
    {"futhark/py_f64_scalar.bin", "futhark", 1, "f64[]", 1, 0, 1},
    {"futhark/py_i32_2x3.bin", "futhark", 1, "i32[2,3]", 1, 0, 1},
    {"futhark/u64_max_scalar.bin", "futhark", 1, "u64[]", 1, 0, 1},
    {"tenbin/f2_9d.ten", "tenbin", 1, "f16[1,1,1,1,1,1,1,1,3]", 1, 0, 1},
    {"tenbin/f32_2x3_info_xs.ten", "tenbin", 1, "f32[2,3]", 1, 0, 1},
    {"tenbin/f4_scalar_0d_unreadable.ten", "tenbin", 1, "f32[]", 1, 0, 1},
    {"tenbin/f8_0x5_empty.ten", "tenbin", 1, "f64[0,5]", 1, 0, 1},
    {"tenbin/invalid_chunk_loop.ten", "tenbin", 0, NULL, 0, 0, 0},
    {"tenbin/two_arrays_i2_u1.ten", "tenbin", 1, "i16[3]", 2, 0, 1},
    {"tenbin/webdataset_testdata_tendata_000000.ten", "tenbin", 1, "f64[28,28]", 2, 0, 1},
    {"inebin/doc_table55.bin", "inebin", 1, "bool[3,5]", 1, 0, 1},
    {"inebin/doc_table56.bin", "inebin", 1, "i64[2,3]", 1, 0, 1},
    {"inebin/doc_table57.bin", "inebin", 1, "f64[2,3]", 1, 0, 1},
    {"inebin/doc_table58.bin", "inebin", 1, "c128[2,3]", 1, 0, 1},
    {"daphne/csr_f64_3x4.dbdf", "daphne", 1, "f64[3,4]", 1, 0, 1},
    {"daphne/dense_f32_0x0.dbdf", "daphne", 1, "f32[0,0]", 1, 0, 1},
    {"daphne/dense_f64_2x3.dbdf", "daphne", 1, "f64[2,3]", 1, 0, 1},
    {"daphne/dense_i32_4x3.dbdf", "daphne", 1, "i32[4,3]", 1, 0, 1},
    /* DAPHNE's writer stores garbage label bytes; afmt writes the label
     * text, so this one is not byte-identical (see test_convert) */
    {"daphne/frame_2x2.dbdf", "daphne", 1, "i64[2]", 2, 0, 0},
};

#define MAX_VIEWS 64


/* Decode the only array of a file to plain row-major bytes (malloc'ed). */
static uint8_t *decode_only(const afmt_format *fmt, const uint8_t *buf, uint64_t len, uint64_t *size)
{
    afmt_views c;
    afmt_visitor vis;
    afmt_error err;
    uint8_t *out = NULL;
    afmt_views_init(&c, MAX_VIEWS);
    afmt_views_visitor(&c, &vis);
    if (fmt->validate(buf, len, NULL, &vis, &err) == 0 && c.n == 1 &&
        afmt_array_plain_size(&c.v[0], size, &err) == 0) {
        out = malloc(*size ? *size : 1);
        if (afmt_array_to_plain(&c.v[0], AFMT_ROW_MAJOR, out, *size, &err) != 0) { free(out); out = NULL; }
    }
    afmt_views_free(&c);
    return out;
}

/* RawArray's LZ4 twins read to the same values, and afmt writes compressed
 * files that read back to the same values. */
static void check_compressed_twins(const char *root)
{
    static const char *const TWINS[][2] = {
        {"rawarray/mnist_8_z.ra", "rawarray/mnist_8.ra"},
        {"rawarray/cifar_airplane_z.ra", "rawarray/cifar_airplane.ra"},
    };
    const afmt_format *ra = afmt_format_by_name("rawarray");
    size_t i;
    for (i = 0; i < sizeof TWINS / sizeof TWINS[0]; i++) {
        char pz[1024], pp[1024], name[1200];
        uint64_t lz = 0, lp = 0, sz = 0, sp = 0;
        uint8_t *bz, *bp, *vz = NULL, *vp = NULL;
        snprintf(pz, sizeof pz, "%s/%s", root, TWINS[i][0]);
        snprintf(pp, sizeof pp, "%s/%s", root, TWINS[i][1]);
        bz = fz_read_file(pz, &lz);
        bp = fz_read_file(pp, &lp);
        if (bz && bp && ra) {
            vz = decode_only(ra, bz, lz, &sz);
            vp = decode_only(ra, bp, lp, &sp);
        }
        snprintf(name, sizeof name, "%s reads to the same values as %s", TWINS[i][0], TWINS[i][1]);
        CHECK(name, vz && vp && sz == sp && memcmp(vz, vp, sz) == 0);
        if (vp && bp) {
            /* write the plain twin compressed, read it back */
            afmt_views c;
            afmt_visitor vis;
            afmt_error err;
            afmt_write_options wopt;
            afmt_sink sink;
            uint64_t size = 0, sback = 0;
            uint8_t *out, *back;
            afmt_views_init(&c, MAX_VIEWS);
            afmt_views_visitor(&c, &vis);
            ra->validate(bp, lp, NULL, &vis, &err);
            memset(&wopt, 0, sizeof wopt);
            wopt.compress = 1;
            ra->encoded_size(c.v, 1, &wopt, &size, &err);
            out = malloc(size ? size : 1);
            afmt_sink_buffer(&sink, out, size);
            snprintf(name, sizeof name, "%s: compressed write", TWINS[i][1]);
            CHECK(name, c.n == 1 && ra->write(c.v, 1, &wopt, &sink, &err) == 0 && sink.written == size && size < lp &&
                            (afmt_load_u64le(out + 8) & 2) != 0);
            back = decode_only(ra, out, size, &sback);
            snprintf(name, sizeof name, "%s: compressed write reads back equal", TWINS[i][1]);
            CHECK(name, back && sback == sp && memcmp(back, vp, sp) == 0);
            free(out);
            free(back);
            afmt_views_free(&c);
        }
        free(bz); free(bp); free(vz); free(vp);
    }
}

int main(void)
{
    const char *root = samples_root("test_samples");
    afmt_views col, few;
    size_t i;
    if (!root)
        return 0;
    afmt_views_init(&col, MAX_VIEWS);
    afmt_views_init(&few, MAX_VIEWS);
    for (i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const sample_case *tc = &CASES[i];
        char path[1024], name[1200], desc[512];
        uint64_t len = 0;
        uint8_t *buf;
        const afmt_format *fmt;
        afmt_visitor vis;
        afmt_error err;
        int rc;
        snprintf(path, sizeof path, "%s/%s", root, tc->path);
        buf = fz_read_file(path, &len);
        snprintf(name, sizeof name, "sample %s readable", tc->path);
        CHECK(name, buf != NULL);
        if (!buf) continue;
        fmt = afmt_format_detect(buf, len, path);
        snprintf(name, sizeof name, "sample %s detected as %s", tc->path, tc->format);
        CHECK(name, fmt != NULL && strcmp(fmt->name, tc->format) == 0);
        if (!fmt || strcmp(fmt->name, tc->format) != 0) { free(buf); continue; }
        afmt_views_reset(&col);
        afmt_views_visitor(&col, &vis);
        rc = fmt->validate(buf, len, NULL, &vis, &err);
        snprintf(name, sizeof name, "sample %s verdict %s", tc->path, tc->valid ? "valid" : "invalid");
        CHECK(name, (rc == 0) == tc->valid);
        if (rc != 0 && tc->valid) { /* why an expected verdict was not given */
            char d[512];
            afmt_error_describe(&err, d, sizeof d);
            printf("  note: %s\n", d);
        }
        if (!tc->valid || rc != 0) { free(buf); continue; }
        snprintf(name, sizeof name, "sample %s has %d array(s)", tc->path, tc->narrays);
        CHECK(name, col.n == (size_t)tc->narrays);
        if (col.n < 1) { free(buf); continue; }
        afmt_array_describe(&col.v[0], desc, sizeof desc);
        if (tc->first) {
            snprintf(name, sizeof name, "sample %s is %s (got %s)", tc->path, tc->first, desc);
            CHECK(name, strcmp(desc, tc->first) == 0);
        }
        snprintf(name, sizeof name, "sample %s order", tc->path);
        CHECK(name, col.v[0].order == (tc->col_major ? AFMT_COL_MAJOR : AFMT_ROW_MAJOR));
        if (tc->reencode && col.n <= MAX_VIEWS) {
            afmt_write_options wopt;
            afmt_sink sink;
            uint64_t size = 0;
            uint8_t *out = malloc(len + 1);
            uint8_t *plains[MAX_VIEWS];
            size_t k;
            int decoded = 1;
            /* writers take plain arrays in the format's order: decode first,
             * as afmt convert does */
            for (k = 0; k < col.n; k++) {
                uint64_t psize = 0;
                plains[k] = NULL;
                if (col.v[k].encoding == AFMT_ENC_CSR) continue; /* sparse stays sparse */
                if (afmt_array_plain_size(&col.v[k], &psize, &err) != 0) { decoded = 0; continue; }
                plains[k] = malloc(psize ? psize : 1);
                if (afmt_array_to_plain(&col.v[k], fmt->order, plains[k], psize, &err) != 0) decoded = 0;
                afmt_array_plain_view(&col.v[k], fmt->order, plains[k], &col.v[k]);
            }
            snprintf(name, sizeof name, "sample %s decodes to plain", tc->path);
            CHECK(name, decoded);
            memset(&wopt, 0, sizeof wopt);
            wopt.trailer = col.trailer;
            wopt.trailer_len = col.trailer_len;
            rc = fmt->encoded_size(col.v, (size_t)col.n, &wopt, &size, &err);
            snprintf(name, sizeof name, "sample %s encoded_size == file size", tc->path);
            CHECK(name, rc == 0 && size == len);
            afmt_sink_buffer(&sink, out, len + 1);
            rc = fmt->write(col.v, (size_t)col.n, &wopt, &sink, &err);
            snprintf(name, sizeof name, "sample %s re-encodes byte for byte", tc->path);
            CHECK(name, rc == 0 && sink.written == len && memcmp(out, buf, len) == 0);
            if (rc != 0) {
                char d[512];
                afmt_error_describe(&err, d, sizeof d);
                printf("  note: %s\n", d);
            }
            free(out);
            for (k = 0; k < col.n; k++) free(plains[k]);
        }
        /* every proper prefix is rejected as truncated, never read past */
        if (len <= 70000) {
            uint64_t cut, wrong = 0, first_wrong = 0;
            for (cut = 0; cut < len; cut++) {
                uint8_t *pre = malloc(cut ? cut : 1);
                memcpy(pre, buf, cut);
                rc = fmt->validate(pre, cut, NULL, NULL, &err);
                /* a multi-array file may be cut exactly after an array: that
                 * prefix is a valid, shorter file */
                if (rc == 0 && tc->narrays > 1) {
                    afmt_views_reset(&few);
                    afmt_views_visitor(&few, &vis);
                    if (fmt->validate(pre, cut, NULL, &vis, &err) == 0 && few.n < (size_t)tc->narrays) { free(pre); continue; }
                }
                if (cut > 0 && (rc == 0 || err.code != AFMT_E_TRUNCATED)) {
                    if (!wrong) first_wrong = cut;
                    wrong++;
                }
                free(pre);
            }
            snprintf(name, sizeof name, "sample %s: all %llu prefixes rejected as truncated (first wrong: %llu)", tc->path,
                     (unsigned long long)len, (unsigned long long)first_wrong);
            CHECK(name, wrong == 0);
        }
        free(buf);
    }
    afmt_views_free(&col);
    afmt_views_free(&few);
    check_compressed_twins(root);
    CHECK_DONE();
}
