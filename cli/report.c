/* afmt CLI: checking inputs and reporting (see report.h). */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/stat.h>

#include "formats.h"
#include "json_out.h"
#include "load.h"

/* Pending output is written once it passes this size. */
#define OUT_FLUSH_BYTES ((size_t)64 << 10)
/* Buffers that grew beyond this for one file are given back afterwards. */
#define KEEP_BYTES ((size_t)4 << 20)

static const char no_format_message[] =
    "no known format matches (magic or extension)";

/* ---------------------------------------------------------------- output */

void afmt_cli_out_init(afmt_cli_out *o, afmt_cli_seq *seq)
{
    afmt_cli_buf_init(&o->buf);
    o->seq = seq;
    o->my_seq = 0;
    o->has_turn = seq == NULL;
    o->write_failed = 0;
}

void afmt_cli_out_free(afmt_cli_out *o)
{
    afmt_cli_buf_free(&o->buf);
}

void afmt_cli_out_begin(afmt_cli_out *o, uint64_t seq_no)
{
    o->my_seq = seq_no;
    o->has_turn = o->seq == NULL;
    afmt_cli_buf_reset(&o->buf, KEEP_BYTES);
}

static void wait_turn(afmt_cli_out *o)
{
    if (o->has_turn)
        return;
    pthread_mutex_lock(&o->seq->mu);
    while (o->seq->next != o->my_seq)
        pthread_cond_wait(&o->seq->cv, &o->seq->mu);
    pthread_mutex_unlock(&o->seq->mu);
    o->has_turn = 1;
}

void afmt_cli_out_flush(afmt_cli_out *o)
{
    if (o->buf.len == 0)
        return;
    wait_turn(o);
    if (o->buf.oom) {
        /* Never write a silently shortened report. */
        fprintf(stderr, "afmt: out of memory while formatting output\n");
        o->write_failed = 1;
    }
    if (fwrite(o->buf.p, 1, o->buf.len, stdout) != o->buf.len)
        o->write_failed = 1;
    afmt_cli_buf_reset(&o->buf, KEEP_BYTES);
}

void afmt_cli_out_maybe_flush(afmt_cli_out *o)
{
    if (o->buf.len >= OUT_FLUSH_BYTES)
        afmt_cli_out_flush(o);
}

