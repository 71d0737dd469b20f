/* afmt CLI: detecting an input's format and validating it (see report.h). */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "closest.h"
#include "collect.h"
#include "fail.h"
#include "identify.h"
#include "load.h"
#include "members.h"
#include "render.h"
#include "sidecar.h"
#include "spec.h"
#include "window_file.h"

static const char no_format_message[] =
    "no known format matches (magic or extension)";

/* Met in a directory walk: only files that claim to be arrays are
 * checked.  1 when this one is skipped. */
static int skipped_in_walk(afmt_cli_worker *w, const char *display,
                           const char *ext_name, const uint8_t *buf, uint64_t len)
{
    const afmt_format *fmt = w->cfg->forced;

    if (fmt ? afmt_cli_looks_like(w->cfg->interp, fmt, buf, len, ext_name)
            : afmt_format_detect(buf, len, ext_name) != NULL)
        return 0;
    /* a pickle is never passed over in silence: it is reported as what it is */
    if (!fmt && afmt_cli_kind_reported_in_walk(afmt_cli_identify(buf, len)))
        return 0;
    w->skipped++;
    if (w->cfg->verbose && !w->cfg->json)
        afmt_cli_out_stderr(&w->out, "%s: skipped: %s\n",
                            afmt_cli_quote_name(display, w->quoted, sizeof w->quoted),
                            fmt ? "does not look like this format" : no_format_message);
    return 1;
}

/* SARIF gives the offending field's byte length: the widths of the last
 * fields read, recorded by validating buf again with a field visitor and
 * nothing else.  Only for a file with something to report: a validator
 * asked for fields reads some headers more slowly (a safetensors header by
 * its exact steps). */
static void record_spans(afmt_cli_worker *w, const afmt_format *fmt, const uint8_t *buf,
                         uint64_t len)
{
    afmt_options opt = w->cfg->opt;
    afmt_field_visitor fields;
    afmt_visitor none;
    afmt_error again;

    afmt_cli_visitor_init(&none, w);
    afmt_cli_span_visitor(&w->spans, &fields);
    opt.fields = &fields;
    afmt_error_clear(&again);
    (void)afmt_cli_validate(w->cfg->interp, fmt, buf, len, &opt, &none, &again);
}

/* A windowed file whose window fell short (a header or archive larger
 * than it), validated again from a map of it, as if it had been mapped
 * from the start: what was collected is forgotten first.  1 when valid;
 * when the file cannot be mapped either, err keeps the window's reason. */
static int validate_mapped(afmt_cli_worker *w, const afmt_format *fmt, afmt_cli_input *in,
                           afmt_error *err)
{
    afmt_visitor vis;
    afmt_error map_err;
    int valid;

    afmt_error_clear(&map_err);
    /* the window's pages, full by now, are given back before the map's
     * are read: the peak is the larger of the two, not their sum */
    free(w->window);
    w->window = NULL;
    if (afmt_cli_input_map(in, &map_err) != 0)
        return 0;
    afmt_cli_collect_begin(w);
    afmt_cli_collect_visitor(w, &vis);
    afmt_cli_sidecar_begin(w, fmt, w->disk_path);
    afmt_error_clear(err);
    valid = afmt_cli_validate(w->cfg->interp, fmt, in->data, in->len, &w->cfg->opt, &vis, err) == 0;
    if (w->cfg->sarif && (!valid || w->nwarn))
        record_spans(w, fmt, in->data, in->len);
    return valid;
}

