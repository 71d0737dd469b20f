/* Golden cases: every tests/<format>/<case>/ holds `input` and `expect`
 * (written by tests/golden/make_cases.py); the generated validator must give
 * exactly the expected verdict, code, field path, offset, message fragment
 * and number of warnings.
 * A format whose spec is still being written may have its cases committed
 * first, with a file tests/<format>/PENDING saying why: while the library
 * has no such format, its cases are skipped with one SKIP line quoting
 * that file; as soon as the format exists they run, PENDING or not. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "afmt.h"
#include "check.h"
#include "testutil.h"

typedef struct expect {
    char format[64], mode[16], valid[8], code[32], field[160], contains[256];
    long long offset;
    int warnings; /* -1: not checked */
} expect;

static int read_expect(const char *path, expect *e)
{
    FILE *f = fopen(path, "r");
    char line[512];
    memset(e, 0, sizeof *e);
    e->offset = -1;
    e->warnings = -1;
    if (!f) return -1;
    while (fgets(line, sizeof line, f)) {
        char *v = strchr(line, ':');
        size_t n;
        if (line[0] == '#' || !v) continue;
        *v++ = 0;
        while (*v == ' ') v++;
        n = strlen(v);
        while (n && (v[n - 1] == '\n' || v[n - 1] == '\r')) v[--n] = 0;
        if (!strcmp(line, "format")) snprintf(e->format, sizeof e->format, "%s", v);
        else if (!strcmp(line, "mode")) snprintf(e->mode, sizeof e->mode, "%s", v);
        else if (!strcmp(line, "valid")) snprintf(e->valid, sizeof e->valid, "%s", v);
        else if (!strcmp(line, "code")) snprintf(e->code, sizeof e->code, "%s", v);
        else if (!strcmp(line, "field")) snprintf(e->field, sizeof e->field, "%s", v);
        else if (!strcmp(line, "message-contains")) snprintf(e->contains, sizeof e->contains, "%s", v);
        else if (!strcmp(line, "offset")) e->offset = atoll(v);
        else if (!strcmp(line, "warnings")) e->warnings = atoi(v);
    }
    fclose(f);
    return 0;
}


static void count_warning(void *ctx, const afmt_error *w)
{
    (void)w;
    (*(int *)ctx)++;
}

/* The numbers of a truncation message are the real ones: "needs C
 * elements of W bytes (B bytes)" has B = C * W; "needs N byte(s)" says
 * "byte" exactly when N is 1; the need exceeds what is left; and "only L
 * left" (not "left in region ...") is the input's length minus the
 * offset.  Checked on every truncated case, with numbers recomputed from
 * the input, so a saturated or made-up count cannot pass. */
static int truncation_numbers_true(const char *msg, uint64_t len, uint64_t offset)
{
    unsigned long long c, w, b, n, left;
    const char *p = strstr(msg, "needs "), *only = strstr(msg, ", only "), *el;
    char unit[16];
    int in_region;

    if (!p || !only || sscanf(only, ", only %llu left", &left) != 1)
        return 1; /* not a "needs ..., only ... left" message */
    in_region = strncmp(strstr(only, " left") + 5, " in region", 10) == 0;
    if (!in_region && left != (offset <= len ? len - offset : 0))
        return 0;
    if (in_region && left >= (offset <= len ? len - offset : 0) + 1)
        return 0;
    el = strstr(p, " element");
    if (el && el < only && sscanf(p, "needs %llu element", &c) == 1) {
        const char *of = strstr(p, " of "), *paren = strstr(p, " (");
        int plural_c = strncmp(el, " elements", 9) == 0;
        if (!of || !paren || (c == 1) == plural_c || sscanf(of, " of %llu", &w) != 1) return 0;
        if (strncmp(paren, " (more than 2^64 bytes)", 23) == 0)
            return c != 0 && w > UINT64_MAX / c;
        if (sscanf(paren, " (%llu", &b) != 1 || (c != 0 && w > UINT64_MAX / c)) return 0;
        return b == c * w && b > left;
    }
    if (sscanf(p, "needs %llu %15s", &n, unit) == 2 && (!strcmp(unit, "byte") || !strcmp(unit, "bytes")))
        return (n == 1) == (strcmp(unit, "byte") == 0) && n > left;
    return 1;
}

