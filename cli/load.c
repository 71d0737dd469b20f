/* afmt CLI: single-input loading for dump and convert (see load.h). */
#include "load.h"
#include "limit_opts.h"
#include "load_url.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "closest.h"
#include "fail.h"
#include "member_pick.h"
#include "quote.h"
#include "remote.h"
#include "remote_file.h"
#include "sigbus.h"
#include "report.h"
#include "sidecar.h"
#include "spec.h"

/* "ARCHIVE:MEMBER": the archive is the file opened, the member picked
 * when it is validated.  0, or -1 out of memory. */
static int split_member(afmt_cli_loaded *l, const char *path, size_t archive_len)
{
    l->file_copy = malloc(archive_len + 1);
    if (!l->file_copy)
        return -1;
    memcpy(l->file_copy, path, archive_len);
    l->file_copy[archive_len] = '\0';
    l->file = l->file_copy;
    l->member = path + archive_len + 1;
    return 0;
}

/* l's mapping, as the SIGBUS guard and watch describe it (sigbus.h). */
static afmt_cli_mapped loaded_mapping(const afmt_cli_loaded *l)
{
    afmt_cli_mapped file = { l->file, l->in.map, l->in.map_len, l->in.map_dev, l->in.map_ino };
    return file;
}

/* afmt_cli_load_quiet, bounded: pipes read only as far as their head.
 * A mapped input is watched for SIGBUS from here on (sigbus.h), before
 * detection reads it, its messages beginning "PROG: " (prog may be NULL). */
static int load_quiet(afmt_cli_loaded *l, const char *prog, const char *path, const afmt_format *forced,
                      const char *format_option, int bounded, afmt_cli_load_failure *why)
{
    size_t archive_len;
    afmt_options defaults;
    int is_stdin = strcmp(path, "-") == 0, partial;
    uint64_t seen = UINT64_MAX; /* bytes readable for detection: a URL's fetched ones */
    char url_path[4096];

    memset(l, 0, sizeof *l);
    memset(why, 0, sizeof *why);
    l->path = l->file = path;
    afmt_cli_buf_init(&l->stream);
    afmt_options_default(&defaults);
    afmt_error_clear(&why->err);
    if (!is_stdin && afmt_cli_is_url(path)) {
        if (afmt_cli_load_url(l, path, bounded, &seen, &why->err) != 0) {
            afmt_cli_loaded_close(l);
            return why->err.code == AFMT_E_NOMEM || why->err.code == AFMT_E_IO ? AFMT_EXIT_ERROR
                                                                                : AFMT_EXIT_INVALID;
        }
    } else if (!is_stdin && afmt_cli_pick_split(path, &archive_len) && split_member(l, path, archive_len) != 0) {
        afmt_cli_fail(&why->err, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET, "out of memory");
        return AFMT_EXIT_ERROR;
    } else if (bounded ? afmt_cli_input_open_lazy(&l->in, l->file, defaults.limits.max_total_bytes,
                                                  &l->stream, &why->err) != 0
                       : afmt_cli_input_open(&l->in, l->file, defaults.limits.max_total_bytes,
                                             AFMT_CLI_STREAM_DEFAULT_LIMIT, &l->stream, &why->err) != 0) {
        afmt_cli_buf_free(&l->stream);
        free(l->file_copy);
        l->file_copy = NULL;
        return AFMT_EXIT_ERROR;
    }
    if (l->in.map) {
        /* dump and convert read the mapping inside stdio and write():
         * a file cut short meanwhile ends them with a message */
        afmt_cli_mapped file = loaded_mapping(l);
        afmt_cli_sigbus_watch(prog, &file);
    }
    if (!forced && l->in.len == 0 && !l->in.over_limit) {
        afmt_cli_empty_error(&defaults, format_option, &why->err);
        afmt_cli_loaded_close(l);
        return AFMT_EXIT_INVALID;
    }
    seen = seen < l->in.len ? seen : l->in.len;
    partial = l->in.over_limit || seen < l->in.len;
    l->fmt = forced ? forced
                    : afmt_format_detect(l->in.data, seen, is_stdin ? NULL
                                         : l->remote ? afmt_cli_url_path(path, url_path, sizeof url_path)
                                                     : l->file);
    if (!l->fmt)
        l->fmt = afmt_cli_detect_text(l->in.data, seen, partial, &defaults);
    if (!l->fmt) {
        why->fmt = afmt_cli_undetected(l->in.data, seen, partial, &defaults,
                                       format_option, &why->err, &why->closest);
        afmt_cli_loaded_close(l);
        return AFMT_EXIT_INVALID;
    }
    if (l->in.over_limit && l->remote) {
        afmt_cli_load_url_limit_error(l, &why->err);
        why->fmt = l->fmt;
        afmt_cli_loaded_close(l);
        return AFMT_EXIT_INVALID;
    }
    if (l->in.over_limit) {
        afmt_cli_limit_error(&why->err, l->in.size, l->in.limit, l->in.is_stream);
        why->fmt = l->fmt;
        afmt_cli_loaded_close(l);
        return AFMT_EXIT_INVALID;
    }
    return AFMT_EXIT_OK;
}

