/* afmt CLI: checking a remote file by the ranges its checks read (see
 * remote.h). */
#include "remote.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "fail.h"
#include "load.h"
#include "members.h"
#include "remote_file.h"
#include "render.h"
#include "report.h"

#define STREAM_RANGE ((size_t)4 << 20)

typedef struct remote {
    afmt_cli_worker *w;
    const char *url;
    const afmt_format *fmt;
    afmt_cli_remote_file file; /* the file as a buffer filled as read */
    /* one structure check */
    afmt_options opt;
    afmt_visitor vis;
    afmt_error err;
    int valid;
    int has_bool;
    uint64_t members;    /* archive members the last probe was told of */
    uint64_t pos;        /* the stream pass: next offset to fetch */
} remote;

/* One run of the validator over the mapping, from scratch (remote_file.h:
 * it runs again after each range fetched). */
static void run_validator(void *ctx)
{
    remote *r = ctx;
    afmt_error_clear(&r->err);
    r->valid = r->fmt->validate(r->file.data, r->file.http.size, &r->opt, &r->vis, &r->err) == 0;
}

static void run_collecting(void *ctx)
{
    remote *r = ctx;
    afmt_cli_collect_begin(r->w); /* forget an abandoned run's arrays */
    run_validator(r);
}

/* The same validation with no visitor, in a probe child (remote_file.h:
 * it reads what run_validator reads, and prints or locks nothing). */
static void probe_validator(void *ctx)
{
    remote *r = ctx;
    afmt_options o = r->opt;
    afmt_error e;
    o.fields = NULL;
    (void)r->fmt->validate(r->file.data, r->file.http.size, &o, NULL, &e);
}

/* Validate the structure, fetching what it reads.  0 with r->valid and
 * r->err, or -1 with err (fetching failed). */
static int check_structure(remote *r, afmt_error *err)
{
    return afmt_cli_remote_file_run(&r->file, run_collecting, probe_validator, r, err);
}

static int note_bool(void *ctx, const afmt_array *a)
{
    remote *r = ctx;
    if (a->dtype == AFMT_BOOL)
        r->has_bool = 1;
    return 0;
}

static int note_member(void *ctx, const afmt_member *m)
{
    remote *r = ctx;
    r->members += !m->done;
    return 0;
}

static void run_probe(void *ctx)
{
    remote *r = ctx;
    r->has_bool = 0;
    r->members = 0;
    run_validator(r);
}

/* What the valid structure holds: arrays of bools (whose values are
 * payload, still to check), archive members (each to get its line).  All
 * it reads is fetched already. */
static void probe(remote *r)
{
    afmt_visitor v;
    afmt_options o = r->opt;
    afmt_error e;

    afmt_cli_visitor_init(&v, r);
    v.on_array = note_bool;
    v.on_member = note_member;
    r->vis = v;
    o.fields = NULL;
    r->opt = o;
    afmt_error_clear(&e);
    (void)afmt_cli_remote_file_run(&r->file, run_probe, probe_validator, r, &e);
}

/* An archive's verdicts, one line per member (members.h): one more run
 * over what the checks fetched, reporting as it goes (the runs before
 * fetched, so this one reads nothing new and is not run twice).  With
 * values (an archive of bools): a run that fetches what they need first.
 * 0, or -1 with err. */
static int report_members(remote *r, int values, afmt_field_visitor *fields, afmt_error *err)
{
    afmt_cli_worker *w = r->w;

    r->opt = w->cfg->opt;
    r->opt.check_values = values;
    r->opt.fields = w->cfg->sarif ? fields : NULL;
    if (values && afmt_cli_remote_file_run(&r->file, run_collecting, probe_validator, r, err) != 0)
        return -1;
    afmt_cli_collect_visitor(w, &r->vis);
    afmt_cli_members_begin(w, r->url);
    if (afmt_cli_remote_file_run(&r->file, run_collecting, probe_validator, r, err) != 0) {
        afmt_cli_members_begin(w, NULL);
        return -1;
    }
    if (!afmt_cli_members_finish(w, r->url, r->fmt, r->valid, &r->err))
        afmt_cli_emit(w, r->url, r->fmt, r->valid, &r->err);
    return 0;
}

/* The stream pass: the body by consecutive ranges. */
static int stream_more(void *ctx, uint8_t *buf, size_t n, size_t *got)
{
    remote *r = ctx;
    afmt_error err;

    *got = 0;
    if (r->pos >= r->file.http.size)
        return 0;
    if (n > STREAM_RANGE)
        n = STREAM_RANGE;
    if ((uint64_t)n > r->file.http.size - r->pos)
        n = (size_t)(r->file.http.size - r->pos);
    afmt_error_clear(&err);
    if (afmt_cli_http_range(&r->file.http, r->pos, n, buf, &err) != 0) {
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
    in.len = r->file.http.size < sizeof in.head ? r->file.http.size : sizeof in.head;
    memcpy(in.head, r->file.data, (size_t)in.len);
    in.data = in.head;
    in.size = in.len;
    r->pos = in.len;
    in.read_more = stream_more;
    in.read_ctx = r;
    afmt_cli_check_input(r->w, r->url, ext_name, &in);
}

/* Connect and fetch the first range, and find the format.  0, 1 when
 * reported already, -1 with err. */
static int start(remote *r, const char *ext_name, afmt_error *err)
{
    if (afmt_cli_remote_file_open(&r->file, r->url, err) != 0)
        return -1;
    r->fmt = r->w->cfg->forced ? r->w->cfg->forced
                               : afmt_format_detect(r->file.data, r->file.first_len, ext_name);
    if (r->fmt)
        return 0;
    afmt_cli_fail(err, AFMT_E_DETECT, NULL, AFMT_NO_OFFSET,
                  "no known format matches (magic or extension)");
    afmt_cli_report_invalid(r->w, r->url, NULL, err);
    return 1;
}

void afmt_cli_check_remote(afmt_cli_worker *w, const char *url)
{
    remote r;
    afmt_field_visitor fields;
    afmt_error err;
    char path[4096];
    const char *ext_name = afmt_cli_url_path(url, path, sizeof path);
    int rc;

    memset(&r, 0, sizeof r);
    r.w = w;
    r.url = url;
    afmt_error_clear(&err);
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
    if (rc == 0)
        probe(&r);
    if (rc == 0 && r.members) {
        /* an archive (.npz): its central directory and each member's
         * header fetched, not the members' data (but a deflated one's,
         * to inflate it, and all of it when bools must be checked) */
        if (report_members(&r, r.has_bool && w->cfg->opt.check_values, &fields, &err) != 0)
            afmt_cli_report_error(w, url, &err);
    } else if (rc < 0) {
        afmt_cli_report_error(w, url, &err);
    } else if (rc == 0 && r.valid && r.has_bool && w->cfg->opt.check_values) {
        stream_pass(&r, ext_name);
    } else if (rc == 0) {
        afmt_cli_emit(w, url, r.fmt, r.valid, &r.err);
    }
    afmt_cli_remote_file_close(&r.file);
}
