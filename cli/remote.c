/* afmt CLI: checking a remote file by the ranges its checks read (see
 * remote.h). */
#include "remote.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collect.h"
#include "fail.h"
#include "fault_guard.h"
#include "load.h"
#include "render.h"
#include "report.h"

#define FIRST_RANGE ((uint64_t)64 << 10)
#define MAX_RANGE ((uint64_t)16 << 20)
/* ranges fetched for one structure check at most (a header larger than
 * this is beyond any limit a validator allows by default) */
#define MAX_FETCHED ((uint64_t)256 << 20)
#define STREAM_RANGE ((size_t)4 << 20)

typedef struct remote {
    afmt_cli_worker *w;
    const char *url;
    const afmt_format *fmt;
    afmt_cli_http http;
    uint8_t *map;        /* the file's size of reserved address space */
    size_t map_len;
    uint64_t next_range; /* size of the next range fetched on a fault */
    /* one structure check */
    afmt_options opt;
    afmt_visitor vis;
    afmt_error err;
    int valid;
    int has_bool;
    uint64_t pos;        /* the stream pass: next offset to fetch */
} remote;

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/* Make [from, from + n) readable with the file's bytes. */
static int fetch_into_map(remote *r, uint64_t from, uint64_t n, afmt_error *err)
{
    size_t ps = page_size();
    uint64_t lo = from / ps * ps, hi = (from + n + ps - 1) / ps * ps;

    if (hi > r->map_len)
        hi = r->map_len;
    if (mprotect(r->map + lo, (size_t)(hi - lo), PROT_READ | PROT_WRITE) != 0) {
        afmt_cli_errno_error(err, errno);
        return -1;
    }
    if (afmt_cli_http_range(&r->http, from, n, r->map + from, err) != 0)
        return -1;
    return mprotect(r->map + lo, (size_t)(hi - lo), PROT_READ);
}

static void run_validator(void *ctx)
{
    remote *r = ctx;
    afmt_error_clear(&r->err);
    r->valid = r->fmt->validate(r->map, r->http.size, &r->opt, &r->vis, &r->err) == 0;
}

/* Validate the structure, fetching what it reads.  0 with r->valid and
 * r->err, or -1 with err (fetching failed). */
static int check_structure(remote *r, afmt_error *err)
{
    uintptr_t at;
    uint64_t off;

    for (;;) {
        afmt_cli_collect_begin(r->w);
        if (afmt_cli_fault_guard(r->map, r->map + r->map_len, run_validator, r, &at) == 0)
            return 0;
        off = (uint64_t)(at - (uintptr_t)r->map) / page_size() * page_size();
        if (off >= r->http.size || r->http.fetched >= MAX_FETCHED)
            return afmt_cli_fail(err, AFMT_E_LIMIT, NULL, off,
                                 "the checks need more than %" PRIu64 " bytes of the file's "
                                 "ranges", MAX_FETCHED);
        if (fetch_into_map(r, off, r->http.size - off < r->next_range ? r->http.size - off
                                                                       : r->next_range, err) != 0)
            return -1;
        if (r->next_range < MAX_RANGE)
            r->next_range *= 2; /* a large header: fewer, larger ranges */
    }
}

static int note_bool(void *ctx, const afmt_array *a)
{
    remote *r = ctx;
    if (a->dtype == AFMT_BOOL)
        r->has_bool = 1;
    return 0;
}

/* Do payload values need checking (an array of bools), now that the
 * structure is known valid?  All it reads is fetched already. */
static int needs_payload(remote *r)
{
    afmt_visitor v;
    afmt_options o = r->opt;
    afmt_error e;
    uintptr_t at;

    if (!r->w->cfg->opt.check_values)
        return 0;
    afmt_cli_visitor_init(&v, r);
    v.on_array = note_bool;
    r->vis = v;
    o.fields = NULL;
    r->opt = o;
    afmt_error_clear(&e);
    (void)afmt_cli_fault_guard(r->map, r->map + r->map_len, run_validator, r, &at);
    return r->has_bool;
}

/* The stream pass: the body by consecutive ranges. */
static int stream_more(void *ctx, uint8_t *buf, size_t n, size_t *got)
{
    remote *r = ctx;
    afmt_error err;

    *got = 0;
    if (r->pos >= r->http.size)
        return 0;
    if (n > STREAM_RANGE)
        n = STREAM_RANGE;
    if ((uint64_t)n > r->http.size - r->pos)
        n = (size_t)(r->http.size - r->pos);
    afmt_error_clear(&err);
    if (afmt_cli_http_range(&r->http, r->pos, n, buf, &err) != 0) {
        /* the stream reports an I/O error; this says which */
        afmt_cli_out_stderr(&r->w->out, "%s: error: %s\n", r->url, err.message);
        return -1;
    }
    r->pos += n;
    *got = n;
    return 0;
}

