/* The write path of the file and stdio sinks: the write loop under them
 * (afmt_fileio_write_all) through short writes, EINTR, ENOSPC, EIO and a
 * write() that makes no progress; a payload of a megabyte or more written
 * past stdio's buffer into every kind of stream (a regular file new, in
 * update mode and in append mode, a pipe) lands at the stream's position,
 * in order, and leaves the stream knowing where it is; a file sink whose
 * write fails half way (the file size limit, EFBIG) names the file and
 * leaves the old file as it was and no temporary file behind. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "afmt.h"
#include "io/afmt_fileio.h"
#include "io/afmt_sink.h"
#include "check.h"
#include "testutil.h"
#include "rawarray.h"

static test_dir dir;
static char name_buf[512]; /* a test's name */

static const char *path_of(const char *name)
{
    return test_dir_file(&dir, name);
}

/* ---------------------------------------------------------------- write loop */

/* A write() stand-in into out[0..cap): at most `step` bytes a call, EINTR
 * every `eintr_every` calls, errno `fail_errno` once `fail_at` bytes were
 * taken, 0 (no progress) once `zero_at` were, or one byte more than asked
 * when `overclaim`. */
typedef struct fake_out {
    uint8_t *out;
    uint64_t cap, len, step, fail_at, zero_at;
    int eintr_every, calls, fail_errno, overclaim;
} fake_out;

static fake_out fake;

static int64_t fake_write(int fd, const void *buf, uint64_t n)
{
    (void)fd;
    fake.calls++;
    if (fake.eintr_every && fake.calls % fake.eintr_every == 0) {
        errno = EINTR;
        return -1;
    }
    if (fake.fail_errno && fake.len >= fake.fail_at) {
        errno = fake.fail_errno;
        return -1;
    }
    if (fake.zero_at && fake.len >= fake.zero_at)
        return 0;
    if (fake.step && n > fake.step)
        n = fake.step;
    if (fake.fail_errno && n > fake.fail_at - fake.len)
        n = fake.fail_at - fake.len; /* a short write up to the failure, as the kernel does */
    if (n > fake.cap - fake.len)
        n = fake.cap - fake.len;
    memcpy(fake.out + fake.len, buf, (size_t)n);
    fake.len += n;
    return (int64_t)n + (fake.overclaim ? 1 : 0);
}

typedef struct write_case {
    const char *name;
    uint64_t n, step;
    int eintr_every, fail_errno;
    uint64_t fail_at, zero_at;
    int overclaim;
    int rc;        /* expected: 0 all written, -1 error */
    uint64_t done; /* expected bytes written */
    int errnum;    /* expected *errnum when rc is -1 */
} write_case;

static void test_write_all(void)
{
    static const write_case cases[] = {
        { "whole in one call", 1000, 0, 0, 0, 0, 0, 0, 0, 1000, 0 },
        { "short writes of 3 bytes", 1000, 3, 0, 0, 0, 0, 0, 0, 1000, 0 },
        { "EINTR every other call", 1000, 7, 2, 0, 0, 0, 0, 0, 1000, 0 },
        { "ENOSPC after 256 bytes", 1000, 100, 0, ENOSPC, 256, 0, 0, -1, 256, ENOSPC },
        { "ENOSPC at once", 1000, 0, 0, ENOSPC, 0, 0, 0, -1, 0, ENOSPC },
        { "EIO with EINTRs before", 1000, 100, 3, EIO, 500, 0, 0, -1, 500, EIO },
        { "EFBIG after a short write", 1000, 0, 0, EFBIG, 999, 0, 0, -1, 999, EFBIG },
        { "no progress is EIO, not a loop", 1000, 64, 0, 0, 0, 128, 0, -1, 128, EIO },
        { "more written than asked is EIO", 1000, 0, 0, 0, 0, 0, 1, -1, 0, EIO },
        { "nothing to write", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    };
    uint8_t mem[1000], out[1000];
    size_t i, k;

    for (k = 0; k < sizeof mem; k++)
        mem[k] = (uint8_t)(k * 13 + 5);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const write_case *c = &cases[i];
        uint64_t done = 12345;
        int e = 0, rc;
        memset(&fake, 0, sizeof fake);
        memset(out, 0xEE, sizeof out);
        fake.out = out;
        fake.cap = sizeof out;
        fake.step = c->step;
        fake.eintr_every = c->eintr_every;
        fake.fail_errno = c->fail_errno;
        fake.fail_at = c->fail_at;
        fake.zero_at = c->zero_at;
        fake.overclaim = c->overclaim;
        rc = afmt_fileio_write_all(-1, mem, c->n, fake_write, &done, &e);
        snprintf(name_buf, sizeof name_buf, "write_all: %s: rc %d (want %d), done %llu (want %llu), errno %d (want %d)",
                 c->name, rc, c->rc, (unsigned long long)done, (unsigned long long)c->done, e, c->errnum);
        CHECK(name_buf, rc == c->rc && done == c->done && (rc == 0 || e == c->errnum) &&
                            memcmp(out, mem, (size_t)(c->overclaim ? fake.len : done)) == 0);
    }
    {
        /* the real write(): ENOSPC from /dev/full, EBADF from no descriptor */
        int fd = open("/dev/full", O_WRONLY), e = 0;
        uint64_t done = 1;
        if (fd >= 0) {
            CHECK("write_all /dev/full: ENOSPC", afmt_fileio_write_all(fd, mem, 100, NULL, &done, &e) == -1 &&
                                                     e == ENOSPC && done == 0);
            e = 0;
            CHECK("write_bulk /dev/full: ENOSPC",
                  afmt_fileio_write_bulk(fd, mem, sizeof mem, -1, 0, &e) == -1 && e == ENOSPC);
            close(fd);
        }
        CHECK("write_all bad descriptor: EBADF",
              afmt_fileio_write_all(-1, mem, 10, NULL, &done, &e) == -1 && e == EBADF && done == 0);
    }
}