void afmt_cli_out_stderr(afmt_cli_out *o, const char *fmt, ...)
{
    va_list ap;

    afmt_cli_out_flush(o);
    wait_turn(o);
    fflush(stdout);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* With seq->mu held and the turn ours: write what was parked for the
 * inputs after ours, in order, and move the turn on. */
static void advance_turn(afmt_cli_seq *q)
{
    int found = 1;
    q->next++;
    while (found) {
        int i;
        found = 0;
        for (i = 0; i < AFMT_CLI_PARKED; i++) {
            afmt_cli_parked *pk = &q->parked[i];
            if (pk->used && pk->seq == q->next) {
                if (pk->len && fwrite(pk->text, 1, pk->len, stdout) != pk->len)
                    q->write_failed = 1;
                free(pk->text);
                pk->text = NULL;
                pk->used = 0;
                q->next++;
                found = 1;
            }
        }
    }
    pthread_cond_broadcast(&q->cv);
}

void afmt_cli_out_end(afmt_cli_out *o)
{
    afmt_cli_seq *q = o->seq;
    if (!q) {
        afmt_cli_out_flush(o);
        return;
    }
    if (o->has_turn) {
        afmt_cli_out_flush(o);
        pthread_mutex_lock(&q->mu);
        advance_turn(q);
        pthread_mutex_unlock(&q->mu);
        o->has_turn = 0;
        return;
    }
    pthread_mutex_lock(&q->mu);
    if (q->next != o->my_seq && !o->buf.oom) {
        /* not our turn yet: park the text (if there is room) and go on */
        int i;
        for (i = 0; i < AFMT_CLI_PARKED; i++)
            if (!q->parked[i].used) break;
        if (i < AFMT_CLI_PARKED) {
            char *copy = o->buf.len ? malloc(o->buf.len) : NULL;
            if (!o->buf.len || copy) {
                if (copy) memcpy(copy, o->buf.p, o->buf.len);
                q->parked[i].seq = o->my_seq;
                q->parked[i].text = copy;
                q->parked[i].len = o->buf.len;
                q->parked[i].used = 1;
                pthread_mutex_unlock(&q->mu);
                afmt_cli_buf_reset(&o->buf, KEEP_BYTES);
                return;
            }
        }
    }
    while (q->next != o->my_seq)
        pthread_cond_wait(&q->cv, &q->mu);
    if (o->buf.oom) {
        fprintf(stderr, "afmt: out of memory while formatting output\n");
        o->write_failed = 1;
    }
    if (o->buf.len && fwrite(o->buf.p, 1, o->buf.len, stdout) != o->buf.len)
        o->write_failed = 1;
    advance_turn(q);
    pthread_mutex_unlock(&q->mu);
    afmt_cli_buf_reset(&o->buf, KEEP_BYTES);
    o->has_turn = 0;
}

/* ---------------------------------------------------------------- config */

void afmt_cli_config_default(afmt_cli_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    afmt_options_default(&cfg->opt);
    cfg->jobs = 1;
    cfg->file_limit = cfg->opt.limits.max_total_bytes;
    cfg->stream_limit = AFMT_CLI_STREAM_DEFAULT_LIMIT;
}

void afmt_cli_worker_init(afmt_cli_worker *w, const afmt_cli_config *cfg,
                          afmt_cli_seq *seq)
{
    memset(w, 0, sizeof *w);
    w->cfg = cfg;
    afmt_cli_out_init(&w->out, seq);
    afmt_cli_buf_init(&w->arrays);
    afmt_cli_buf_init(&w->warns);
    afmt_cli_buf_init(&w->data);
    afmt_cli_buf_init(&w->name);
}

void afmt_cli_worker_free(afmt_cli_worker *w)
{
    afmt_cli_out_free(&w->out);
    afmt_cli_buf_free(&w->arrays);
    afmt_cli_buf_free(&w->warns);
    afmt_cli_buf_free(&w->data);
    afmt_cli_buf_free(&w->name);
    free(w->window);
    w->window = NULL;
    free(w->meta_columns);
    w->meta_columns = NULL;
}

/* ---------------------------------------------------------------- visitor */

static void put_array_json(afmt_cli_buf *b, uint64_t index, const afmt_array *a)
{
    uint32_t i, rank = a->rank <= AFMT_RANK_CAP ? a->rank : AFMT_RANK_CAP;

    afmt_cli_buf_puts(b, "{\"index\":");
    afmt_cli_buf_u64(b, index);
    afmt_cli_buf_puts(b, ",\"name\":");
    afmt_cli_json_str(b, a->name, strnlen(a->name, sizeof a->name));
    afmt_cli_buf_puts(b, ",\"dtype\":");
    afmt_cli_json_cstr(b, afmt_dtype_name(a->dtype));
    afmt_cli_buf_puts(b, ",\"shape\":[");
    for (i = 0; i < rank; i++) {
        if (i)
            afmt_cli_buf_putc(b, ',');
        afmt_cli_buf_u64(b, a->dims[i]);
    }
    afmt_cli_buf_puts(b, "],\"order\":");
    afmt_cli_json_cstr(b, afmt_cli_order_name(a->order));
    afmt_cli_buf_puts(b, ",\"offset\":");
    afmt_cli_buf_u64(b, a->offset);
    afmt_cli_buf_puts(b, ",\"nbytes\":");
    afmt_cli_buf_u64(b, a->nbytes);
    afmt_cli_buf_putc(b, '}');
}

static int on_array(void *ctx, const afmt_array *a)
{
    afmt_cli_worker *w = ctx;
    uint64_t index = w->narrays++;

    if (w->meta_desc && !w->meta_failed &&
        afmt_meta_check_array(w->meta_desc, &w->meta, a, (size_t)index, &w->meta_err) != 0)
        w->meta_failed = 1;

    if (index == 0) {
        afmt_array_describe(a, w->first, sizeof w->first);
        w->first_order = a->order;
    }
    if (w->arrays_listed >= AFMT_CLI_MAX_LISTED_ARRAYS)
        return 0;
    if (w->cfg->json) {
        if (w->arrays_listed)
            afmt_cli_buf_putc(&w->arrays, ',');
        put_array_json(&w->arrays, index, a);
        w->arrays_listed++;
    } else if (w->cfg->verbose) {
        afmt_array_describe(a, w->desc, sizeof w->desc);
        afmt_cli_buf_printf(&w->arrays, "  [%" PRIu64 "] ", index);
        if (a->name[0]) {
            afmt_cli_buf_put_escaped(&w->arrays, a->name,
                                     strnlen(a->name, sizeof a->name));
            afmt_cli_buf_putc(&w->arrays, ' ');
        }
        afmt_cli_buf_printf(&w->arrays, "%s %s offset=%" PRIu64 "\n", w->desc,
                            afmt_cli_order_name(a->order), a->offset);
        w->arrays_listed++;
    }
    return 0;
}

static void on_warning(void *ctx, const afmt_error *warning)
{
    afmt_cli_worker *w = ctx;

    w->nwarn++;
    if (w->warns_listed >= AFMT_CLI_MAX_LISTED_WARNINGS)
        return;
    if (w->cfg->json) {
        if (w->warns_listed)
            afmt_cli_buf_putc(&w->warns, ',');
        afmt_cli_json_error(&w->warns, warning);
        w->warns_listed++;
    } else if (w->cfg->verbose) {
        afmt_error_describe(warning, w->desc, sizeof w->desc);
        afmt_cli_buf_printf(&w->warns, "  warning: %s\n", w->desc);
        w->warns_listed++;
    }
}

static void start_input(afmt_cli_worker *w)
{
    w->narrays = w->nwarn = 0;
    w->arrays_listed = w->warns_listed = 0;
    w->first[0] = '\0';
    w->first_order = AFMT_ROW_MAJOR;
    afmt_cli_buf_reset(&w->arrays, KEEP_BYTES);
    afmt_cli_buf_reset(&w->warns, KEEP_BYTES);
}

/* ---------------------------------------------------------------- report */

static void emit_json(afmt_cli_worker *w, const char *display,
                      const afmt_format *fmt, int valid, const afmt_error *err)
{
    afmt_cli_buf *b = &w->out.buf;

    afmt_cli_buf_puts(b, "{\"path\":");
    afmt_cli_json_cstr(b, display);
    afmt_cli_buf_puts(b, ",\"format\":");
    if (fmt)
        afmt_cli_json_cstr(b, fmt->name);
    else
        afmt_cli_buf_puts(b, "null");
    afmt_cli_buf_puts(b, valid ? ",\"valid\":true" : ",\"valid\":false");
    afmt_cli_buf_puts(b, ",\"array_count\":");
    afmt_cli_buf_u64(b, valid ? w->narrays : 0);
    afmt_cli_buf_puts(b, ",\"arrays\":[");
    if (valid)
        afmt_cli_buf_put(b, w->arrays.p, w->arrays.len);
    afmt_cli_buf_putc(b, ']');
    if (valid && w->narrays > w->arrays_listed)
        afmt_cli_buf_puts(b, ",\"arrays_truncated\":true");
    afmt_cli_buf_puts(b, ",\"error\":");
    if (valid)
        afmt_cli_buf_puts(b, "null");
    else
        afmt_cli_json_error(b, err);
    afmt_cli_buf_puts(b, ",\"warnings\":[");
    afmt_cli_buf_put(b, w->warns.p, w->warns.len);
    afmt_cli_buf_putc(b, ']');
    if (w->nwarn > w->warns_listed)
        afmt_cli_buf_puts(b, ",\"warnings_truncated\":true");
    afmt_cli_buf_puts(b, "}\n");
}

static void put_warning_count(afmt_cli_buf *b, uint64_t n)
{
    if (n)
        afmt_cli_buf_printf(b, " (%" PRIu64 " warning%s)", n, n == 1 ? "" : "s");
}

static void emit_text(afmt_cli_worker *w, const char *display,
                      const afmt_format *fmt, int valid, const afmt_error *err)
{
    afmt_cli_buf *b = &w->out.buf;

    afmt_cli_buf_puts(b, display);
    if (valid) {
        afmt_cli_buf_printf(b, ": ok %s", fmt->name);
        if (w->narrays == 0)
            afmt_cli_buf_puts(b, " (no arrays)");
        else
            afmt_cli_buf_printf(b, " %s %s", w->first,
                                afmt_cli_order_name(w->first_order));
        if (w->narrays > 1)
            afmt_cli_buf_printf(b, " (+%" PRIu64 " more)", w->narrays - 1);
    } else if (!fmt) {
        afmt_cli_buf_printf(b, ": invalid: %.*s", (int)sizeof err->message,
                            err->message);
    } else {
        afmt_error_describe(err, w->desc, sizeof w->desc);
        afmt_cli_buf_printf(b, ": invalid %s: %s", fmt->name, w->desc);
    }
    put_warning_count(b, w->nwarn);
    afmt_cli_buf_putc(b, '\n');
    if (w->cfg->verbose) {
        if (valid) {
            afmt_cli_buf_put(b, w->arrays.p, w->arrays.len);
            if (w->narrays > w->arrays_listed)
                afmt_cli_buf_printf(b, "  ... %" PRIu64 " more arrays not listed\n",
                                    w->narrays - w->arrays_listed);
        }
        afmt_cli_buf_put(b, w->warns.p, w->warns.len);
        if (w->nwarn > w->warns_listed)
            afmt_cli_buf_printf(b, "  ... %" PRIu64 " more warnings not listed\n",
                                w->nwarn - w->warns_listed);
    }
}

static void emit(afmt_cli_worker *w, const char *display,
                 const afmt_format *fmt, int valid, const afmt_error *err)
{
    w->checked++;
    if (valid)
        w->valid++;
    else
        w->invalid++;
    if (!(valid && w->cfg->quiet)) {
        if (w->cfg->json)
            emit_json(w, display, fmt, valid, err);
        else
            emit_text(w, display, fmt, valid, err);
    }
    afmt_cli_out_maybe_flush(&w->out);
}

void afmt_cli_report_error(afmt_cli_worker *w, const char *display,
                           const afmt_error *err)
{
    w->errors++;
    if (w->cfg->json) {
        afmt_cli_buf *b = &w->out.buf;
        afmt_error e = *err;

        e.code = AFMT_E_IO;
        afmt_cli_buf_puts(b, "{\"path\":");
        afmt_cli_json_cstr(b, display);
        afmt_cli_buf_puts(b, ",\"format\":null,\"valid\":false,\"array_count\":0,"
                             "\"arrays\":[],\"error\":");
        afmt_cli_json_error(b, &e);
        afmt_cli_buf_puts(b, ",\"warnings\":[]}\n");
        afmt_cli_out_maybe_flush(&w->out);
        return;
    }
    afmt_cli_out_stderr(&w->out, "%s: error: %.*s\n", display,
                        (int)sizeof err->message, err->message);
}

void afmt_cli_report_errno(afmt_cli_worker *w, const char *display, int errnum)
{
    afmt_error err;

    afmt_error_clear(&err);
    afmt_cli_errno_error(&err, errnum);
    afmt_cli_report_error(w, display, &err);
}

void afmt_cli_report_message(afmt_cli_worker *w, const char *display,
                             const char *message)
{
    afmt_error err;

    afmt_error_clear(&err);
    afmt_fail(&err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, 0, "%s", message);
    afmt_cli_report_error(w, display, &err);
}

/* ---------------------------------------------------------------- checks */

/* Does the input look like f, by magic or by extension? */
static int looks_like(const afmt_format *f, const uint8_t *buf, uint64_t len,
                      const char *ext_name)
{
    const char *const *e;

    if (f->detect && f->detect(buf, len) == 1)
        return 1;
    for (e = f->extensions; ext_name && e && *e; e++)
        if (afmt_cli_ends_with(ext_name, *e))
            return 1;
    return 0;
}

/* Read PATH + suffix if it exists (bounded), for on_array to check. */
static void load_sidecar(afmt_cli_worker *w, const afmt_format *fmt, const char *path)
{
    FILE *f;
    static const size_t cap = AFMT_META_MAX_BYTES + 1;
    char *text;
    size_t got;
    snprintf(w->meta_path, sizeof w->meta_path, "%s%s", path, fmt->sidecar->suffix);
    f = fopen(w->meta_path, "rb");
    if (!f)
        return; /* no sidecar: nothing to check */
    text = malloc(cap);
    if (!w->meta_columns)
        w->meta_columns = malloc(sizeof *w->meta_columns * AFMT_META_MAX_COLUMNS);
    if (!text || !w->meta_columns) {
        free(text);
        fclose(f);
        return;
    }
    got = fread(text, 1, cap, f);
    fclose(f);
    w->meta_desc = fmt->sidecar;
    afmt_error_clear(&w->meta_err);
    if (afmt_meta_parse(fmt->sidecar, text, got, &w->meta, w->meta_columns, &w->meta_err) != 0)
        w->meta_failed = 1;
    free(text);
}

static void check(afmt_cli_worker *w, const char *display, const char *ext_name,
                  const uint8_t *buf, uint64_t len, const afmt_error *pre, afmt_cli_input *stream)
{
    const afmt_format *fmt;
    afmt_visitor vis;
    afmt_error err;
    int valid = 0;

    start_input(w);
    afmt_error_clear(&err);
    if (w->skip_unknown) {
        /* Met in a directory walk: only files that claim to be arrays. */
        fmt = w->cfg->forced;
        if (fmt ? !looks_like(fmt, buf, len, ext_name)
                : !afmt_format_detect(buf, len, ext_name)) {
            w->skipped++;
            if (w->cfg->verbose && !w->cfg->json)
                afmt_cli_out_stderr(&w->out, "%s: skipped: %s\n", display,
                                    fmt ? "does not look like this format"
                                        : no_format_message);
            return;
        }
    }
    fmt = w->cfg->forced ? w->cfg->forced : afmt_format_detect(buf, len, ext_name);
    if (!fmt) {
        afmt_fail(&err, AFMT_E_DETECT, NULL, NULL, AFMT_NO_INDEX, 0, "%s",
                  no_format_message);
    } else if (pre) {
        err = *pre;
        afmt_error_set_format(&err, fmt->name);
    } else {
        afmt_cli_visitor_init(&vis, w);
        vis.on_array = on_array;
        vis.on_warning = on_warning;
        w->meta_desc = NULL;
        w->meta_failed = 0;
        if (fmt->sidecar && ext_name && !(stream && afmt_cli_input_is_lazy(stream)))
            load_sidecar(w, fmt, ext_name);
        if (w->meta_failed) {
            /* the sidecar itself is broken: the file is still validated */
        }
        if (stream && afmt_cli_input_is_lazy(stream)) {
            /* a pipe: through a fixed window, whatever its length */
            if (!w->window)
                w->window = malloc((size_t)AFMT_CLI_STREAM_WINDOW);
            if (!w->window)
                afmt_fail(&err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, 0, "no memory for the stream window");
            else
                valid = afmt_cli_stream_validate(fmt, stream, w->window, w->cfg->opt.limits.max_total_bytes,
                                                 &w->cfg->opt, &vis, &err) == 0;
        } else {
            valid = fmt->validate(buf, len, &w->cfg->opt, &vis, &err) == 0;
        }
        if (valid && w->meta_desc && !w->meta_failed &&
            afmt_meta_check_end(w->meta_desc, &w->meta, (size_t)w->narrays, &w->meta_err) != 0)
            w->meta_failed = 1;
        if (valid && w->meta_failed) {
            /* the data is fine, its sidecar disagrees: name the sidecar */
            const char *base = strrchr(w->meta_path, '/');
            err = w->meta_err;
            base = base ? base + 1 : w->meta_path;
            snprintf(err.field, sizeof err.field, "%.100s:%.50s", base, w->meta_err.field);
            afmt_error_set_format(&err, fmt->name);
            valid = 0;
        }
        w->meta_desc = NULL;
    }
    if (w->mapped_path) {
        /* the verdict is about the bytes that were there: a file that
         * changed meanwhile gets no verdict */
        struct stat st;
        if (stat(w->mapped_path, &st) == 0 && (uint64_t)st.st_size != w->mapped_size) {
            afmt_error io;
            afmt_error_clear(&io);
            afmt_fail(&io, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, 0,
                      "the file changed size while it was read (%" PRIu64 " bytes, now %" PRIu64 "): try again",
                      w->mapped_size, (uint64_t)st.st_size);
            afmt_cli_report_error(w, display, &io);
            return;
        }
    }
    emit(w, display, fmt, valid, &err);
}

void afmt_cli_check_bytes(afmt_cli_worker *w, const char *display,
                          const char *ext_name, const uint8_t *buf, uint64_t len)
{
    check(w, display, ext_name, buf, len, NULL, NULL);
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

/* A mapped file cut short by someone else while we read it raises SIGBUS
 * at the first page past its new end.  A signal carries no context, so the
 * way back is thread-local (each -j worker has its own), set only around
 * the reads of a mapping. */
static _Thread_local sigjmp_buf *bus_return;

static void on_sigbus(int sig)
{
    (void)sig;
    if (bus_return)
        siglongjmp(*bus_return, 1);
    signal(SIGBUS, SIG_DFL);
    raise(SIGBUS);
}

static void install_sigbus(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

static pthread_once_t sigbus_once = PTHREAD_ONCE_INIT;

/* check_input under the SIGBUS guard; 0, or -1 when the file shrank. */
static int check_mapped(afmt_cli_worker *w, const char *path, const char *ext, afmt_cli_input *in)
{
    sigjmp_buf jb;
    pthread_once(&sigbus_once, install_sigbus);
    if (sigsetjmp(jb, 1) != 0) {
        bus_return = NULL;
        return -1;
    }
    bus_return = &jb;
    afmt_cli_check_input(w, path, ext, in);
    bus_return = NULL;
    return 0;
}

void afmt_cli_check_path(afmt_cli_worker *w, const char *path, int walked)
{
    afmt_cli_input in;
    afmt_error err;
    int is_stdin = strcmp(path, "-") == 0;

    if (!is_stdin && afmt_cli_is_tar_path(path)) {
        afmt_cli_check_tar(w, path);
        return;
    }
    afmt_error_clear(&err);
    if (afmt_cli_input_open_lazy(&in, path, w->cfg->file_limit, &w->data, &err) != 0) {
        afmt_cli_report_error(w, path, &err);
        return;
    }
    w->skip_unknown = walked;
    if (in.map) {
        w->mapped_path = path;
        w->mapped_size = in.size;
        if (check_mapped(w, path, path, &in) != 0) {
            afmt_error io;
            afmt_error_clear(&io);
            afmt_fail(&io, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, 0,
                      "the file was cut short while it was read: try again");
            afmt_cli_report_error(w, path, &io);
        }
        w->mapped_path = NULL;
    } else {
        afmt_cli_check_input(w, path, is_stdin ? NULL : path, &in);
    }
    w->skip_unknown = 0;
    afmt_cli_input_close(&in);
    /* Give back a stream buffer that grew very large. */
    afmt_cli_buf_reset(&w->data, (size_t)64 << 20);
}
