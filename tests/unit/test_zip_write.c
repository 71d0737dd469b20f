/* The zip writer (runtime/archive/afmt_zip_write.c): archives in torch.save's
 * form and np.savez's pass afmt_archive_validate with the torch-like and
 * npz-like descs (ar_build.h), and the tools that are installed:
 * `python3 -m zipfile -t`, `unzip -t` and numpy.load (each skipped, with
 * a "# skip" line, when absent); a member made by a callback in pieces;
 * the writer's refusals; a zip read from a stream source (whole in its
 * window, or refused when larger). */
#include "ar_build.h"
#include "check.h"
#include "testutil.h"

#include "archive/afmt_zip_write.h"

static uint8_t out[1 << 20];
static uint8_t npy_w[512], npy_b[512];
static size_t npy_w_len, npy_b_len;
static const uint8_t rec0[24] = {0, 0, 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40, 0, 0, 0x80, 0x40, 0, 0, 0xa0, 0x40};

/* A member's pieces: f32 values 0, 1, 2, ... */
static int counting_floats(void *ctx, uint64_t first, uint8_t *buf, uint64_t n, afmt_error *err)
{
    uint64_t i;
    (void)ctx;
    (void)err;
    for (i = 0; i < n; i++) {
        uint64_t at = first + i;
        float f = (float)(at / 4);
        uint8_t b[4];
        memcpy(b, &f, 4);
        buf[i] = b[at % 4];
    }
    return 0;
}

/* Write the torch-form archive (a record of `big` bytes from the callback
 * when big > 0) into out; its length. */
static uint64_t write_torch(uint64_t big, afmt_error *err)
{
    afmt_zip_write_options o;
    afmt_zip_writer w;
    afmt_sink sink;
    int rc;

    afmt_zip_write_options_torch(&o);
    afmt_sink_buffer(&sink, out, sizeof out);
    rc = afmt_zip_write_begin(&w, &sink, &o, err) != 0 ||
         afmt_zip_write_member(&w, "arch/data.pkl", 13, (const uint8_t *)"0", 1, err) != 0 ||
         (big ? afmt_zip_write_member_fill(&w, "arch/data/0", 11, big, counting_floats, NULL, err)
              : afmt_zip_write_member(&w, "arch/data/0", 11, rec0, sizeof rec0, err)) != 0 ||
         afmt_zip_write_member(&w, "arch/version", 12, (const uint8_t *)"3\n", 2, err) != 0 ||
         afmt_zip_write_member(&w, "arch/byteorder", 14, (const uint8_t *)"little", 6, err) != 0 ||
         afmt_zip_write_finish(&w, err) != 0;
    afmt_zip_write_free(&w);
    return rc ? 0 : sink.written;
}

static uint64_t write_npz(int fill, afmt_error *err)
{
    afmt_zip_write_options o;
    afmt_zip_writer w;
    afmt_sink sink;
    int rc;

    afmt_zip_write_options_npz(&o);
    afmt_sink_buffer(&sink, out, sizeof out);
    rc = afmt_zip_write_begin(&w, &sink, &o, err) != 0 ||
         afmt_zip_write_member(&w, "w.npy", 5, npy_w, npy_w_len, err) != 0 ||
         (fill ? 0 : afmt_zip_write_member(&w, "b.npy", 5, npy_b, npy_b_len, err)) != 0 ||
         afmt_zip_write_finish(&w, err) != 0;
    afmt_zip_write_free(&w);
    return rc ? 0 : sink.written;
}

/* Run a shell command; its exit status, or -1 when it could not run. */
static int run(const char *cmd)
{
    int st = system(cmd);
    return st == -1 ? -1 : (st >> 8) & 0xff;
}

static int have(const char *tool)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
    return run(cmd) == 0;
}

static int save(const char *path, uint64_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(out, 1, (size_t)n, f) == n;
    if (f && fclose(f) != 0)
        ok = 0;
    return ok;
}