static void stream_pass(remote *r, const char *ext_name)
{
    afmt_cli_input in;

    memset(&in, 0, sizeof in);
    in.fd = -1;
    in.is_stream = 1;
    in.limit = r->w->cfg->file_limit;
    in.len = r->http.size < sizeof in.head ? r->http.size : sizeof in.head;
    memcpy(in.head, r->map, (size_t)in.len);
    in.data = in.head;
    in.size = in.len;
    r->pos = in.len;
    in.read_more = stream_more;
    in.read_ctx = r;
    afmt_cli_check_input(r->w, r->url, ext_name, &in);
}

/* The URL's path, for the format's extension: no query, no fragment. */
static const char *url_path(afmt_cli_worker *w, const char *url)
{
    size_t n = strcspn(url, "?#");
    afmt_cli_buf_reset(&w->name, (size_t)1 << 16);
    afmt_cli_buf_put(&w->name, url, n);
    afmt_cli_buf_putc(&w->name, '\0');
    return w->name.p;
}

/* Fetch the first range, find the format, reserve the file's address
 * space and put the range in it.  0, 1 when reported already, -1 with
 * err. */
static int start(remote *r, const char *ext_name, afmt_error *err)
{
    size_t ps = page_size();
    uint8_t *first = malloc((size_t)FIRST_RANGE);
    uint64_t got;
    int rc = -1;

    if (!first)
        return afmt_cli_fail(err, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET, "out of memory");
    if (afmt_cli_http_range(&r->http, 0, FIRST_RANGE, first, err) != 0)
        goto done;
    got = r->http.got;
    r->fmt = r->w->cfg->forced ? r->w->cfg->forced : afmt_format_detect(first, got, ext_name);
    if (!r->fmt) {
        afmt_cli_fail(err, AFMT_E_DETECT, NULL, AFMT_NO_OFFSET,
                      "no known format matches (magic or extension)");
        afmt_cli_report_invalid(r->w, r->url, NULL, err);
        rc = 1;
        goto done;
    }
    if (r->http.size > (uint64_t)SIZE_MAX - ps) {
        afmt_cli_fail(err, AFMT_E_LIMIT, NULL, 0, "file too large to map");
        goto done;
    }
    r->map_len = (size_t)((r->http.size + ps - 1) / ps * ps);
    r->map_len = r->map_len ? r->map_len : ps;
    r->map = mmap(NULL, r->map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r->map == MAP_FAILED) {
        r->map = NULL;
        afmt_cli_errno_error(err, errno);
        goto done;
    }
    if (got && mprotect(r->map, (size_t)((got + ps - 1) / ps * ps), PROT_READ | PROT_WRITE) == 0) {
        memcpy(r->map, first, (size_t)got);
        mprotect(r->map, (size_t)((got + ps - 1) / ps * ps), PROT_READ);
    }
    r->next_range = FIRST_RANGE;
    rc = 0;
done:
    free(first);
    return rc;
}

void afmt_cli_check_remote(afmt_cli_worker *w, const char *url)
{
    remote r;
    afmt_field_visitor fields;
    afmt_error err;
    const char *ext_name = url_path(w, url);
    int rc;

    memset(&r, 0, sizeof r);
    r.w = w;
    r.url = url;
    afmt_error_clear(&err);
    rc = afmt_cli_http_open(&r.http, url, &err);
    if (rc == 0)
        rc = start(&r, ext_name, &err);
    if (rc == 0) {
        r.opt = w->cfg->opt;
        r.opt.check_values = 0; /* the structure first: payloads unread */
        afmt_cli_collect_visitor(w, &r.vis);
        if (w->cfg->sarif) {
            afmt_cli_span_visitor(&w->spans, &fields);
            r.opt.fields = &fields;
        }
        rc = check_structure(&r, &err);
    }
    if (rc < 0)
        afmt_cli_report_error(w, url, &err);
    else if (rc == 0 && r.valid && needs_payload(&r))
        stream_pass(&r, ext_name);
    else if (rc == 0)
        afmt_cli_emit(w, url, r.fmt, r.valid, &r.err);
    if (r.map)
        munmap(r.map, r.map_len);
    afmt_cli_http_close(&r.http);
}