/* Validate with the collecting visitor; 1 when valid. */
static int validate(afmt_cli_worker *w, const afmt_format *fmt,
                    const uint8_t *buf, uint64_t len, afmt_cli_input *stream,
                    afmt_error *err)
{
    afmt_visitor vis;
    afmt_options opt = w->cfg->opt;
    afmt_field_visitor fields;
    int lazy = stream && afmt_cli_input_is_lazy(stream);
    int windowed = lazy && stream->windowed_file;
    int valid;

    afmt_cli_collect_visitor(w, &vis);
    if (w->cfg->sarif && (lazy || w->members_of)) {
        /* a stream is read once: its widths recorded as it goes; so are
         * an archive's, whose members get their results as they end
         * (members.c), before a second pass could record them */
        afmt_cli_span_visitor(&w->spans, &fields);
        opt.fields = &fields;
    }
    /* a sidecar lies beside a file on disk: probed for those only, once */
    afmt_cli_sidecar_begin(w, fmt, lazy && !windowed ? NULL : w->disk_path);
    if (lazy) {
        /* a pipe: through a fixed window, whatever its length */
        if (!w->window)
            w->window = malloc((size_t)AFMT_CLI_STREAM_WINDOW);
        if (!w->window) {
            afmt_cli_fail(err, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET,
                          "no memory for the stream window");
            valid = 0;
        } else {
            valid = afmt_cli_stream_validate(w->cfg->interp, fmt, stream, w->window,
                                             opt.limits.max_total_bytes,
                                             &opt, &vis, err) == 0;
            if (!valid && windowed && stream->window_short)
                valid = validate_mapped(w, fmt, stream, err);
        }
    } else {
        valid = afmt_cli_validate(w->cfg->interp, fmt, buf, len, &opt, &vis, err) == 0;
        if (w->cfg->sarif && (!valid || w->nwarn))
            record_spans(w, fmt, buf, len);
    }
    if (afmt_cli_sidecar_end(w, fmt, valid, err) != 0)
        valid = 0;
    return valid;
}

/* A mapped file that changed size meanwhile gets no verdict: the verdict
 * is about the bytes that were there.  1 when it was reported so. */
static int changed_meanwhile(afmt_cli_worker *w, const char *display)
{
    struct stat st;
    afmt_error io;

    if (!w->mapped_path || stat(w->mapped_path, &st) != 0 ||
        (uint64_t)st.st_size == w->mapped_size)
        return 0;
    afmt_error_clear(&io);
    /* a file cut short: its first byte gone is where it now ends */
    afmt_cli_fail(&io, AFMT_E_IO, NULL,
                  (uint64_t)st.st_size < w->mapped_size ? (uint64_t)st.st_size : AFMT_NO_OFFSET,
                  "the file changed size while it was read (%" PRIu64 " bytes, now %" PRIu64 "): try again",
                  w->mapped_size, (uint64_t)st.st_size);
    afmt_cli_report_error(w, display, &io);
    return 1;
}

/* An undetected stream: its bytes up to the window's size, so that it gets
 * the verdict a file of these bytes gets (the same from a pipe as from a
 * path).  *buf and *len become the bytes read; returns 1 when that is the
 * whole stream, 0 when it is longer (or cannot be read further). */
static int read_undetected(afmt_cli_worker *w, afmt_cli_input *stream, const uint8_t **buf,
                           uint64_t *len)
{
    size_t have = (size_t)*len, got = 0;

    if (have < AFMT_CLI_HEAD_BYTES)
        return 1; /* the head read met the end */
    if (!w->window)
        w->window = malloc((size_t)AFMT_CLI_STREAM_WINDOW);
    if (!w->window)
        return 0;
    memmove(w->window, *buf, have);
    if (stream->fd >= 0) {
        if (afmt_cli_read_full(stream->fd, w->window + have,
                               (size_t)AFMT_CLI_STREAM_WINDOW - have, -1, &got) != 0)
            return 0;
    } else if (stream->read_more) {
        size_t n;
        do {
            n = 0;
            if (stream->read_more(stream->read_ctx, w->window + have + got,
                                  (size_t)AFMT_CLI_STREAM_WINDOW - have - got, &n) != 0)
                return 0;
            got += n;
        } while (n > 0 && have + got < (size_t)AFMT_CLI_STREAM_WINDOW);
    }
    *buf = w->window;
    *len = have + got;
    return have + got < (size_t)AFMT_CLI_STREAM_WINDOW;
}

