/* afmt CLI: SARIF 2.1.0 output (see sarif.h). */
#include "sarif.h"

#include <limits.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "json_out.h"
#include "report.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"

static void put_path_uri(afmt_cli_buf *b, const char *path);

/* Every rule: id, name, the descriptions (the full one: the short one
 * and the help, GitHub code scanning requiring one), help, the level a
 * result of it has unless it says otherwise, and help_uri (the driver's
 * informationUri as JSON text, or NULL for none) as its helpUri. */
static void put_rules(FILE *f, const afmt_cli_buf *help_uri)
{
    int c, first = 1;
    afmt_cli_buf b, full;

    afmt_cli_buf_init(&b);
    afmt_cli_buf_init(&full);
    for (c = 1; c < (int)AFMT_CODE_COUNT_; c++) {
        const afmt_cli_sarif_rule *r = afmt_cli_sarif_rule_of((afmt_code)c);
        if (!r)
            continue;
        afmt_cli_buf_puts(&b, first ? "\n{\"id\":" : ",\n{\"id\":");
        afmt_cli_json_cstr(&b, afmt_code_name((afmt_code)c));
        afmt_cli_buf_puts(&b, ",\"name\":");
        afmt_cli_json_cstr(&b, r->name);
        afmt_cli_buf_puts(&b, ",\"shortDescription\":{\"text\":");
        afmt_cli_json_cstr(&b, r->short_text);
        afmt_cli_buf_reset(&full, (size_t)1 << 16);
        afmt_cli_buf_printf(&full, "%s %s", r->short_text, r->help);
        afmt_cli_buf_puts(&b, "},\"fullDescription\":{\"text\":");
        afmt_cli_json_str(&b, full.p, full.len);
        afmt_cli_buf_puts(&b, "},\"help\":{\"text\":");
        afmt_cli_json_cstr(&b, r->help);
        afmt_cli_buf_puts(&b, "},\"defaultConfiguration\":{\"level\":\"error\"}");
        if (help_uri) {
            afmt_cli_buf_puts(&b, ",\"helpUri\":");
            afmt_cli_buf_put(&b, help_uri->p, help_uri->len);
        }
        afmt_cli_buf_putc(&b, '}');
        first = 0;
    }
    fwrite(b.p, 1, b.len, f);
    afmt_cli_buf_free(&b);
    afmt_cli_buf_free(&full);
}

/* afmt-validate's man page beside this program, into page (an absolute
 * path): installed (PREFIX/bin/ and PREFIX/share/man/man1/) or in the
 * source tree (build/, or a build/NAME/ below it, and docs/).  1, or 0
 * when there is none (or no /proc/self/exe). */
