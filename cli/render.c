/* afmt CLI: a verdict as text or JSON (see render.h). */
#include "render.h"
#include "limit_opts.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "fail.h"
#include "formats.h"
#include "collect.h"
#include "json_out.h"
#include "sarif.h"

/* Each line ends with the version that wrote it, so that lines merged
 * from many hosts and runs stay self-describing. */
#define JSON_LINE_END ",\"afmt_version\":\"" AFMT_CLI_VERSION "\"}\n"

/* ,"archive":A,"member":M: the archive a member's line is about and the
 * member's name in it, or null and null for a file's own line. */
static void put_member(afmt_cli_worker *w, afmt_cli_buf *b)
{
    if (!w->line_member) {
        afmt_cli_buf_puts(b, ",\"archive\":null,\"member\":null");
        return;
    }
    afmt_cli_buf_puts(b, ",\"archive\":");
    afmt_cli_json_cstr(b, w->members_of);
    afmt_cli_buf_puts(b, ",\"member\":");
    afmt_cli_json_cstr(b, w->line_member);
}

static void emit_json(afmt_cli_worker *w, const char *display,
                      const afmt_format *fmt, int valid, const afmt_error *err)
{
    afmt_cli_buf *b = &w->out.buf;

    afmt_cli_buf_putc(b, '{');
    afmt_cli_json_path(b, display);
    put_member(w, b);
    afmt_cli_buf_puts(b, valid ? ",\"verdict\":\"valid\"" : ",\"verdict\":\"invalid\"");
    afmt_cli_buf_puts(b, ",\"format\":");
    if (fmt && !w->closest)
        afmt_cli_json_cstr(b, fmt->name);
    else
        afmt_cli_buf_puts(b, "null");
    if (fmt && w->closest) {
        afmt_cli_buf_puts(b, ",\"closest_match\":");
        afmt_cli_json_cstr(b, fmt->name);
    }
    if (valid && w->summary) {
        afmt_cli_buf_puts(b, ",\"summary\":");
        afmt_cli_json_cstr(b, w->summary);
    }
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
    afmt_cli_buf_puts(b, JSON_LINE_END);
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

    afmt_cli_buf_puts(b, afmt_cli_quote_name(display, w->quoted, sizeof w->quoted));
    if (valid && w->summary) {
        afmt_cli_buf_printf(b, ": ok %s (%s)", fmt->name, w->summary);
    } else if (valid) {
        afmt_cli_buf_printf(b, ": ok %s", fmt->name);
        if (w->narrays == 0)
            afmt_cli_buf_puts(b, " (no arrays)");
        else
            afmt_cli_buf_printf(b, " %s %s", w->first,
                                afmt_cli_order_name(w->first_order));
        if (w->narrays > 1)
            afmt_cli_buf_printf(b, " (+%" PRIu64 " more)", w->narrays - 1);
    } else if (!fmt) {
        afmt_cli_buf_printf(b, ": invalid: %.*s%s", (int)sizeof err->message,
                            err->message, afmt_cli_limit_hint(err));
    } else {
        afmt_error_describe(err, w->desc, sizeof w->desc);
        afmt_cli_buf_printf(b, ": invalid %s%s: %s%s", fmt->name,
                            w->closest ? " (closest match)" : "", w->desc, afmt_cli_limit_hint(err));
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

void afmt_cli_emit(afmt_cli_worker *w, const char *display,
                 const afmt_format *fmt, int valid, const afmt_error *err)
{
    w->verdict = valid != 0;
    if (w->hold)
        return;
    w->checked++;
    afmt_cli_progress_count(w->cfg->progress);
    if (valid)
        w->valid++;
    else
        w->invalid++;
    if (w->cfg->sarif) {
        afmt_cli_sarif_emit(w, display, fmt, valid, err);
    } else if (!(valid && w->cfg->quiet)) {
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
    w->verdict = -1;
    if (w->hold)
        return;
    w->errors++;
    afmt_cli_progress_count(w->cfg->progress);
    if (w->cfg->sarif) {
        afmt_error e = *err;
        e.code = AFMT_E_IO;
        afmt_cli_collect_begin(w); /* no warnings, no field spans */
        afmt_cli_sarif_emit(w, display, NULL, 0, &e);
        afmt_cli_out_maybe_flush(&w->out);
        return;
    }
    if (w->cfg->json) {
        afmt_cli_buf *b = &w->out.buf;
        afmt_error e = *err;

        e.code = AFMT_E_IO;
        afmt_cli_buf_putc(b, '{');
        afmt_cli_json_path(b, display);
        put_member(w, b);
        afmt_cli_buf_puts(b, ",\"verdict\":\"error\",\"format\":null,\"valid\":false,"
                             "\"array_count\":0,\"arrays\":[],\"error\":");
        afmt_cli_json_error(b, &e);
        afmt_cli_buf_puts(b, ",\"warnings\":[]" JSON_LINE_END);
        afmt_cli_out_maybe_flush(&w->out);
        return;
    }
    afmt_cli_out_stderr(&w->out, "%s: error: %.*s\n",
                        afmt_cli_quote_name(display, w->quoted, sizeof w->quoted),
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
    afmt_cli_fail(&err, AFMT_E_IO, NULL, AFMT_NO_OFFSET, "%s", message);
    afmt_cli_report_error(w, display, &err);
}

void afmt_cli_report_invalid(afmt_cli_worker *w, const char *display,
                             const afmt_format *fmt, const afmt_error *err)
{
    afmt_cli_collect_begin(w);
    afmt_cli_emit(w, display, fmt, 0, err);
}