static void check(afmt_cli_worker *w, const char *display, const char *ext_name,
                  const uint8_t *buf, uint64_t len, const afmt_error *pre,
                  afmt_cli_input *stream)
{
    const afmt_format *fmt;
    afmt_error err;
    int valid = 0;

    afmt_cli_collect_begin(w);
    afmt_error_clear(&err);
    if (w->skip_unknown && skipped_in_walk(w, display, ext_name, buf, len))
        return;
    if (!w->cfg->forced && len == 0 && !pre) {
        /* nothing to detect, from a path or a pipe alike */
        afmt_cli_empty_error(&w->cfg->opt, "--format", &err);
        afmt_cli_emit(w, display, NULL, 0, &err);
        return;
    }
    afmt_cli_members_begin(w, display);
    fmt = w->cfg->forced ? w->cfg->forced : afmt_format_detect(buf, len, ext_name);
    if (!fmt) {
        /* the whole input is here unless it is a stream or over its limit */
        int partial = pre != NULL;
        if (!partial && stream && afmt_cli_input_is_lazy(stream))
            partial = !read_undetected(w, stream, &buf, &len);
        fmt = afmt_cli_detect_text(buf, len, partial, &w->cfg->opt);
        if (fmt)
            valid = validate(w, fmt, buf, len, NULL, &err);
        else
            fmt = afmt_cli_undetected(buf, len, partial, &w->cfg->opt, "--format", &err,
                                      &w->closest);
    } else if (pre) {
        err = *pre;
        afmt_cli_error_set_format(&err, fmt->name);
    } else if (!w->cfg->forced && !fmt->detect(buf, len) && afmt_cli_identify(buf, len) != AFMT_CLI_KIND_NONE) {
        /* chosen by its extension only, and the bytes are something else */
        afmt_cli_fail(&err, AFMT_E_DETECT, NULL, 0, "named like %s, but it is %s", fmt->name,
                      afmt_cli_kind_text(afmt_cli_identify(buf, len)));
        fmt = NULL;
    } else {
        valid = validate(w, fmt, buf, len, stream, &err);
    }
    if (changed_meanwhile(w, display)) {
        afmt_cli_members_begin(w, NULL);
        return;
    }
    if (!afmt_cli_members_finish(w, display, fmt, valid, &err))
        afmt_cli_emit(w, display, fmt, valid, &err);
}

void afmt_cli_check_bytes(afmt_cli_worker *w, const char *display,
                          const char *ext_name, const uint8_t *buf, uint64_t len)
{
    check(w, display, ext_name, buf, len, NULL, NULL);
}

void afmt_cli_check_cut(afmt_cli_worker *w, const char *display, const char *ext_name,
                        const uint8_t *buf, uint64_t len, uint64_t size, const char *why)
{
    const afmt_format *fmt = NULL;
    afmt_error err;

    afmt_cli_collect_begin(w);
    afmt_error_clear(&err);
    /* Only bytes name the format here: an extension alone would claim a
     * format nothing was seen of. */
    if (len > 0)
        fmt = w->cfg->forced ? w->cfg->forced : afmt_format_detect(buf, len, ext_name);
    if (size == UINT64_MAX)
        afmt_cli_fail(&err, AFMT_E_TRUNCATED, NULL, len,
                      "cut short: the archive ends inside this member, after %" PRIu64
                      " bytes (%s)", len, why);
    else
        afmt_cli_fail(&err, AFMT_E_TRUNCATED, NULL, len,
                      "cut short: the archive ends inside this member of %" PRIu64
                      " bytes (%s)", size, why);
    if (fmt)
        afmt_cli_error_set_format(&err, fmt->name);
    afmt_cli_emit(w, display, fmt, 0, &err);
}

void afmt_cli_check_input(afmt_cli_worker *w, const char *display,
                          const char *ext_name, const afmt_cli_input *in)
{
    afmt_error limit;

    if (in->over_limit) {
        afmt_error_clear(&limit);
        afmt_cli_limit_error(&limit, in->size, in->limit, in->is_stream);
        check(w, display, ext_name, in->data, in->len, &limit, NULL);
        return;
    }
    check(w, display, ext_name, in->data, in->len, NULL, (afmt_cli_input *)in);
}