static int find_man_page(char page[PATH_MAX])
{
    static const char *const under[] = {"share/man/man1/afmt-validate.1", "docs/afmt-validate.1"};
    char exe[PATH_MAX], cand[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash;
    int up;
    size_t i;

    if (n <= 0)
        return 0;
    exe[n] = '\0';
    if (!(slash = strrchr(exe, '/')))
        return 0;
    *slash = '\0';
    for (up = 1; up <= 3; up++) {
        size_t len = strlen(exe);
        if (len + 4 >= sizeof exe)
            return 0;
        memcpy(exe + len, "/..", 4);
        for (i = 0; i < sizeof under / sizeof under[0]; i++) {
            snprintf(cand, sizeof cand, "%s/%s", exe, under[i]);
            if (access(cand, R_OK) == 0 && realpath(cand, page))
                return 1;
        }
    }
    return 0;
}

/* tool.driver.informationUri, an absolute URI (SARIF 2.1.0, 3.19.17),
 * as JSON text into uri: the page a packager names
 * (-DAFMT_CLI_INFORMATION_URI=...), else the man page found beside this
 * program as a file: URI.  0, or -1 when there is none (rather than a
 * page that is not there). */
static int information_uri(afmt_cli_buf *uri)
{
    char page[PATH_MAX];

    if (AFMT_CLI_INFORMATION_URI[0]) {
        afmt_cli_json_cstr(uri, AFMT_CLI_INFORMATION_URI);
        return 0;
    }
    if (!find_man_page(page))
        return -1;
    put_path_uri(uri, page);
    return 0;
}

void afmt_cli_sarif_begin(FILE *f)
{
    afmt_cli_buf uri;
    int has_uri;

    afmt_cli_buf_init(&uri);
    has_uri = information_uri(&uri) == 0 && !uri.oom;
    fputs("{\"version\":\"2.1.0\",\"$schema\":\"" SARIF_SCHEMA "\",\"runs\":[{\"tool\":"
          "{\"driver\":{\"name\":\"afmt-validate\",\"version\":\"" AFMT_CLI_VERSION "\"", f);
    if (has_uri) {
        fputs(",\"informationUri\":", f);
        fwrite(uri.p, 1, uri.len, f);
    }
    fputs(",\"rules\":[", f);
    put_rules(f, has_uri ? &uri : NULL);
    fputs("]}},\"columnKind\":\"unicodeCodePoints\",\"results\":[", f);
    afmt_cli_buf_free(&uri);
}

/* "2024-05-01T12:00:00Z" (SARIF's date-time: UTC, ISO 8601). */
static void put_time(afmt_cli_buf *b, time_t t)
{
    struct tm tm;
    char s[32];

    if (!gmtime_r(&t, &tm) || strftime(s, sizeof s, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        return;
    afmt_cli_buf_printf(b, "\"%s\"", s);
}

void afmt_cli_sarif_end(FILE *f, const afmt_cli_sarif_invocation *inv)
{
    char cwd[PATH_MAX + 1];
    afmt_cli_buf b;
    size_t n;

    afmt_cli_buf_init(&b);
    afmt_cli_buf_printf(&b, "\n],\"invocations\":[{\"executionSuccessful\":%s,\"exitCode\":%d",
                        inv->exit_code == AFMT_EXIT_ERROR ? "false" : "true", inv->exit_code);
    afmt_cli_buf_puts(&b, ",\"startTimeUtc\":");
    put_time(&b, inv->start);
    afmt_cli_buf_puts(&b, ",\"endTimeUtc\":");
    put_time(&b, inv->end);
    if (getcwd(cwd, sizeof cwd - 1) && cwd[0] == '/') {
        /* a directory's URI ends in '/' (SARIF 3.14.14's example) */
        n = strlen(cwd);
        if (cwd[n - 1] != '/') {
            cwd[n] = '/';
            cwd[n + 1] = '\0';
        }
        afmt_cli_buf_puts(&b, ",\"workingDirectory\":{\"uri\":");
        put_path_uri(&b, cwd);
        afmt_cli_buf_putc(&b, '}');
    }
    afmt_cli_buf_puts(&b, "}]}]}\n");
    fwrite(b.p, 1, b.len, f);
    afmt_cli_buf_free(&b);
}

/* A path as a URI reference: relative paths stay relative, absolute ones
 * become file: URIs; bytes other than unreserved ones and '/' are
 * percent-encoded (so a URI never holds a space, '%', '?' or '#' raw). */
static void put_path_uri(afmt_cli_buf *b, const char *path)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *p = (const unsigned char *)path;

    afmt_cli_buf_putc(b, '"');
    if (*p == '/')
        afmt_cli_buf_puts(b, "file://");
    for (; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p)) {
            afmt_cli_buf_putc(b, (char)*p);
        } else {
            afmt_cli_buf_putc(b, '%');
            afmt_cli_buf_putc(b, hex[*p >> 4]);
            afmt_cli_buf_putc(b, hex[*p & 15]);
        }
    }
    afmt_cli_buf_putc(b, '"');
}

/* A URL given on the command line (https://...) is its own URI. */
static int is_url(const char *s)
{
    return strncmp(s, "https://", 8) == 0 || strncmp(s, "http://", 7) == 0;
}

/* The region of err in the artifact's bytes: its offset and the width of
 * the field it names (0: unknown, none given), moved into the archive for
 * a member stored as it is; a deflated member's stored bytes when the
 * offset is inside what they inflate to.  0, or -1 for no region (an I/O
 * error, an error of no byte, a member whose place is not known). */