/* ---------------------------------------------------------------- streams */

/* A payload of n bytes (n/2 u16 elements), little-endian, so that it is
 * written as it is, past stdio (n >= AFMT_FILEIO_BULK). */
static void payload_view(afmt_array *a, uint8_t *src, uint64_t n)
{
    afmt_array_init(a, AFMT_U16);
    a->rank = 1;
    a->dims[0] = n / 2;
    a->count = n / 2;
    a->data = src;
    a->nbytes = n;
}

static uint8_t *pattern(uint64_t n, unsigned seed)
{
    uint8_t *p = malloc((size_t)n);
    uint64_t k;
    for (k = 0; p && k < n; k++)
        p[k] = (uint8_t)(k * 131 + (k >> 11) + seed);
    return p;
}

/* What a stream test writes: "abc" (left in stdio's buffer), payload A,
 * "xyz", payload B, then "!" with fputs by the caller. */
static int write_sequence(FILE *fp, const afmt_array *a, const afmt_array *b, afmt_error *e)
{
    afmt_sink s;
    afmt_sink_stdio(&s, fp);
    if (afmt_sink_put(&s, "abc", 3, e) != 0 || afmt_sink_payload(&s, a, AFMT_LITTLE, AFMT_ENC_PLAIN, e) != 0 ||
        afmt_sink_put(&s, "xyz", 3, e) != 0 || afmt_sink_payload(&s, b, AFMT_LITTLE, AFMT_ENC_PLAIN, e) != 0 ||
        afmt_sink_commit(&s, e) != 0)
        return -1;
    return fputs("!", fp) >= 0 && fflush(fp) == 0 ? 0 : -1;
}

/* The file holds prefix[0..pre), then the sequence of write_sequence. */
static int sequence_in_place(const char *path, const char *prefix, uint64_t pre, const uint8_t *pa,
                             uint64_t na, const uint8_t *pb, uint64_t nb)
{
    uint64_t len = 0, at = pre;
    FILE *f = fopen(path, "rb");
    uint8_t *all;
    int ok;
    struct stat st;

    if (!f || fstat(fileno(f), &st) != 0) {
        if (f)
            fclose(f);
        return 0;
    }
    len = (uint64_t)st.st_size;
    all = malloc((size_t)len + 1);
    ok = all && fread(all, 1, (size_t)len, f) == len && len == pre + 3 + na + 3 + nb + 1;
    fclose(f);
    ok = ok && memcmp(all, prefix, (size_t)pre) == 0;
    ok = ok && memcmp(all + at, "abc", 3) == 0 && memcmp(all + (at += 3), pa, (size_t)na) == 0;
    ok = ok && memcmp(all + (at += na), "xyz", 3) == 0 && memcmp(all + (at += 3), pb, (size_t)nb) == 0;
    ok = ok && all[at + nb] == '!';
    free(all);
    return ok;
}

typedef struct stream_case {
    const char *name;
    const char *mode;   /* fopen mode */
    const char *prefix; /* in the file before (read back for "r+b" / "ab") */
    int seek_end;       /* r+b: start writing at the end of the prefix */
} stream_case;

