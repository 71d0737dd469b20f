/* afmt CLI: SARIF 2.1.0 output (see sarif.h). */
#include "sarif.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "json_out.h"
#include "report.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"

static void put_rules(FILE *f)
{
    int c, first = 1;
    afmt_cli_buf b;

    afmt_cli_buf_init(&b);
    for (c = 1; c < (int)AFMT_CODE_COUNT_; c++) {
        const afmt_cli_sarif_rule *r = afmt_cli_sarif_rule_of((afmt_code)c);
        if (!r)
            continue;
        afmt_cli_buf_puts(&b, first ? "\n{\"id\":" : ",\n{\"id\":");
        afmt_cli_json_cstr(&b, afmt_code_name((afmt_code)c));
        afmt_cli_buf_puts(&b, ",\"shortDescription\":{\"text\":");
        afmt_cli_json_cstr(&b, r->short_text);
        afmt_cli_buf_puts(&b, "},\"help\":{\"text\":");
        afmt_cli_json_cstr(&b, r->help);
        afmt_cli_buf_puts(&b, "}}");
        first = 0;
    }
    fwrite(b.p, 1, b.len, f);
    afmt_cli_buf_free(&b);
}

static void put_path_uri(afmt_cli_buf *b, const char *path);

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

/* tool.driver.informationUri, an absolute URI (SARIF 2.1.0, 3.19.17):
 * the page a packager names (-DAFMT_CLI_INFORMATION_URI=...), else the
 * man page found beside this program as a file: URI; none rather than a
 * page that is not there. */
static void put_information_uri(FILE *f)
{
    char page[PATH_MAX];
    afmt_cli_buf b;

    if (AFMT_CLI_INFORMATION_URI[0]) {
        fputs(",\"informationUri\":\"" AFMT_CLI_INFORMATION_URI "\"", f);
        return;
    }
    if (!find_man_page(page))
        return;
    afmt_cli_buf_init(&b);
    put_path_uri(&b, page);
    fputs(",\"informationUri\":", f);
    fwrite(b.p, 1, b.len, f);
    afmt_cli_buf_free(&b);
}

void afmt_cli_sarif_begin(FILE *f)
{
    fputs("{\"version\":\"2.1.0\",\"$schema\":\"" SARIF_SCHEMA "\",\"runs\":[{\"tool\":"
          "{\"driver\":{\"name\":\"afmt-validate\",\"version\":\"" AFMT_CLI_VERSION "\"", f);
    put_information_uri(f);
    fputs(",\"rules\":[", f);
    put_rules(f);
    fputs("]}},\"columnKind\":\"unicodeCodePoints\",\"results\":[", f);
}

void afmt_cli_sarif_end(FILE *f)
{
    fputs("\n]}]}\n", f);
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

static void put_location(afmt_cli_buf *b, afmt_cli_worker *w, const char *display,
                         const afmt_error *err)
{
    const char *file = w->archive ? w->archive : display;
    /* no region: an I/O error, an error of no byte (an archive member's
     * offsets are the archive's: its region is in the archive) */
    int whole = err->code == AFMT_E_IO || err->offset == AFMT_NO_OFFSET;
    uint64_t len;

    if (strcmp(file, "-") == 0)
        return; /* standard input has no URI */
    afmt_cli_buf_puts(b, ",\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":");
    if (is_url(file))
        afmt_cli_json_cstr(b, file);
    else
        put_path_uri(b, file);
    afmt_cli_buf_putc(b, '}');
    if (!whole) {
        afmt_cli_buf_puts(b, ",\"region\":{\"byteOffset\":");
        afmt_cli_buf_u64(b, err->offset);
        len = afmt_cli_span_length(&w->spans, err);
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
