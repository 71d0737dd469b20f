/* afmt_file_open / afmt_file_read_array / afmt_file_close, and the read
 * loop under them (afmt_fileio_read_at): the result equals
 * afmt_array_to_plain's for every kind of view (read straight from the
 * file or decoded), into aligned and unaligned buffers; short reads, EINTR
 * and errors of pread; a file shortened or modified after it was opened
 * is an error naming the file and the offset, never a crash or bytes
 * passed off as validated. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "afmt.h"
#include "io/afmt_fileio.h"
#include "check.h"
#include "testutil.h"
#include "npy.h"
#include "rawarray.h"
#include "tenbin.h"

static test_dir dir;
static char name_buf[512]; /* a test's name */

static const char *path_of(const char *name)
{
    return test_dir_file(&dir, name);
}

/* ---------------------------------------------------------------- read loop */

/* A pread stand-in over mem[0..len): at most `step` bytes a call, EINTR
 * every `eintr_every` calls, errno `fail_errno` once `fail_at` bytes were
 * given. */
typedef struct fake_file {
    const uint8_t *mem;
    uint64_t len, step, fail_at;
    int eintr_every, calls, fail_errno;
} fake_file;

static fake_file fake;

static int64_t fake_pread(int fd, void *buf, uint64_t n, uint64_t at)
{
    (void)fd;
    fake.calls++;
    if (fake.eintr_every && fake.calls % fake.eintr_every == 0) {
        errno = EINTR;
        return -1;
    }
    if (fake.fail_errno && at >= fake.fail_at) {
        errno = fake.fail_errno;
        return -1;
    }
    if (at >= fake.len)
        return 0;
    if (n > fake.len - at)
        n = fake.len - at;
    if (fake.step && n > fake.step)
        n = fake.step;
    memcpy(buf, fake.mem + at, (size_t)n);
    return (int64_t)n;
}

typedef struct read_case {
    const char *name;
    uint64_t len, step, at, n;
    int eintr_every, fail_errno;
    uint64_t fail_at;
    int rc;            /* expected: 0 all, 1 end of file, -1 error */
    uint64_t got;      /* expected bytes read */
    int errnum;        /* expected *errnum when rc is -1 */
} read_case;

static void test_read_at(void)
{
    static const read_case cases[] = {
        { "whole in one call", 1000, 0, 0, 1000, 0, 0, 0, 0, 1000, 0 },
        { "short reads of 3 bytes", 1000, 3, 5, 990, 0, 0, 0, 0, 990, 0 },
        { "EINTR every other call", 1000, 7, 0, 1000, 2, 0, 0, 0, 1000, 0 },
        { "file ends inside the range", 600, 64, 100, 900, 0, 0, 0, 1, 500, 0 },
        { "range starts past the end", 600, 0, 700, 10, 0, 0, 0, 1, 0, 0 },
        { "EIO after 256 bytes", 1000, 128, 0, 1000, 0, EIO, 256, -1, 256, EIO },
        { "EIO with EINTRs before", 1000, 100, 0, 1000, 3, EIO, 500, -1, 500, EIO },
        { "nothing to read", 1000, 0, 1000, 0, 0, 0, 0, 0, 0, 0 },
        { "offset overflows off_t", 1000, 0, UINT64_MAX - 4, 10, 0, 0, 0, -1, 0, EOVERFLOW },
    };
    uint8_t mem[1000], out[1001];
    size_t i, k;

    for (k = 0; k < sizeof mem; k++)
        mem[k] = (uint8_t)(k * 7 + 3);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const read_case *c = &cases[i];
        uint64_t got = 12345;
        int e = 0, rc;
        memset(&fake, 0, sizeof fake);
        fake.mem = mem;
        fake.len = c->len;
        fake.step = c->step;
        fake.eintr_every = c->eintr_every;
        fake.fail_errno = c->fail_errno;
        fake.fail_at = c->fail_at;
        memset(out, 0xEE, sizeof out);
        /* out + 1: the destination need not be aligned */
        rc = afmt_fileio_read_at(-1, out + 1, c->n, c->at, fake_pread, &got, &e);
        snprintf(name_buf, sizeof name_buf, "read_at: %s: rc %d (want %d), got %llu (want %llu)",
                 c->name, rc, c->rc, (unsigned long long)got, (unsigned long long)c->got);
        CHECK(name_buf, rc == c->rc && got == c->got && (rc >= 0 || e == c->errnum) &&
                            (got == 0 || memcmp(out + 1, mem + c->at, (size_t)got) == 0) &&
                            out[0] == 0xEE && (got >= sizeof out - 1 || out[1 + got] == 0xEE));
    }
    /* the real pread, through a real descriptor */
    {
        int fd = open(path_of("read_at.bin"), O_RDWR | O_CREAT | O_TRUNC, 0600), e = 0;
        uint64_t got = 0;
        CHECK("read_at file created", fd >= 0 && write(fd, mem, sizeof mem) == (ssize_t)sizeof mem);
        CHECK("read_at pread: all", afmt_fileio_read_at(fd, out + 1, 999, 1, NULL, &got, &e) == 0 &&
                                        got == 999 && memcmp(out + 1, mem + 1, 999) == 0);
        CHECK("read_at pread: end of file", afmt_fileio_read_at(fd, out, 10, 995, NULL, &got, &e) == 1 &&
                                                got == 5 && memcmp(out, mem + 995, 5) == 0);
        CHECK("read_at pread: bad descriptor", afmt_fileio_read_at(-1, out, 10, 0, NULL, &got, &e) == -1 &&
                                                   e == EBADF && got == 0);
        if (fd >= 0)
            close(fd);
    }
}