static int names_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void run_case(const char *dir, const char *label)
{
    char p[1300], name[2400], desc[600];
    expect e;
    uint64_t len = 0;
    uint8_t *buf;
    const afmt_format *fmt;
    afmt_options opt;
    afmt_visitor vis;
    afmt_error err;
    int warnings = 0, rc;
    snprintf(p, sizeof p, "%s/expect", dir);
    if (read_expect(p, &e) != 0) return;
    snprintf(p, sizeof p, "%s/input", dir);
    buf = fz_read_file(p, &len);
    snprintf(name, sizeof name, "golden %s: input readable", label);
    CHECK(name, buf != NULL);
    if (!buf) return;
    fmt = afmt_format_by_name(e.format);
    snprintf(name, sizeof name, "golden %s: format %s exists", label, e.format);
    CHECK(name, fmt != NULL);
    if (!fmt) { free(buf); return; }
    afmt_options_default(&opt);
    if (!strcmp(e.mode, "lenient")) opt.mode = AFMT_LENIENT;
    memset(&vis, 0, sizeof vis);
    vis.ctx = &warnings;
    vis.on_warning = count_warning;
    rc = fmt->validate(buf, len, &opt, &vis, &err);
    afmt_error_describe(&err, desc, sizeof desc);
    snprintf(name, sizeof name, "golden %s: %s (got %s%s%s)", label, !strcmp(e.valid, "yes") ? "valid" : "invalid",
             rc == 0 ? "valid" : "invalid", rc == 0 ? "" : ": ", rc == 0 ? "" : desc);
    CHECK(name, (rc == 0) == !strcmp(e.valid, "yes"));
    if (rc != 0) {
        if (e.code[0]) {
            snprintf(name, sizeof name, "golden %s: code %s (got %s)", label, e.code, afmt_code_name(err.code));
            CHECK(name, !strcmp(afmt_code_name(err.code), e.code));
        }
        if (e.field[0]) {
            snprintf(name, sizeof name, "golden %s: field %s (got %s)", label, e.field, err.field);
            CHECK(name, !strcmp(err.field, e.field));
        }
        if (e.offset >= 0) {
            snprintf(name, sizeof name, "golden %s: offset %lld (got %llu)", label, e.offset, (unsigned long long)err.offset);
            CHECK(name, err.offset == (uint64_t)e.offset);
        }
        if (e.contains[0]) {
            snprintf(name, sizeof name, "golden %s: message has \"%s\" (got \"%s\")", label, e.contains, err.message);
            CHECK(name, strstr(err.message, e.contains) != NULL);
        }
        if (err.code == AFMT_E_TRUNCATED) {
            snprintf(name, sizeof name, "golden %s: the numbers in \"%s\" are the input's", label, err.message);
            CHECK(name, truncation_numbers_true(err.message, len, err.offset));
        }
        snprintf(name, sizeof name, "golden %s: error names its format", label);
        CHECK(name, !strcmp(err.format, e.format));
    }
    if (e.warnings >= 0) {
        snprintf(name, sizeof name, "golden %s: %d warning(s) (got %d)", label, e.warnings, warnings);
        CHECK(name, warnings == e.warnings);
    }
    free(buf);
}

/* 1 (after a SKIP line) when the library has no format `name` and its
 * folder `fdir` says why in a PENDING file; 0 when the cases must run. */
static int pending_format(const char *fdir, const char *name)
{
    char p[700], why[200] = "";
    FILE *f;
    size_t n;
    if (afmt_format_by_name(name) != NULL) return 0;
    snprintf(p, sizeof p, "%s/PENDING", fdir);
    f = fopen(p, "r");
    if (!f) return 0;
    n = fread(why, 1, sizeof why - 1, f);
    fclose(f);
    why[n] = 0;
    why[strcspn(why, "\n")] = 0;
    printf("SKIP golden %s: no format %s in this build yet (%s: %s)\n", name, name, p, why);
    return 1;
}

int main(int argc, char **argv)
{
    const char *root = argc > 1 ? argv[1] : "tests";
    DIR *d = opendir(root);
    struct dirent *de;
    char *fmts[256];
    int nf = 0, i, total = 0;
    if (!d) { printf("FAIL golden: cannot open %s\n", root); return 1; }
    while ((de = readdir(d)) != NULL && nf < 256)
        if (de->d_name[0] != '.') fmts[nf++] = strdup(de->d_name);
    closedir(d);
    qsort(fmts, (size_t)nf, sizeof *fmts, names_cmp);
    for (i = 0; i < nf; i++) {
        char fdir[600];
        DIR *cd;
        char *cases[4096];
        int nc = 0, j;
        snprintf(fdir, sizeof fdir, "%s/%s", root, fmts[i]);
        if (pending_format(fdir, fmts[i])) { free(fmts[i]); continue; }
        cd = opendir(fdir);
        if (!cd) { free(fmts[i]); continue; }
        while ((de = readdir(cd)) != NULL && nc < 4096) {
            char ep[1200];
            FILE *f;
            if (de->d_name[0] == '.') continue;
            snprintf(ep, sizeof ep, "%s/%s/expect", fdir, de->d_name);
            f = fopen(ep, "r");
            if (!f) continue;
            fclose(f);
            cases[nc++] = strdup(de->d_name);
        }
        closedir(cd);
        qsort(cases, (size_t)nc, sizeof *cases, names_cmp);
        for (j = 0; j < nc; j++) {
            char cdir[1200], label[700];
            snprintf(cdir, sizeof cdir, "%s/%s", fdir, cases[j]);
            snprintf(label, sizeof label, "%s/%s", fmts[i], cases[j]);
            run_case(cdir, label);
            free(cases[j]);
            total++;
        }
        free(fmts[i]);
    }
    CHECK("golden: found cases", total > 0);
    CHECK_DONE();
}
