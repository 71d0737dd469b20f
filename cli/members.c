/* afmt CLI: an archive's members, each its own verdict (see members.h). */
#include "members.h"

#include <inttypes.h>
#include <string.h>

#include "collect.h"
#include "render.h"

void afmt_cli_members_begin(afmt_cli_worker *w, const char *display)
{
    w->members_of = display;
    w->member_fmt = NULL;
    w->members_done = 0;
    w->member_failed = 0;
    w->archive_nwarn = w->archive_warns_listed = 0;
    afmt_cli_buf_reset(&w->archive_warns, AFMT_CLI_KEEP_BYTES);
}

/* Append the warnings collected so far to the archive's own (they were
 * given outside any member), so that the next member starts with none. */
static void stash_warnings(afmt_cli_worker *w)
{
    if (w->nwarn == 0)
        return;
    if (w->cfg->json && !w->cfg->sarif && w->archive_warns.len && w->warns.len)
        afmt_cli_buf_putc(&w->archive_warns, ',');
    afmt_cli_buf_put(&w->archive_warns, w->warns.p, w->warns.len);
    w->archive_nwarn += w->nwarn;
    w->archive_warns_listed += w->warns_listed;
}

/* The archive's own warnings back in the current collection, before what
 * it holds, for the line about to be emitted. */
static void restore_warnings(afmt_cli_worker *w)
{
    afmt_cli_buf held = w->archive_warns;

    if (w->archive_nwarn == 0)
        return;
    if (w->cfg->json && !w->cfg->sarif && held.len && w->warns.len)
        afmt_cli_buf_putc(&held, ',');
    afmt_cli_buf_put(&held, w->warns.p, w->warns.len);
    w->archive_warns = w->warns;
    w->warns = held;
    w->archive_warns.len = 0;
    w->nwarn += w->archive_nwarn;
    w->warns_listed += w->archive_warns_listed;
    w->archive_nwarn = w->archive_warns_listed = 0;
}

/* The current member's line: "ARCHIVE:MEMBER", its format, the verdict. */
static void emit_member(afmt_cli_worker *w, int valid, const afmt_error *err)
{
    const char *saved = w->archive;

    w->archive = w->members_of; /* SARIF: the file is the archive */
    w->line_member = w->member_line.p + strlen(w->members_of) + 1;
    afmt_cli_emit(w, w->member_line.p, w->member_fmt, valid, err);
    w->line_member = NULL;
    w->archive = saved;
    afmt_cli_member_where_unknown(w);
}

/* Is err the one the last invalid member's line said? */
static int said_already(const afmt_cli_worker *w, const afmt_error *err)
{
    const afmt_error *said = &w->member_error;
    return w->member_failed && err->code == said->code && err->offset == said->offset &&
           strcmp(err->field, said->field) == 0 && strcmp(err->message, said->message) == 0;
}

int afmt_cli_members_told(void *ctx, const afmt_member *member)
{
    afmt_cli_worker *w = ctx;

    if (!w->members_of)
        return 0;
    if (!member->done) {
        stash_warnings(w);
        afmt_cli_collect_begin(w);
        w->member_fmt = member->format;
        /* SARIF's region: the library's offsets are the archive's, but a
         * deflated member's, which are its compressed bytes' (the byte in
         * the inflated ones is in the message) */
        w->member_base = member->compressed ? AFMT_NO_OFFSET : 0;
        w->member_at = member->offset;
        w->member_len = member->compressed ? member->stored_size : 0;
        afmt_cli_buf_reset(&w->member_line, (size_t)1 << 16);
        afmt_cli_buf_printf(&w->member_line, "%s:%.*s", w->members_of, (int)member->name_len,
                            (const char *)member->name);
        return 0;
    }
    /* each member its verdict, and on to the next: a bad sample of a
     * shard does not hide the others */
    if (w->member_fmt)
        emit_member(w, member->error == NULL, member->error);
    if (member->error && !w->member_failed) {
        w->member_error = *member->error;
        w->member_failed = 1;
    }
    w->member_fmt = NULL;
    afmt_cli_member_where_unknown(w);
    w->members_done++;
    afmt_cli_collect_begin(w);
    return 0;
}

int afmt_cli_members_finish(afmt_cli_worker *w, const char *display, const afmt_format *fmt,
                            int valid, const afmt_error *err)
{
    char summary[64];
    int told = w->members_done > 0 || w->member_fmt != NULL;

    if (told && !valid && w->member_fmt) {
        /* the failure is in the member being parsed (the library stopped
         * in it: no memory, or a stream that cannot be read further) */
        restore_warnings(w);
        emit_member(w, 0, err);
    } else if (told) {
        restore_warnings(w);
        if ((!valid && !said_already(w, err)) || (valid && w->nwarn > 0)) {
            /* the archive's own verdict: its error, or its warnings */
            snprintf(summary, sizeof summary, "%" PRIu64 " member%s checked", w->members_done,
                     w->members_done == 1 ? "" : "s");
            w->summary = valid ? summary : NULL;
            afmt_cli_emit(w, display, fmt, valid, err);
            w->summary = NULL;
        }
    }
    w->members_of = NULL;
    w->member_fmt = NULL;
    afmt_cli_member_where_unknown(w);
    w->members_done = 0;
    w->member_failed = 0;
    return told;
}