int afmt_cli_load_quiet(afmt_cli_loaded *l, const char *path, const afmt_format *forced,
                        const char *format_option, afmt_cli_load_failure *why)
{
    return load_quiet(l, NULL, path, forced, format_option, 0, why);
}

int afmt_cli_load_quiet_bounded(afmt_cli_loaded *l, const char *path, const afmt_format *forced,
                                const char *format_option, afmt_cli_load_failure *why)
{
    return load_quiet(l, NULL, path, forced, format_option, 1, why);
}

const afmt_format *afmt_cli_loaded_format(const afmt_cli_loaded *l)
{
    return l->member_fmt ? l->member_fmt : l->fmt;
}

uint64_t afmt_cli_loaded_size(const afmt_cli_loaded *l)
{
    return l->member_fmt ? l->member_size : l->in.size;
}

static int run_input(afmt_cli_loaded *l, const afmt_options *opt, const afmt_visitor *vis, afmt_error *err);

int afmt_cli_loaded_run(afmt_cli_loaded *l, const afmt_options *opt, const afmt_visitor *vis,
                        afmt_error *err)
{
    afmt_cli_pick pick;
    afmt_options picking;
    int rc;

    if (!l->member)
        return run_input(l, opt, vis, err);
    afmt_cli_pick_init(&pick, l->member, vis, opt, &picking);
    rc = afmt_cli_pick_result(&pick, run_input(l, &picking, &pick.vis, err), err);
    if (pick.found) {
        l->member_fmt = pick.format;
        l->member_size = pick.size;
    }
    return rc;
}

/* One validation of l's input: its bytes, or a pipe through a window. */
static int run_input(afmt_cli_loaded *l, const afmt_options *opt, const afmt_visitor *vis,
                     afmt_error *err)
{
    /* a pipe is held to the limit afmt-validate holds it to (1 GiB, or
     * less as opt says), so an endless one ends */
    uint64_t limit = opt->limits.max_total_bytes < AFMT_CLI_STREAM_DEFAULT_LIMIT ? opt->limits.max_total_bytes
                                                                                 : AFMT_CLI_STREAM_DEFAULT_LIMIT;
    if (l->in.windowed_file)
        limit = opt->limits.max_total_bytes; /* a file, not an endless pipe */
    uint8_t *window;
    int rc;

    if (l->remote)
        return afmt_cli_load_url_run(l, opt, vis, err);
    if (!afmt_cli_input_is_lazy(&l->in))
        return afmt_cli_validate(l->interp, l->fmt, l->in.data, l->in.len, opt, vis, err);
    window = malloc((size_t)AFMT_CLI_STREAM_WINDOW);
    if (!window)
        return afmt_cli_fail(err, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET,
                             "no memory for the stream window");
    rc = afmt_cli_stream_validate(l->interp, l->fmt, &l->in, window, limit, opt, vis, err);
    /* the size said is the whole stream's, as when it was read whole:
     * what the validator left unread is counted, up to the limit (a
     * windowed file's is known) */
    while (!l->in.windowed_file && l->in.fd >= 0 && l->in.size <= limit) {
        size_t got = 0;
        if (afmt_cli_read_full(l->in.fd, window, (size_t)AFMT_CLI_STREAM_WINDOW, -1, &got) != 0 || got == 0)
            break;
        l->in.size += got;
    }
    free(window);
    return rc;
}

/* A mapped input whose file changed size while it was read gets no
 * verdict: the verdict would be about bytes no longer there (or not all
 * of those now there).  1 with err filled when it did. */