/* ---------------------------------------------------------------- files */

static afmt_array kept;
static int kept_n;

static int keep_view(void *ctx, const afmt_array *a)
{
    (void)ctx;
    if (kept_n++ == 0)
        kept = *a;
    return 0;
}

/* Validate f's bytes as fmt and keep its first array in `kept`. */
static int validate_first(const afmt_format *fmt, const afmt_file *f)
{
    afmt_visitor vis;
    afmt_error err;
    memset(&vis, 0, sizeof vis);
    vis.on_array = keep_view;
    kept_n = 0;
    return fmt->validate(f->data, f->len, NULL, &vis, &err) == 0 && kept_n > 0 ? 0 : -1;
}

/* Write `a` as fmt to path through a file sink. */
static int write_file(const afmt_format *fmt, const afmt_array *a, const char *path)
{
    afmt_sink s;
    afmt_error err;
    if (afmt_sink_file_open(&s, path, &err) != 0)
        return -1;
    if (fmt->write(a, 1, NULL, &s, &err) != 0) {
        afmt_sink_abort(&s);
        return -1;
    }
    return afmt_sink_commit(&s, &err);
}

typedef struct file_case {
    const afmt_format *fmt;
    const char *file;
    afmt_order order;     /* order asked of afmt_file_read_array */
    int big_endian_npy;   /* patch '<f4' into '>f4': decoded (swapped) */
} file_case;

/* Every way of reading gives afmt_array_to_plain's bytes, at dst + shift
 * for every shift 0..3 (unaligned caller buffers). */
