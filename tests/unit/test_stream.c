/* Streams judge like buffers: every reference sample and golden input,
 * read through a small window in reads of a few bytes, gets the verdict,
 * error code, field and offset it gets as a whole buffer (or a limit error
 * when a structure is larger than the window); and a long stream is read
 * in constant memory.  A seekable source (afmt_src_seekable: a file read
 * by offset) judges exactly as the buffer does, field and offset too,
 * since it knows its length, or fails with window_short set, which is
 * what lets afmt-validate validate the file from memory instead. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "afmt_internal.h"
#include "check.h"
#include "samples.h"
#include "testutil.h"

typedef struct mem_reader {
    const uint8_t *p;
    uint64_t len, at;
    unsigned step; /* bytes per read: small, to cross every boundary */
} mem_reader;

static int mem_read(void *ctx, uint8_t *buf, size_t n, size_t *got)
{
    mem_reader *r = ctx;
    uint64_t k = r->len - r->at;
    if (k > n) k = n;
    if (k > r->step) k = r->step;
    memcpy(buf, r->p + r->at, (size_t)k);
    r->at += k;
    *got = (size_t)k;
    r->step = r->step % 7 + 1;
    return 0;
}


/* A seekable source over memory, in reads of a few bytes at a time. */
static int mem_pread(void *ctx, uint8_t *buf, size_t n, uint64_t off, size_t *got)
{
    mem_reader *r = ctx;
    uint64_t k = off < r->len ? r->len - off : 0;
    if (k > n) k = n;
    if (k > r->step) k = r->step;
    memcpy(buf, r->p + off, (size_t)k);
    *got = (size_t)k;
    r->step = r->step % 13 + 1;
    r->at++; /* the reads made */
    return 0;
}

typedef struct counts { int arrays, warnings; } counts;
static int count_array(void *ctx, const afmt_array *a) { (void)a; ((counts *)ctx)->arrays++; return 0; }
static void count_warning(void *ctx, const afmt_error *w) { (void)w; ((counts *)ctx)->warnings++; }

static int compared, limited, seek_compared, seek_limited;

/* buf[0..len) as fmt through a seekable source of a 64 KiB window against
 * its verdict as a buffer (rb, eb, cb). */
static void compare_seekable(const afmt_format *fmt, const char *label, int mode, const uint8_t *buf, uint64_t len,
                             int rb, const afmt_error *eb, const counts *cb)
{
    static uint8_t window[1 << 16];
    afmt_options opt;
    afmt_visitor vis;
    afmt_error es;
    counts cs = {0, 0};
    afmt_src src;
    mem_reader r = {buf, len, 0, 1};
    char name[2400];
    int rs;
    afmt_options_default(&opt);
    opt.mode = mode ? AFMT_LENIENT : AFMT_STRICT;
    memset(&vis, 0, sizeof vis);
    vis.on_array = count_array;
    vis.on_warning = count_warning;
    vis.ctx = &cs;
    afmt_src_seekable(&src, window, sizeof window, len, mem_pread, &r);
    rs = fmt->validate_src(&src, &opt, &vis, &es);
    if (rs != 0 && src.window_short) {
        /* the window fell short: the caller maps instead; never so for
         * anything but a limit */
        snprintf(name, sizeof name, "seekable %s as %s: a window too short is a limit", label, fmt->name);
        if (es.code != AFMT_E_LIMIT) CHECK(name, es.code == AFMT_E_LIMIT);
        seek_limited++;
        return;
    }
    snprintf(name, sizeof name, "seekable %s as %s %s: the buffer's verdict", label, fmt->name,
             mode ? "lenient" : "strict");
    if (rb != rs) CHECK(name, rb == rs);
    if (rb != 0 && rs != 0) {
        snprintf(name, sizeof name, "seekable %s as %s %s: the buffer's error (%s/%s at %llu vs %s/%s at %llu)", label,
                 fmt->name, mode ? "lenient" : "strict", afmt_code_name(eb->code), eb->field,
                 (unsigned long long)eb->offset, afmt_code_name(es.code), es.field, (unsigned long long)es.offset);
        if (!(eb->code == es.code && !strcmp(eb->field, es.field) && eb->offset == es.offset))
            CHECK(name, 0);
    }
    if (rb == 0 && rs == 0 && !(cb->arrays == cs.arrays && cb->warnings == cs.warnings)) {
        snprintf(name, sizeof name, "seekable %s as %s %s: same arrays and warnings", label, fmt->name,
                 mode ? "lenient" : "strict");
        CHECK(name, 0);
    }
    seek_compared++;
}