static void test_streams(void)
{
    static const stream_case cases[] = {
        { "new file (wb)", "wb", "", 0 },
        { "update mode (w+b)", "w+b", "", 0 },
        { "update mode after a prefix (r+b, at its end)", "r+b", "0123456789", 1 },
        { "append mode (ab)", "ab", "old bytes\n", 0 },
    };
    /* sizes that start and end off every page and piece boundary */
    const uint64_t na = ((uint64_t)3 << 20) + 10, nb = ((uint64_t)9 << 20) + 2;
    uint8_t *pa = pattern(na, 1), *pb = pattern(nb, 7);
    afmt_array a, b;
    size_t i;

    if (!pa || !pb) {
        CHECK("stream test buffers", 0);
        free(pa);
        free(pb);
        return;
    }
    payload_view(&a, pa, na);
    payload_view(&b, pb, nb);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const stream_case *c = &cases[i];
        const char *path = path_of("stream.bin");
        uint64_t pre = strlen(c->prefix);
        afmt_error e;
        FILE *fp;
        off_t pos = -1;
        int ok;
        char name[640];

        afmt_error_clear(&e);
        unlink(path);
        if (pre > 0) {
            FILE *p = fopen(path, "wb");
            ok = p && fwrite(c->prefix, 1, (size_t)pre, p) == pre;
            if (p)
                fclose(p);
            if (!ok)
                CHECK("prefix written", 0);
        }
        fp = fopen(path, c->mode);
        if (fp && c->seek_end)
            fseeko(fp, 0, SEEK_END);
        ok = fp && write_sequence(fp, &a, &b, &e) == 0;
        /* the stream knows where it is: no stale position after the bytes
         * it did not see */
        if (fp)
            pos = ftello(fp);
        if (fp)
            fclose(fp);
        snprintf(name, sizeof name, "stdio sink, %s: written (%s)", c->name, ok ? "ok" : e.message);
        CHECK(name, ok);
        snprintf(name, sizeof name, "stdio sink, %s: ftello after is the end (%lld)", c->name, (long long)pos);
        CHECK(name, pos >= 0 && (uint64_t)pos == pre + 3 + na + 3 + nb + 1);
        snprintf(name, sizeof name, "stdio sink, %s: every byte in place, none more", c->name);
        CHECK(name, ok && sequence_in_place(path, c->prefix, pre, pa, na, pb, nb));
        unlink(path);
    }

    /* A pipe: no descriptor write past stdio, the bytes in order all the
     * same (a child writes, this process reads). */
    {
        int fds[2];
        pid_t pid;
        uint64_t want = 3 + na + 3 + nb + 1, got = 0;
        uint8_t *back = malloc((size_t)want + 1);
        int ok = back && pipe(fds) == 0, status = 0;

        fflush(stdout);
        pid = ok ? fork() : -1;
        if (pid == 0) {
            FILE *w;
            afmt_error e;
            close(fds[0]);
            w = fdopen(fds[1], "wb");
            _exit(w && write_sequence(w, &a, &b, &e) == 0 && fclose(w) == 0 ? 0 : 1);
        }
        if (pid > 0) {
            ssize_t r;
            close(fds[1]);
            while (got <= want && (r = read(fds[0], back + got, (size_t)(want + 1 - got))) != 0) {
                if (r < 0 && errno == EINTR)
                    continue;
                if (r < 0)
                    break;
                got += (uint64_t)r;
            }
            close(fds[0]);
            ok = waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        } else {
            ok = 0;
        }
        CHECK("stdio sink, pipe: the writer succeeded", ok);
        CHECK("stdio sink, pipe: every byte in order, none more",
              ok && got == want && memcmp(back, "abc", 3) == 0 && memcmp(back + 3, pa, (size_t)na) == 0 &&
                  memcmp(back + 3 + na, "xyz", 3) == 0 && memcmp(back + 6 + na, pb, (size_t)nb) == 0 &&
                  back[want - 1] == '!');
        free(back);
    }
    free(pa);
    free(pb);
}

/* ---------------------------------------------------------------- failures */

/* Names in dir other than keep (a temporary file left behind). */
static int stray_files(const char *keep)
{
    DIR *d = opendir(dir.path);
    struct dirent *ent;
    int n = 0;
    if (!d)
        return -1;
    while ((ent = readdir(d)) != NULL)
        if (strcmp(ent->d_name, ".") != 0 && strcmp(ent->d_name, "..") != 0 && strcmp(ent->d_name, keep) != 0)
            n++;
    closedir(d);
    return n;
}

/* In a child (the limit and the signal disposition are the process's):
 * the file size limit cuts the payload's write() short, then EFBIG.  Exit
 * status: 0 when the write failed as it must, with an AFMT_E_IO error
 * naming the file, the abort left the old file whole and nothing else. */