/* The archive in out[0..n) through the installed tools. */
static void tools(const char *what, uint64_t n, int npz)
{
    test_dir d;
    char cmd[2048], name[160];
    const char *file;

    if (test_dir_make(&d, "zipw") != 0)
        return;
    file = test_dir_file(&d, npz ? "a.npz" : "a.pt");
    if (!save(file, n)) {
        printf("FAIL %s: cannot write %s\n", what, file);
        test_dir_remove(&d);
        return;
    }
    if (have("python3")) {
        snprintf(cmd, sizeof cmd, "python3 -m zipfile -t '%s' 2>&1 | grep -q '^Done testing' && "
                 "! python3 -m zipfile -t '%s' 2>&1 | grep -q corrupted", file, file);
        snprintf(name, sizeof name, "%s: python3 -m zipfile -t accepts it", what);
        CHECK(name, run(cmd) == 0);
        if (npz && run("python3 -c 'import numpy' >/dev/null 2>&1") == 0) {
            snprintf(cmd, sizeof cmd, "python3 -c \"import numpy as np, sys; d = np.load(sys.argv[1]); "
                     "sys.exit(not (d['w'].tolist() == [[0, 1, 2], [3, 4, 5]] and d['b'].tolist() == [1, 1, 1]))\" '%s'",
                     file);
            snprintf(name, sizeof name, "%s: numpy.load reads its arrays", what);
            CHECK(name, run(cmd) == 0);
        } else if (npz) {
            printf("# skip %s: numpy.load (numpy is not installed)\n", what);
        }
    } else {
        printf("# skip %s: python3 -m zipfile -t (python3 is not installed)\n", what);
    }
    if (have("unzip")) {
        snprintf(cmd, sizeof cmd, "unzip -tq '%s' >/dev/null 2>&1", file);
        snprintf(name, sizeof name, "%s: unzip -t accepts it", what);
        CHECK(name, run(cmd) == 0);
    } else {
        printf("# skip %s: unzip -t (unzip is not installed)\n", what);
    }
    test_dir_remove(&d);
}

static void forms(void)
{
    afmt_error err;
    seen s;
    uint64_t n;
    int ok;

    n = write_torch(0, &err);
    ok = n > 0 && ar_validate(&torch_desc, out, n, AFMT_STRICT, &s, &err) == 0 && s.n == 1 && s.v[0].nbytes == 24 &&
         s.v[0].offset % 64 == 0 && s.warnings == 0;
    if (!ok)
        printf("# torch form: %s at %" PRIu64 ": %s\n", err.field, err.offset, err.message);
    CHECK("torch form: passes the torch-like desc, strict, no warning", ok);
    ok = n > 0 && ar_validate(&torch_desc_zip64, out, n, AFMT_STRICT, &s, &err) == 0;
    CHECK("torch form: has the zip64 end records", ok);
    tools("torch form", n, 0);
    n = write_npz(0, &err);
    ok = n > 0 && ar_validate(&npz_desc, out, n, AFMT_STRICT, &s, &err) == 0 && s.n == 2 &&
         strcmp(s.v[0].name, "w") == 0 && strcmp(s.v[1].name, "b") == 0 && s.warnings == 0;
    if (!ok)
        printf("# npz form: %s at %" PRIu64 ": %s\n", err.field, err.offset, err.message);
    CHECK("npz form: passes the npz-like desc, strict, no warning", ok);
    tools("npz form", n, 1);
}

static void pieces(void)
{
    afmt_error err;
    seen s;
    uint64_t n = write_torch(300000, &err);
    int ok = n > 0 && ar_validate(&torch_desc, out, n, AFMT_STRICT, &s, &err) == 0 && s.n == 1 &&
             s.v[0].nbytes == 300000 && s.v[0].first == 0.0f;
    float last = -1;

    if (ok) {
        memcpy(&last, out + s.v[0].offset + 300000 - 4, 4);
        ok = last == 74999.0f;
    }
    if (!ok)
        printf("# pieces: %s at %" PRIu64 ": %s\n", err.field, err.offset, err.message);
    CHECK("a 300 KB member made by a callback in 64 KiB pieces (CRC-32 on the way)", ok);
}

static void refusals(void)
{
    static const char *const bad[] = {"../x", "/abs", "a//b", "a\\b", "", "a/./b"};
    afmt_zip_write_options o;
    afmt_zip_writer w;
    afmt_sink sink;
    afmt_error err;
    size_t i;
    int ok = 1;

    afmt_zip_write_options_npz(&o);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        afmt_sink_buffer(&sink, out, sizeof out);
        afmt_zip_write_begin(&w, &sink, &o, &err);
        ok &= afmt_zip_write_member(&w, bad[i], strlen(bad[i]), rec0, 4, &err) != 0 && err.code == AFMT_E_USAGE &&
              strcmp(err.field, "member[0]") == 0 && sink.written == 0;
        afmt_zip_write_free(&w);
    }
    CHECK("names that escape or are ambiguous are refused before anything is written", ok);
    afmt_sink_buffer(&sink, out, sizeof out);
    afmt_zip_write_begin(&w, &sink, &o, &err);
    ok = afmt_zip_write_member(&w, "a", 1, rec0, 4, &err) == 0 && afmt_zip_write_member(&w, "b", 1, rec0, 4, &err) == 0 &&
         afmt_zip_write_member(&w, "a", 1, rec0, 4, &err) == 0 && afmt_zip_write_finish(&w, &err) != 0 &&
         err.code == AFMT_E_USAGE && strcmp(err.field, "member[2]") == 0 && strstr(err.message, "second member named \"a\"");
    afmt_zip_write_free(&w);
    CHECK("a name given twice is refused at finish, naming the second", ok);
    o.align = 65536;
    ok = afmt_zip_write_begin(&w, &sink, &o, &err) != 0 && err.code == AFMT_E_USAGE;
    afmt_zip_write_free(&w);
    CHECK("an alignment past 32768 is refused", ok);
    afmt_sink_buffer(&sink, out, 100); /* too small: the sink fails, the writer stays failed */
    afmt_zip_write_options_torch(&o);
    afmt_zip_write_begin(&w, &sink, &o, &err);
    ok = afmt_zip_write_member(&w, "arch/data/0", 11, out + 200, 4096, &err) != 0 && err.code == AFMT_E_IO &&
         afmt_zip_write_finish(&w, &err) != 0 && err.code == AFMT_E_USAGE;
    afmt_zip_write_free(&w);
    CHECK("a failed sink fails the member and every later call", ok);
}