static void compare_file(const char *path, const char *label)
{
    uint64_t len = 0;
    uint8_t *buf = fz_read_file(path, &len);
    size_t f;
    int mode;
    if (!buf) return;
    for (f = 0; f < afmt_format_count; f++) {
        const afmt_format *fmt = afmt_formats[f];
        for (mode = 0; mode < 2; mode++) {
            afmt_options opt;
            afmt_visitor vis;
            afmt_error eb, es;
            counts cb = {0, 0}, cs = {0, 0};
            afmt_src src;
            mem_reader r;
            static uint8_t window[1 << 16];
            int rb, rs;
            char name[2400];
            afmt_options_default(&opt);
            opt.mode = mode ? AFMT_LENIENT : AFMT_STRICT;
            memset(&vis, 0, sizeof vis);
            vis.on_array = count_array;
            vis.on_warning = count_warning;
            vis.ctx = &cb;
            rb = fmt->validate(buf, len, &opt, &vis, &eb);
            compare_seekable(fmt, label, mode, buf, len, rb, &eb, &cb);
            r.p = buf;
            r.len = len;
            r.at = 0;
            r.step = 1;
            afmt_src_stream(&src, window, sizeof window, mem_read, &r);
            vis.ctx = &cs;
            rs = fmt->validate_src(&src, &opt, &vis, &es);
            if (rs != 0 && es.code == AFMT_E_LIMIT && rb == 0) {
                limited++;
                continue; /* larger than the window: said so, not misjudged */
            }
            snprintf(name, sizeof name, "stream %s as %s %s: same verdict", label, fmt->name, mode ? "lenient" : "strict");
            CHECK(name, rb == rs);
            if (rb != 0 && rs != 0) {
                snprintf(name, sizeof name, "stream %s as %s %s: same error (%s/%s at %llu vs %s/%s at %llu)", label,
                         fmt->name, mode ? "lenient" : "strict", afmt_code_name(eb.code), eb.field,
                         (unsigned long long)eb.offset, afmt_code_name(es.code), es.field, (unsigned long long)es.offset);
                /* a stream learns its length only at its end: a truncated
                 * input may be reported at the field that ran out rather
                 * than at the region that claimed too much */
                CHECK(name, eb.code == es.code &&
                                (eb.code == AFMT_E_TRUNCATED || (!strcmp(eb.field, es.field) && eb.offset == es.offset)));
            }
            if (rb == 0 && rs == 0) {
                snprintf(name, sizeof name, "stream %s as %s %s: same arrays and warnings", label, fmt->name,
                         mode ? "lenient" : "strict");
                CHECK(name, cb.arrays == cs.arrays && cb.warnings == cs.warnings);
            }
            compared++;
        }
    }
    free(buf);
}

static void walk(const char *dir, const char *prefix, int depth)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    if (!d) return;
    while ((de = readdir(d)) != NULL) {
        char path[1024], label[1100];
        if (de->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        snprintf(label, sizeof label, "%s/%s", prefix, de->d_name);
        if (de->d_type == DT_DIR) {
            if (depth > 0) walk(path, label, depth - 1);
        } else if (de->d_type == DT_REG && (depth == 0 || strcmp(de->d_name, "input") == 0 || strstr(dir, "samples"))) {
            if (strcmp(de->d_name, "expect") != 0) compare_file(path, label);
        }
    }
    closedir(d);
}

/* A long tenbin stream (many arrays of 1 MiB) through a 1 MiB window:
 * nothing grows with the stream. */
typedef struct gen_reader {
    uint64_t total, at;
    uint8_t chunk[16 + 64 + 16 + (1 << 20)];
    uint64_t chunk_len;
} gen_reader;

static int gen_read(void *ctx, uint8_t *buf, size_t n, size_t *got)
{
    gen_reader *g = ctx;
    uint64_t off = g->at % g->chunk_len, k = g->chunk_len - off;
    if (g->at >= g->total) { *got = 0; return 0; }
    if (k > n) k = n;
    if (k > g->total - g->at) k = g->total - g->at;
    memcpy(buf, g->chunk + off, (size_t)k);
    g->at += k;
    *got = (size_t)k;
    return 0;
}

/* The generator's bytes by offset, counting what is read; a cut at
 * g->cut (when not 0) gives nothing from there on, as a file cut short
 * while it is read does. */
