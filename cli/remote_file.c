/* afmt CLI: a remote file as a buffer that fills in as it is read (see
 * remote_file.h). */
#include "remote_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fail.h"
#include "fault_guard.h"
#include "input.h"

#define FIRST_RANGE ((uint64_t)64 << 10)
/* the range a read away from the last one fetches first: an archive
 * member's local header and its format's header (npy's: 128 bytes, most
 * often) lie in it */
#define ELSEWHERE_RANGE ((uint64_t)16 << 10)
#define MAX_RANGE ((uint64_t)16 << 20)

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/* Make [from, from + n) readable with the file's bytes. */
static int fetch_into_map(afmt_cli_remote_file *f, uint64_t from, uint64_t n, afmt_error *err)
{
    size_t ps = page_size();
    uint64_t lo = from / ps * ps, hi = (from + n + ps - 1) / ps * ps;

    if (hi > f->map_len)
        hi = f->map_len;
    if (mprotect(f->map + lo, (size_t)(hi - lo), PROT_READ | PROT_WRITE) != 0) {
        afmt_cli_errno_error(err, errno);
        return -1;
    }
    if (afmt_cli_http_range(&f->http, from, n, f->map + from, err) != 0)
        return -1;
    return mprotect(f->map + lo, (size_t)(hi - lo), PROT_READ);
}

/* Reserve the file's size of address space and put the first range in. */
static int map_first(afmt_cli_remote_file *f, const uint8_t *first, uint64_t got,
                     afmt_error *err)
{
    size_t ps = page_size();

    if (f->http.size > (uint64_t)SIZE_MAX - ps)
        return afmt_cli_fail(err, AFMT_E_LIMIT, NULL, AFMT_NO_OFFSET,
                             "a remote file of %" PRIu64 " bytes is too large to map",
                             f->http.size);
    f->map_len = (size_t)((f->http.size + ps - 1) / ps * ps);
    f->map_len = f->map_len ? f->map_len : ps;
    f->map = mmap(NULL, f->map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (f->map == MAP_FAILED) {
        f->map = NULL;
        afmt_cli_errno_error(err, errno);
        return -1;
    }
    f->data = f->map;
    if (got && mprotect(f->map, (size_t)((got + ps - 1) / ps * ps), PROT_READ | PROT_WRITE) == 0) {
        memcpy(f->map, first, (size_t)got);
        mprotect(f->map, (size_t)((got + ps - 1) / ps * ps), PROT_READ);
        f->first_len = got;
        f->last_end = got;
    }
    f->whole = got == f->http.size;
    return 0;
}

int afmt_cli_remote_file_open(afmt_cli_remote_file *f, const char *url, afmt_error *err)
{
    uint8_t *first;
    int rc;

    memset(f, 0, sizeof *f);
    f->next_range = FIRST_RANGE;
    if (afmt_cli_http_open(&f->http, url, err) != 0)
        return -1;
    first = malloc((size_t)FIRST_RANGE);
    if (!first)
        return afmt_cli_fail(err, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET, "out of memory");
    rc = afmt_cli_http_range(&f->http, 0, FIRST_RANGE, first, err);
    if (rc == 0)
        rc = map_first(f, first, f->http.got, err);
    free(first);
    return rc;
}

/* After a guarded run faulted at address at: fetch the range there (the
 * policy of remote_file.h), unless past the file or the budget.  0, or -1
 * with err. */
static int fetch_after_fault(afmt_cli_remote_file *f, uintptr_t at, uint64_t start,
                             afmt_error *err)
{
    uint64_t off = (uint64_t)(at - (uintptr_t)f->map) / page_size() * page_size(), n;

    if (off >= f->http.size || f->http.fetched - start >= AFMT_CLI_REMOTE_MAX_FETCHED)
        return afmt_cli_fail(err, AFMT_E_LIMIT, NULL, off,
                             "the checks need more than %" PRIu64 " bytes of the file's "
                             "ranges", AFMT_CLI_REMOTE_MAX_FETCHED);
    /* a read that goes on where the last range ended is a large header:
     * fewer, larger ranges; one elsewhere (an archive's next member's
     * header) starts small again */
    if (off != f->last_end)
        f->next_range = ELSEWHERE_RANGE;
    else if (f->next_range < MAX_RANGE)
        f->next_range *= 2;
    n = f->http.size - off < f->next_range ? f->http.size - off : f->next_range;
    if (fetch_into_map(f, off, n, err) != 0)
        return -1;
    f->last_end = off + n;
    return 0;
}

/* One guarded run of probe(ctx) in a child process, its output thrown
 * away: 0 when it ran to its end, 1 when it faulted at *at, -1 when no
 * child could say (fork failed, the child died). */
static int probe_in_child(afmt_cli_remote_file *f, void (*probe)(void *ctx), void *ctx,
                          uintptr_t *at)
{
    unsigned char msg[1 + sizeof *at];
    int fds[2], status, null_fd;
    ssize_t got = 0, k;
    pid_t pid;

    if (pipe(fds) != 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        uintptr_t where = 0;
        close(fds[0]);
        null_fd = open("/dev/null", O_WRONLY);
        if (null_fd >= 0) {
            dup2(null_fd, 1);
            dup2(null_fd, 2);
        }
        msg[0] = (unsigned char)afmt_cli_fault_guard(f->map, f->map + f->map_len, probe, ctx, &where);
        memcpy(msg + 1, &where, sizeof where);
        /* _exit: nothing of the parent's (buffers, atexit) runs twice */
        _exit(write(fds[1], msg, sizeof msg) == (ssize_t)sizeof msg ? 0 : 1);
    }
    close(fds[1]);
    while (pid > 0 && got < (ssize_t)sizeof msg &&
           ((k = read(fds[0], msg + got, sizeof msg - (size_t)got)) > 0 || (k < 0 && errno == EINTR)))
        got += k > 0 ? k : 0;
    close(fds[0]);
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0 || got != (ssize_t)sizeof msg)
        return -1;
    memcpy(at, msg + 1, sizeof *at);
    return msg[0] ? 1 : 0;
}