static int loaded_changed(const afmt_cli_loaded *l, afmt_error *err)
{
    struct stat st;
    uint64_t now;

    if (!l->in.map || stat(l->file, &st) != 0 || (uint64_t)st.st_dev != l->in.map_dev ||
        (uint64_t)st.st_ino != l->in.map_ino || (uint64_t)st.st_size == l->in.map_len)
        return 0; /* the same, or another file by now: what was mapped is what was read */
    now = (uint64_t)st.st_size;
    afmt_error_clear(err);
    afmt_cli_fail(err, AFMT_E_IO, NULL, now < l->in.map_len ? now : AFMT_NO_OFFSET,
                  "the file changed size while it was read (%" PRIu64 " bytes, now %" PRIu64
                  "): try again", (uint64_t)l->in.map_len, now);
    return 1;
}

typedef struct guarded_run {
    afmt_cli_loaded *l;
    const afmt_options *opt;
    const afmt_visitor *vis;
    afmt_error *err;
    int rc;
} guarded_run;

static void run_loaded(void *ctx)
{
    guarded_run *g = ctx;
    g->rc = afmt_cli_loaded_run(g->l, g->opt, g->vis, g->err);
}

int afmt_cli_loaded_run_guarded(afmt_cli_loaded *l, const afmt_options *opt,
                                const afmt_visitor *vis, afmt_error *err)
{
    guarded_run g = { l, opt, vis, err, -1 };
    afmt_cli_mapped file = loaded_mapping(l);
    uintptr_t at = 0;
    char msg[AFMT_MESSAGE_MAX];
    uint64_t offset;

    if (!l->in.map)
        return afmt_cli_loaded_run(l, opt, vis, err);
    if (afmt_cli_sigbus_guard(run_loaded, &g, &at) == 0)
        return loaded_changed(l, err) ? -2 : g.rc;
    offset = afmt_cli_sigbus_describe(at, &file, msg, sizeof msg);
    afmt_error_clear(err);
    afmt_cli_fail(err, AFMT_E_IO, NULL, offset, "%s", msg);
    return -2;
}

/* "PROG: " before a message about l, when it has a PROG. */
static void print_prog(const char *prog)
{
    if (prog)
        fprintf(stderr, "%s: ", prog);
}

/* afmt_cli_load, bounded (afmt_cli_load_quiet_bounded) or not. */
static int load_and_say(afmt_cli_loaded *l, const char *prog, const char *path,
                        const afmt_format *forced, const char *format_option, int bounded)
{
    afmt_cli_load_failure why;
    char desc[AFMT_FIELD_MAX + AFMT_MESSAGE_MAX + 64];
    char quoted[AFMT_CLI_QUOTED_MAX];
    const char *shown = afmt_cli_quote_name(path, quoted, sizeof quoted);
    int rc = load_quiet(l, prog, path, forced, format_option, bounded, &why);

    l->prog = prog;
    if (rc != AFMT_EXIT_OK)
        print_prog(prog);
    if (rc == AFMT_EXIT_ERROR) {
        fprintf(stderr, "%s: error: %s\n", shown, why.err.message);
    } else if (rc != AFMT_EXIT_OK && !why.fmt) {
        fprintf(stderr, "%s: invalid: %s\n", shown, why.err.message);
    } else if (rc != AFMT_EXIT_OK) {
        afmt_error_describe(&why.err, desc, sizeof desc);
        fprintf(stderr, "%s: invalid %s%s: %s\n", shown, why.fmt->name,
                why.closest ? " (closest match)" : "", desc);
    }
    return rc;
}

int afmt_cli_load(afmt_cli_loaded *l, const char *prog, const char *path,
                  const afmt_format *forced, const char *format_option)
{
    return load_and_say(l, prog, path, forced, format_option, 0);
}

int afmt_cli_load_bounded(afmt_cli_loaded *l, const char *prog, const char *path,
                          const afmt_format *forced, const char *format_option)
{
    return load_and_say(l, prog, path, forced, format_option, 1);
}

void afmt_cli_loaded_close(afmt_cli_loaded *l)
{
    if (l->in.map)
        afmt_cli_sigbus_unwatch();
    if (l->remote) {
        afmt_cli_load_url_close(l);
        l->in.data = NULL; /* the mapping: not the input's to close */
        l->in.len = 0;
    }
    afmt_cli_input_close(&l->in);
    afmt_cli_buf_free(&l->stream);
    free(l->file_copy);
    l->file_copy = NULL;
}

