/* afmt CLI: a remote file as a buffer that fills in as it is read (see
 * remote_file.h). */
#include "remote_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

int afmt_cli_remote_file_run(afmt_cli_remote_file *f, void (*fn)(void *ctx), void *ctx,
                             afmt_error *err)
{
    uint64_t start = f->http.fetched, off, n;
    uintptr_t at;

    for (;;) {
        if (afmt_cli_fault_guard(f->map, f->map + f->map_len, fn, ctx, &at) == 0)
            return 0;
        off = (uint64_t)(at - (uintptr_t)f->map) / page_size() * page_size();
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