static void test_read_files(void)
{
    enum { R = 37, C = 53 }; /* odd: no dim a multiple of a vector */
    const file_case cases[] = {
        { &afmt_npy_format, "a.npy", AFMT_ROW_MAJOR, 0 },       /* straight from the file */
        { &afmt_npy_format, "b.npy", AFMT_COL_MAJOR, 0 },       /* transposed */
        { &afmt_npy_format, "c.npy", AFMT_ROW_MAJOR, 1 },       /* byte-swapped */
        { &afmt_tenbin_format, "a.ten", AFMT_ROW_MAJOR, 0 },    /* straight */
        { &afmt_rawarray_format, "a.ra", AFMT_COL_MAJOR, 0 },   /* straight (column-major) */
        { &afmt_rawarray_format, "b.ra", AFMT_ROW_MAJOR, 0 },   /* transposed */
    };
    float v[R * C];
    uint8_t *want = malloc(sizeof v), *got = malloc(sizeof v + 4);
    afmt_array a;
    size_t i, k;
    unsigned shift;

    for (k = 0; k < R * C; k++)
        v[k] = (float)k * 0.25f - 100.0f;
    afmt_array_init(&a, AFMT_F32);
    a.rank = 2;
    a.dims[0] = R;
    a.dims[1] = C;
    a.count = R * C;
    a.data = (const uint8_t *)v;
    a.nbytes = sizeof v;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const file_case *c = &cases[i];
        afmt_file f;
        afmt_error err;
        int ok = 1;
        a.order = c->fmt->order;
        CHECK(c->file, write_file(c->fmt, &a, path_of(c->file)) == 0);
        if (c->big_endian_npy) {
            /* the same header with '>f4', and every value's bytes reversed */
            FILE *fp = fopen(path_of(c->file), "r+b");
            uint8_t head[128];
            uint8_t *body = malloc(sizeof v);
            char *lt;
            ok = fp && fread(head, 1, sizeof head, fp) == sizeof head &&
                 fread(body, 1, sizeof v, fp) == sizeof v;
            lt = ok ? memchr(head, '<', sizeof head) : NULL;
            if (lt) {
                *lt = '>';
                for (k = 0; k < sizeof v; k += 4) {
                    uint8_t t = body[k]; body[k] = body[k + 3]; body[k + 3] = t;
                    t = body[k + 1]; body[k + 1] = body[k + 2]; body[k + 2] = t;
                }
                ok = fseek(fp, 0, SEEK_SET) == 0 && fwrite(head, 1, sizeof head, fp) == sizeof head &&
                     fwrite(body, 1, sizeof v, fp) == sizeof v;
            }
            ok = ok && lt && fp && fclose(fp) == 0;
            free(body);
            CHECK("big-endian .npy made", ok);
        }
        CHECK(c->file, afmt_file_open(&f, path_of(c->file), &err) == 0 && validate_first(c->fmt, &f) == 0);
        if (kept_n == 0) {
            afmt_file_close(&f);
            continue;
        }
        ok = afmt_array_to_plain(&kept, c->order, want, sizeof v, &err) == 0;
        for (shift = 0; shift < 4 && ok; shift++) {
            memset(got, 0xEE, sizeof v + 4);
            ok = afmt_file_read_array(&f, &kept, c->order, got + shift, sizeof v, &err) == 0 &&
                 memcmp(got + shift, want, sizeof v) == 0;
        }
        snprintf(name_buf, sizeof name_buf, "read %s in %s order = afmt_array_to_plain, dst + 0..3",
                 c->file, c->order == AFMT_ROW_MAJOR ? "row-major" : "column-major");
        CHECK(name_buf, ok);
        CHECK("dst too small refused", afmt_file_read_array(&f, &kept, c->order, got, sizeof v - 1, &err) == -1 &&
                                           err.code == AFMT_E_USAGE);
        afmt_file_close(&f);
        CHECK("closed", f.fd == -1 && f.data == NULL);
        CHECK("read after close refused", afmt_file_read_array(&f, &kept, c->order, got, sizeof v, &err) == -1 &&
                                              err.code == AFMT_E_USAGE);
    }
    free(want);
    free(got);
}