/* The caller's visitor, with each array also checked against the file's
 * sidecar (sidecar.c), so that dump and convert refuse exactly what
 * afmt-validate refuses. */
typedef struct sidecar_visit {
    const afmt_visitor *inner;
    afmt_cli_worker *w;
} sidecar_visit;

static int sidecar_on_array(void *ctx, const afmt_array *a)
{
    sidecar_visit *sv = ctx;
    afmt_cli_sidecar_check_array(sv->w, a, sv->w->narrays++);
    return sv->inner->on_array ? sv->inner->on_array(sv->inner->ctx, a) : 0;
}

static void sidecar_on_warning(void *ctx, const afmt_error *warning)
{
    sidecar_visit *sv = ctx;
    if (sv->inner->on_warning)
        sv->inner->on_warning(sv->inner->ctx, warning);
}

static void sidecar_on_trailer(void *ctx, const uint8_t *data, uint64_t len, uint64_t offset)
{
    sidecar_visit *sv = ctx;
    if (sv->inner->on_trailer)
        sv->inner->on_trailer(sv->inner->ctx, data, len, offset);
}

static void sidecar_on_metadata(void *ctx, const uint8_t *json, uint64_t len, uint64_t offset)
{
    sidecar_visit *sv = ctx;
    if (sv->inner->on_metadata)
        sv->inner->on_metadata(sv->inner->ctx, json, len, offset);
}

static int sidecar_on_kv(void *ctx, const afmt_kv *kv, uint64_t offset)
{
    sidecar_visit *sv = ctx;
    return sv->inner->on_kv(sv->inner->ctx, kv, offset);
}

int afmt_cli_loaded_validate(afmt_cli_loaded *l, const afmt_options *opt,
                             const afmt_visitor *vis)
{
    afmt_error err;
    char desc[AFMT_FIELD_MAX + AFMT_MESSAGE_MAX + 64];
    afmt_cli_worker *w = calloc(1, sizeof *w);
    afmt_visitor wrapped;
    sidecar_visit sv;
    int valid;

    if (!w) {
        print_prog(l->prog);
        fprintf(stderr, "%s: error: out of memory\n",
                afmt_cli_quote_name(l->path, desc, sizeof desc));
        return 1;
    }
    /* a sidecar lies beside a file, not beside an archive's member */
    afmt_cli_sidecar_begin(w, l->fmt, strcmp(l->path, "-") == 0 || l->member ? NULL : l->path);
    sv.inner = vis;
    sv.w = w;
    wrapped = *vis;
    wrapped.ctx = &sv;
    wrapped.on_array = sidecar_on_array;
    wrapped.on_warning = sidecar_on_warning;
    wrapped.on_trailer = sidecar_on_trailer;
    wrapped.on_metadata = sidecar_on_metadata;
    wrapped.on_kv = vis->on_kv ? sidecar_on_kv : NULL; /* none: not built */
    wrapped.on_member = NULL; /* a member is picked below (afmt_cli_loaded_run), not passed on */
    afmt_error_clear(&err);
    valid = afmt_cli_loaded_run(l, opt, &wrapped, &err) == 0;
    if (afmt_cli_sidecar_end(w, l->fmt, valid, &err) != 0)
        valid = 0;
    afmt_sidecar_free(w->meta);
    free(w);
    if (valid)
        return 0;
    afmt_error_describe(&err, desc, sizeof desc);
    print_prog(l->prog);
    {
        char quoted[AFMT_CLI_QUOTED_MAX];
        if (err.code == AFMT_E_IO) { /* no such member: no verdict on the input */
            fprintf(stderr, "%s: error: %s\n", afmt_cli_quote_name(l->path, quoted, sizeof quoted), err.message);
            return AFMT_EXIT_ERROR;
        }
        fprintf(stderr, "%s: invalid %s: %s%s\n", afmt_cli_quote_name(l->path, quoted, sizeof quoted),
                afmt_cli_loaded_format(l)->name, desc, afmt_cli_limit_hint(&err));
    }
    return AFMT_EXIT_INVALID;
}

void afmt_cli_print_warning(const char *path, const afmt_error *warning)
{
    char desc[AFMT_FIELD_MAX + AFMT_MESSAGE_MAX + 64];
    char quoted[AFMT_CLI_QUOTED_MAX];

    afmt_error_describe(warning, desc, sizeof desc);
    fprintf(stderr, "%s: warning: %s\n", afmt_cli_quote_name(path, quoted, sizeof quoted), desc);
}