static uint64_t gen_bytes_read;
static int gen_pread(void *ctx, uint8_t *buf, size_t n, uint64_t off, size_t *got)
{
    gen_reader *g = ctx;
    uint64_t done = 0;
    while (done < n && off + done < g->total && !(g->at && off + done >= g->at)) {
        uint64_t in = (off + done) % g->chunk_len, k = g->chunk_len - in;
        if (k > n - done) k = n - done;
        if (k > g->total - (off + done)) k = g->total - (off + done);
        if (g->at && k > g->at - (off + done)) k = g->at - (off + done);
        memcpy(buf + done, g->chunk + in, (size_t)k);
        done += k;
    }
    gen_bytes_read += done;
    *got = (size_t)done;
    return 0;
}

/* The same 300 MiB as a file read by offset through a 1 MiB window: the
 * payloads no check reads are skipped unread (a tenbin f4 payload), the
 * headers read; a file cut short meanwhile (nothing where bytes were) is
 * an I/O error, not a verdict. */
static void long_seekable(gen_reader *g, const afmt_format *ten)
{
    static uint8_t window[1 << 20];
    afmt_src src;
    afmt_error err;
    counts c = {0, 0};
    afmt_visitor vis;
    char name[200];
    int rc;
    memset(&vis, 0, sizeof vis);
    vis.on_array = count_array;
    vis.ctx = &c;
    g->total = g->chunk_len * 300;
    g->at = 0; /* no cut */
    gen_bytes_read = 0;
    afmt_src_seekable(&src, window, sizeof window, g->total, gen_pread, g);
    rc = ten->validate_src(&src, NULL, &vis, &err);
    snprintf(name, sizeof name, "seekable: 300 MiB of tenbin through a 1 MiB window validates, %llu MiB read",
             (unsigned long long)(gen_bytes_read >> 20));
    CHECK(name, rc == 0 && c.arrays == 300 && gen_bytes_read < g->total / 8);
    g->at = g->chunk_len * 150 + 40; /* the file now ends inside array 150's header */
    afmt_src_seekable(&src, window, sizeof window, g->total, gen_pread, g);
    rc = ten->validate_src(&src, NULL, NULL, &err);
    CHECK("seekable: a file cut short while it is read is an I/O error",
          rc != 0 && err.code == AFMT_E_IO && src.io_error && !src.window_short);
}

/* afmt_src_equal_at: bytes in the window compared in place, bytes it has
 * dropped read again by offset, a difference in the last byte seen, a
 * range past the end and a failed read refused (-1). */
static int failing_pread(void *ctx, uint8_t *buf, size_t n, uint64_t off, size_t *got)
{
    (void)ctx; (void)buf; (void)n; (void)off;
    *got = 0;
    return -1;
}

static void equal_at(void)
{
    static uint8_t data[200000], window[1 << 16];
    static const struct {
        const char *name;
        uint64_t off, n;
        int flip;   /* change the last byte compared */
        int want;
    } cases[] = {
        {"in the window", 102000, 100, 0, 1},
        {"in the window, last byte differs", 102000, 100, 1, 0},
        {"dropped, read again", 10, 9000, 0, 1},
        {"dropped, last byte differs", 10, 9000, 1, 0},
        {"across the window's start", 99000, 4000, 0, 1},
        {"past the end", 199990, 11, 0, -1},
        {"nothing", 5, 0, 0, 1},
    };
    mem_reader r = {data, sizeof data, 0, 1};
    afmt_src src;
    size_t i;
    for (i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 7 + i / 251);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t want[9000];
        char name[200];
        afmt_src_seekable(&src, window, sizeof window, sizeof data, mem_pread, &r);
        /* far ahead: the window holds [100000, 104000) only */
        (void)afmt_src_skip_to(&src, 100000);
        (void)afmt_src_fill(&src, 100000, 4000);
        if (cases[i].n && cases[i].off + cases[i].n <= sizeof data)
            memcpy(want, data + cases[i].off, (size_t)cases[i].n);
        if (cases[i].flip) want[cases[i].n - 1] ^= 1;
        snprintf(name, sizeof name, "seekable: equal_at %s", cases[i].name);
        CHECK(name, src.data_off == 100000 && afmt_src_equal_at(&src, cases[i].off, want, cases[i].n) == cases[i].want);
    }
    afmt_src_seekable(&src, window, sizeof window, sizeof data, failing_pread, NULL);
    CHECK("seekable: equal_at after a failed read is -1, io_error set",
          afmt_src_equal_at(&src, 10, data + 10, 100) == -1 && src.io_error);
}