typedef struct mem_stream {
    const uint8_t *p;
    size_t len, at, step; /* step: most bytes per read (0: any) */
} mem_stream;

static int mem_read(void *ctx, uint8_t *buf, size_t n, size_t *got)
{
    mem_stream *m = ctx;
    size_t k = m->len - m->at < n ? m->len - m->at : n;
    if (m->step && k > m->step)
        k = m->step;
    memcpy(buf, m->p + m->at, k);
    m->at += k;
    *got = k;
    return 0;
}

static int stream_validate(uint64_t n, uint8_t *win, size_t cap, seen *s, afmt_error *err)
{
    mem_stream m = {out, (size_t)n, 0, cap < 100000 ? 7 : 0};
    afmt_options opt;
    afmt_visitor vis;
    afmt_src src;
    uint64_t pos = 0;
    uint32_t narrays = 0;

    afmt_options_default(&opt);
    seen_visitor(s, &vis);
    afmt_src_stream(&src, win, cap, mem_read, &m);
    return afmt_archive_validate(&torch_desc, &src, AFMT_LEN_UNKNOWN, &pos, &narrays, &opt, &vis, NULL, err);
}

/* Inputs larger than a 64 KiB window read in 7-byte pieces get the
 * buffer's verdict when their last bytes tell it: no zip, a cut zip, a
 * zip with bytes after it. */
static void same_verdicts(uint64_t n, uint8_t *win)
{
    static const char *const what[3] = {"not a zip", "a zip cut short", "a zip with bytes after it"};
    uint64_t len[3];
    int k;

    for (k = 0; k < 3; k++) {
        afmt_error eb, es;
        seen s;
        char name[400];
        int rb, rs;
        n = write_torch(300000, &eb);
        if (k == 0)
            memset(out, 'x', (size_t)n);
        len[k] = k == 1 ? n - 30 : k == 2 ? n + 5 : n;
        if (k == 2)
            memcpy(out + n, "junk!", 5);
        rb = ar_validate(&torch_desc, out, len[k], AFMT_STRICT, &s, &eb);
        rs = stream_validate(len[k], win, 65536, &s, &es);
        snprintf(name, sizeof name, "%s, from a stream larger than its window: the buffer's verdict (%s %s at %" PRIu64
                 ")", what[k], afmt_code_name(eb.code), eb.field, eb.offset);
        CHECK(name, rb != 0 && rs != 0 && eb.code == es.code && strcmp(eb.field, es.field) == 0 &&
                        eb.offset == es.offset && eb.code != AFMT_E_LIMIT);
    }
}

static void streams(void)
{
    static uint8_t win[1 << 20];
    afmt_error err;
    seen s;
    uint64_t n = write_torch(300000, &err);
    char size[64];
    int ok;

    ok = stream_validate(n, win, sizeof win, &s, &err) == 0 && s.n == 1 && !s.v[0].has_data && s.v[0].nbytes == 300000;
    CHECK("a zip from a stream that fits its window (1 MiB): views without data", ok);
    snprintf(size, sizeof size, "archive of %" PRIu64 " bytes", n);
    ok = stream_validate(n, win, 65536, &s, &err) != 0 && err.code == AFMT_E_LIMIT && strcmp(err.field, "archive") == 0 &&
         err.offset == 0 && strstr(err.message, "must fit the stream window of 65536 bytes") && strstr(err.message, size);
    if (!ok)
        printf("# stream: %s %s at %" PRIu64 ": %s\n", afmt_code_name(err.code), err.field, err.offset, err.message);
    CHECK("a zip from a stream larger than its window: a limit error saying so", ok);
    same_verdicts(n, win);
}

int main(void)
{
    make_npys(npy_w, &npy_w_len, npy_b, &npy_b_len);
    forms();
    pieces();
    refusals();
    streams();
    CHECK_DONE();
}