static int region_of(afmt_cli_worker *w, const afmt_error *err, uint64_t *at, uint64_t *len)
{
    if (err->code == AFMT_E_IO || err->offset == AFMT_NO_OFFSET)
        return -1;
    *at = err->offset;
    *len = afmt_cli_span_length(&w->spans, err);
    if (!w->archive)
        return 0;
    if (w->member_base != AFMT_NO_OFFSET && err->offset <= UINT64_MAX - w->member_base) {
        *at = w->member_base + err->offset;
        return 0;
    }
    if (w->member_base != AFMT_NO_OFFSET || w->member_len == 0)
        return -1;
    *at = w->member_at; /* the offset is in the message: the member's own */
    *len = w->member_len;
    return 0;
}

static void put_location(afmt_cli_buf *b, afmt_cli_worker *w, const char *display,
                         const afmt_error *err)
{
    const char *file = w->archive ? w->archive : display;
    uint64_t at, len;

    if (strcmp(file, "-") == 0)
        return; /* standard input has no URI */
    afmt_cli_buf_puts(b, ",\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":");
    if (is_url(file))
        afmt_cli_json_cstr(b, file);
    else
        put_path_uri(b, file);
    afmt_cli_buf_putc(b, '}');
    if (region_of(w, err, &at, &len) == 0) {
        afmt_cli_buf_puts(b, ",\"region\":{\"byteOffset\":");
        afmt_cli_buf_u64(b, at);
        if (len) {
            afmt_cli_buf_puts(b, ",\"byteLength\":");
            afmt_cli_buf_u64(b, len);
        }
        afmt_cli_buf_putc(b, '}');
    }
    afmt_cli_buf_putc(b, '}');
    if (w->archive) {
        afmt_cli_buf_puts(b, ",\"logicalLocations\":[{\"fullyQualifiedName\":");
        afmt_cli_json_cstr(b, display);
        afmt_cli_buf_puts(b, ",\"kind\":\"member\"}]");
    }
    afmt_cli_buf_puts(b, "}]");
}

static void put_result(afmt_cli_worker *w, const char *display, const afmt_format *fmt,
                       const char *level, const afmt_error *err)
{
    afmt_cli_buf *b = &w->out.buf;
    afmt_code code = afmt_cli_sarif_rule_of(err->code) ? err->code : AFMT_E_CONSTRAINT;

    if (err->code == AFMT_E_IO) /* no verdict: the reason alone */
        snprintf(w->desc, sizeof w->desc, "%.*s", (int)sizeof err->message, err->message);
    else
        afmt_error_describe(err, w->desc, sizeof w->desc);
    afmt_cli_buf_putc(b, AFMT_CLI_LIST_MARK);
    afmt_cli_buf_puts(b, "\n{\"ruleId\":");
    afmt_cli_json_cstr(b, afmt_code_name(code));
    afmt_cli_buf_printf(b, ",\"ruleIndex\":%d,\"level\":\"%s\",\"message\":{\"text\":",
                        (int)code - 1, level);
    afmt_cli_buf_reset(&w->msg, (size_t)1 << 16);
    afmt_cli_buf_printf(&w->msg, "%s: %s%s%s%s", display,
                        err->code == AFMT_E_IO ? "error"
                        : strcmp(level, "error") == 0 ? "invalid" : "warning",
                        fmt ? " " : "", fmt ? fmt->name : "", fmt && w->closest ? " (closest match)" : "");
    afmt_cli_buf_printf(&w->msg, ": %s", w->desc);
    afmt_cli_json_str(b, w->msg.p, w->msg.len);
    afmt_cli_buf_putc(b, '}');
    put_location(b, w, display, err);
    afmt_cli_buf_puts(b, ",\"properties\":{\"format\":");
    if (fmt)
        afmt_cli_json_cstr(b, fmt->name);
    else
        afmt_cli_buf_puts(b, "null");
    afmt_cli_buf_puts(b, ",\"field\":");
    afmt_cli_json_str(b, err->field, strnlen(err->field, sizeof err->field));
    afmt_cli_buf_puts(b, "}}");
}

void afmt_cli_sarif_emit(afmt_cli_worker *w, const char *display, const afmt_format *fmt,
                         int valid, const afmt_error *err)
{
    size_t at;

    if (!valid)
        put_result(w, display, fmt, "error", err);
    for (at = 0; at + sizeof(afmt_error) <= w->warns.len; at += sizeof(afmt_error)) {
        afmt_error warning;
        memcpy(&warning, w->warns.p + at, sizeof warning);
        put_result(w, display, fmt, "warning", &warning);
    }
}