/* A file shortened or modified after it was opened and validated. */
static void test_changed_files(void)
{
    enum { N = 100000 };
    float *v = malloc(N * sizeof *v);
    uint8_t *dst = malloc(N * sizeof *v);
    afmt_array a;
    afmt_file f;
    afmt_error err;
    uint64_t payload_at;
    int fd;
    size_t k;

    for (k = 0; k < N; k++)
        v[k] = (float)k;
    afmt_array_init(&a, AFMT_F32);
    a.rank = 2; /* 2-d: read in column-major order, it is decoded */
    a.dims[0] = N / 100;
    a.dims[1] = 100;
    a.count = N;
    a.data = (const uint8_t *)v;
    a.nbytes = N * sizeof *v;

    /* shortened to the middle of the payload: the read stops there */
    CHECK("short.npy", write_file(&afmt_npy_format, &a, path_of("short.npy")) == 0);
    CHECK("short.npy open+validate", afmt_file_open(&f, path_of("short.npy"), &err) == 0 &&
                                         validate_first(&afmt_npy_format, &f) == 0);
    payload_at = kept.offset;
    CHECK("short.npy truncated", truncate(path_of("short.npy"), (off_t)(payload_at + 1000)) == 0);
    CHECK("shortened: AFMT_E_IO at the new end, naming the file",
          afmt_file_read_array(&f, &kept, AFMT_ROW_MAJOR, dst, N * sizeof *v, &err) == -1 &&
              err.code == AFMT_E_IO && err.offset == payload_at + 1000 &&
              strstr(err.message, path_of("short.npy")) != NULL && strstr(err.message, "shortened") != NULL);
    /* the decoding path looks before it touches the mapping (no SIGBUS) */
    CHECK("shortened, decoding path: AFMT_E_IO, no fault",
          afmt_file_read_array(&f, &kept, AFMT_COL_MAJOR, dst, N * sizeof *v, &err) == -1 &&
              err.code == AFMT_E_IO && strstr(err.message, path_of("short.npy")) != NULL);
    afmt_file_close(&f);

    /* same size, rewritten, with another modification time */
    CHECK("mod.npy", write_file(&afmt_npy_format, &a, path_of("mod.npy")) == 0);
    CHECK("mod.npy open+validate", afmt_file_open(&f, path_of("mod.npy"), &err) == 0 &&
                                       validate_first(&afmt_npy_format, &f) == 0);
    fd = open(path_of("mod.npy"), O_WRONLY);
    {
        struct timespec t[2];
        t[0].tv_sec = t[1].tv_sec = (time_t)f.mtime_sec - 10;
        t[0].tv_nsec = t[1].tv_nsec = 0;
        CHECK("mod.npy rewritten", fd >= 0 && pwrite(fd, "\x7f\x7f\x7f\x7f", 4, (off_t)kept.offset) == 4 &&
                                       futimens(fd, t) == 0);
    }
    if (fd >= 0)
        close(fd);
    CHECK("modified: AFMT_E_IO naming the file",
          afmt_file_read_array(&f, &kept, AFMT_ROW_MAJOR, dst, N * sizeof *v, &err) == -1 &&
              err.code == AFMT_E_IO && strstr(err.message, path_of("mod.npy")) != NULL &&
              strstr(err.message, "modified") != NULL);
    afmt_file_close(&f);

    /* a view that is not of this file's mapping */
    CHECK("ok.npy", write_file(&afmt_npy_format, &a, path_of("ok.npy")) == 0);
    CHECK("ok.npy open+validate", afmt_file_open(&f, path_of("ok.npy"), &err) == 0 &&
                                      validate_first(&afmt_npy_format, &f) == 0);
    kept.data = (const uint8_t *)v;
    CHECK("view outside the mapping refused",
          afmt_file_read_array(&f, &kept, AFMT_ROW_MAJOR, dst, N * sizeof *v, &err) == -1 &&
              err.code == AFMT_E_USAGE && strstr(err.message, "not inside") != NULL);
    afmt_file_close(&f);
    afmt_file_close(&f); /* twice: nothing */
    free(v);
    free(dst);
}

static void test_open_errors(void)
{
    afmt_file f;
    afmt_error err;
    char longp[5000];

    CHECK("missing file: AFMT_E_IO naming it", afmt_file_open(&f, path_of("none.npy"), &err) == -1 &&
                                                  err.code == AFMT_E_IO && f.fd == -1 &&
                                                  strstr(err.message, path_of("none.npy")) != NULL);
    CHECK("directory refused", afmt_file_open(&f, dir.path, &err) == -1 && err.code == AFMT_E_IO &&
                                   strstr(err.message, "not a regular file") != NULL);
    CHECK("/dev/null refused", afmt_file_open(&f, "/dev/null", &err) == -1 && err.code == AFMT_E_IO);
    CHECK("empty path", afmt_file_open(&f, "", &err) == -1 && err.code == AFMT_E_USAGE);
    memset(longp, 'a', sizeof longp - 1);
    longp[sizeof longp - 1] = '\0';
    CHECK("long path", afmt_file_open(&f, longp, &err) == -1 && err.code == AFMT_E_USAGE);
    {
        FILE *fp = fopen(path_of("empty.npy"), "wb");
        CHECK("empty file made", fp && fclose(fp) == 0);
    }
    CHECK("empty file opens", afmt_file_open(&f, path_of("empty.npy"), &err) == 0 && f.len == 0 && f.data != NULL);
    CHECK("empty file is invalid .npy", afmt_npy_validate(f.data, f.len, NULL, NULL, &err) == -1);
    afmt_file_close(&f);
}

int main(void)
{
    if (test_dir_make(&dir, "file") != 0)
        return 1;
    test_read_at();
    test_read_files();
    test_changed_files();
    test_open_errors();
    test_dir_remove(&dir);
    CHECK_DONE();
}