static int fail_half_way(const char *path, const afmt_array *a, uint64_t limit)
{
    struct rlimit rl;
    afmt_sink s;
    afmt_error e;
    FILE *f;
    char old[16] = "";
    size_t n;

    signal(SIGXFSZ, SIG_IGN);
    if (getrlimit(RLIMIT_FSIZE, &rl) != 0)
        return 10;
    rl.rlim_cur = (rlim_t)limit;
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
        return 11;
    afmt_error_clear(&e);
    if (afmt_sink_file_open(&s, path, &e) != 0)
        return 12;
    if (afmt_rawarray_write(a, 1, NULL, &s, &e) == 0)
        return 13; /* it cannot fit */
    if (e.code != AFMT_E_IO || !strstr(e.message, path) || !strstr(e.message, "too large"))
        return 14;
    afmt_sink_abort(&s);
    f = fopen(path, "rb");
    if (!f)
        return 15;
    n = fread(old, 1, sizeof old - 1, f);
    fclose(f);
    if (n != 9 || memcmp(old, "old file\n", 9) != 0)
        return 16;
    return stray_files("old.ra") == 0 ? 0 : 17;
}

static void test_failures(void)
{
    const uint64_t n = (uint64_t)4 << 20;
    uint8_t *src = pattern(n, 3);
    const char *path = path_of("old.ra");
    afmt_array a;
    FILE *f;
    pid_t pid;
    int status = 0;
    char name[128];

    if (!src) {
        CHECK("failure test buffer", 0);
        return;
    }
    payload_view(&a, src, n);
    f = fopen(path, "wb");
    CHECK("old file written", f && fputs("old file\n", f) >= 0 && fclose(f) == 0);
    /* the limit falls inside the payload (header 56 bytes): a short write
     * of part of it, then EFBIG */
    fflush(stdout);
    pid = fork();
    if (pid == 0)
        _exit(fail_half_way(path, &a, ((uint64_t)5 << 19) + 4096 + 3));
    snprintf(name, sizeof name, "file sink, write fails half way (status %d)",
             pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    CHECK(name, pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK("file sink, failed write: old file unchanged, nothing left behind",
          stray_files("old.ra") == 0);
    unlink(path);

    /* ENOSPC through a write-through sink (a character device): the error
     * names the device and the sink stays failed */
    {
        afmt_sink s;
        afmt_error e;
        afmt_error_clear(&e);
        if (afmt_sink_file_open(&s, "/dev/full", &e) == 0) {
            int rc = afmt_rawarray_write(&a, 1, NULL, &s, &e);
            CHECK("write-through /dev/full: ENOSPC names the device",
                  rc == -1 && e.code == AFMT_E_IO && strstr(e.message, "/dev/full") != NULL);
            afmt_sink_abort(&s);
        }
    }
    free(src);
}

static int keep_first(void *ctx, const afmt_array *arr)
{
    afmt_array *first = ctx;
    if (first->data == NULL)
        *first = *arr;
    return 0;
}

/* A whole writer through a caller's stream: the file is the format's and
 * validates, with the payload exact. */
static void test_writer_through_stdio(void)
{
    const uint64_t n = (uint64_t)2 << 20;
    uint8_t *src = pattern(n, 5);
    const char *path = path_of("w.ra");
    afmt_array a, first;
    afmt_visitor vis;
    afmt_sink s;
    afmt_error e;
    uint8_t *back = malloc((size_t)n + 4096);
    FILE *fp = fopen(path, "w+b");
    size_t got = 0;
    int ok = src && back && fp;

    afmt_error_clear(&e);
    if (ok) {
        payload_view(&a, src, n);
        afmt_sink_stdio(&s, fp);
        ok = afmt_rawarray_write(&a, 1, NULL, &s, &e) == 0 && afmt_sink_commit(&s, &e) == 0;
    }
    if (ok) {
        rewind(fp);
        got = fread(back, 1, (size_t)n + 4096, fp);
    }
    CHECK("rawarray through a stdio sink: written", ok);
    memset(&vis, 0, sizeof vis);
    memset(&first, 0, sizeof first);
    vis.on_array = keep_first;
    vis.ctx = &first;
    ok = ok && got == n + 56 && afmt_rawarray_validate(back, got, NULL, &vis, &e) == 0 && first.data &&
         first.nbytes == n && memcmp(first.data, src, (size_t)n) == 0;
    CHECK("rawarray through a stdio sink: valid, payload exact", ok);
    if (fp)
        fclose(fp);
    unlink(path);
    free(src);
    free(back);
}

int main(void)
{
    if (test_dir_make(&dir, "sink-write") != 0)
        return 1;
    test_write_all();
    test_streams();
    test_failures();
    test_writer_through_stdio();
    test_dir_remove(&dir);
    CHECK_DONE();
}