int afmt_cli_remote_file_run(afmt_cli_remote_file *f, void (*fn)(void *ctx),
                             void (*probe)(void *ctx), void *ctx, afmt_error *err)
{
    uint64_t start = f->http.fetched;
    uintptr_t at;
    int rc;

    /* Learn what the checks read in children first: a run abandoned at a
     * fault leaves what it allocated (an archive's member table, a
     * header's parse) behind, so abandoned runs happen where their memory
     * goes with them; fn itself then runs over fetched bytes, once. */
    while (probe && (rc = probe_in_child(f, probe, ctx, &at)) == 1)
        if (fetch_after_fault(f, at, start, err) != 0)
            return -1;
    for (;;) {
        if (afmt_cli_fault_guard(f->map, f->map + f->map_len, fn, ctx, &at) == 0)
            return 0;
        if (fetch_after_fault(f, at, start, err) != 0)
            return -1;
    }
}

int afmt_cli_remote_file_fetch_all(afmt_cli_remote_file *f, afmt_error *err)
{
    uint64_t pos = f->first_len / page_size() * page_size();

    /* from the first page not wholly fetched: a range fetched on a fault
     * since may be fetched again, which costs bytes, never correctness */
    while (!f->whole && pos < f->http.size) {
        uint64_t n = f->http.size - pos < MAX_RANGE ? f->http.size - pos : MAX_RANGE;
        if (fetch_into_map(f, pos, n, err) != 0)
            return -1;
        pos += n;
    }
    f->whole = 1;
    return 0;
}

void afmt_cli_remote_file_close(afmt_cli_remote_file *f)
{
    if (f->map)
        munmap(f->map, f->map_len);
    f->map = NULL;
    f->data = NULL;
    afmt_cli_http_close(&f->http);
}

const char *afmt_cli_url_path(const char *url, char *buf, size_t size)
{
    size_t n = strcspn(url, "?#");

    if (size == 0)
        return "";
    if (n >= size)
        n = size - 1;
    memcpy(buf, url, n);
    buf[n] = '\0';
    return buf;
}