static void long_stream(void)
{
    const afmt_format *ten = afmt_format_by_name("tenbin");
    static gen_reader g;
    static uint8_t window[1 << 20];
    afmt_src src;
    afmt_error err;
    counts c = {0, 0};
    afmt_visitor vis;
    uint8_t *p = g.chunk;
    if (!ten) return;
    memset(&g, 0, sizeof g);
    /* header chunk: f4, no info, ndim 1, dim 2^18 */
    memcpy(p, "~TenBin~", 8);
    afmt_store_u64le(p + 8, 32);
    memcpy(p + 16, "f4", 2);
    afmt_store_u64le(p + 32, 1);
    afmt_store_u64le(p + 40, 1 << 18);
    p += 16 + 64;
    memcpy(p, "~TenBin~", 8);
    afmt_store_u64le(p + 8, 1 << 20);
    g.chunk_len = 16 + 64 + 16 + (1 << 20);
    g.total = g.chunk_len * 300; /* 300 MiB through a 1 MiB window */
    memset(&vis, 0, sizeof vis);
    vis.on_array = count_array;
    vis.ctx = &c;
    afmt_src_stream(&src, window, sizeof window, gen_read, &g);
    CHECK("stream: 300 MiB of tenbin through a 1 MiB window validates",
          ten->validate_src(&src, NULL, &vis, &err) == 0 && c.arrays == 300);
    g.at = 0;
    g.total -= 5; /* cut inside the last payload */
    afmt_src_stream(&src, window, sizeof window, gen_read, &g);
    CHECK("stream: a cut in the last payload is truncated",
          ten->validate_src(&src, NULL, NULL, &err) != 0 && err.code == AFMT_E_TRUNCATED && !strcmp(err.field, "array[299].data"));
    long_seekable(&g, ten);
}

/* A zip (a torch checkpoint of 160 KB, written by the torch writer) is read
 * whole: through a seekable source of a 64 KiB window it fails at once
 * with window_short set, reading no more than the window (not through to
 * the end for an end record, as a stream must), and through a window that
 * holds it, it validates as the buffer does. */
static uint64_t counted_bytes;
static int counting_pread(void *ctx, uint8_t *buf, size_t n, uint64_t off, size_t *got)
{
    int rc = mem_pread(ctx, buf, n, off, got);
    counted_bytes += *got;
    return rc;
}

static void seekable_archive(void)
{
    static float data[200 * 200];
    static uint8_t small[1 << 16], big[1 << 18];
    const afmt_format *torch = afmt_format_by_name("torch");
    afmt_array a;
    afmt_sink sink;
    afmt_src src;
    afmt_error err;
    uint64_t len = 0;
    uint8_t *file;
    mem_reader r;
    int rc;
    if (!torch) return;
    afmt_array_init(&a, AFMT_F32);
    a.rank = 2;
    a.dims[0] = a.dims[1] = 200;
    a.count = 200 * 200;
    a.nbytes = sizeof data;
    a.data = (const uint8_t *)data;
    if (torch->encoded_size(&a, 1, NULL, &len, &err) != 0 || !(file = malloc((size_t)len))) {
        CHECK("seekable: a torch file of 160 KB written", 0);
        return;
    }
    afmt_sink_buffer(&sink, file, len);
    CHECK("seekable: a torch file of 160 KB written", torch->write(&a, 1, NULL, &sink, &err) == 0 &&
                                                          torch->validate(file, len, NULL, NULL, &err) == 0);
    r.p = file;
    r.len = len;
    r.at = 0;
    r.step = 1;
    counted_bytes = 0;
    afmt_src_seekable(&src, small, sizeof small, len, counting_pread, &r);
    rc = torch->validate_src(&src, NULL, NULL, &err);
    CHECK("seekable: a zip larger than the window is a limit with window_short, the file not read through",
          rc != 0 && err.code == AFMT_E_LIMIT && src.window_short && counted_bytes <= sizeof small);
    afmt_src_seekable(&src, big, sizeof big, len, counting_pread, &r);
    CHECK("seekable: the same zip through a window that holds it validates",
          torch->validate_src(&src, NULL, NULL, &err) == 0 && !src.window_short);
    free(file);
}

int main(int argc, char **argv)
{
    const char *samples = samples_root("stream comparisons of the samples");
    char name[200];
    (void)argc;
    (void)argv;
    if (samples)
        walk(samples, "samples", 1);
    walk("corpus", "corpus", 1);
    walk("tests", "tests", 2);
    snprintf(name, sizeof name, "stream: compared many inputs (%d, %d limited by the 64 KiB window)", compared, limited);
    CHECK(name, compared > 500);
    snprintf(name, sizeof name, "seekable: every input judged as the buffer judges it (%d, %d fell back for the window)",
             seek_compared, seek_limited);
    CHECK(name, seek_compared > 500);
    long_stream();
    equal_at();
    seekable_archive();
    CHECK_DONE();
}
