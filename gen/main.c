/* afmt-gen: compile spec/NAME.json files into DIR/<format>.{h,c}, a
 * fuzzing dictionary DIR/fuzz/<format>.dict (emit_dict.c) and the
 * registry DIR/afmt_formats.c.
 *
 *   afmt-gen -o DIR SPEC.json...
 *   afmt-gen --check SPEC.json...
 *
 * There is no default DIR: the shipped generated/ is written only when
 * asked (`make regen` says -o generated), never by a run that forgot -o.
 * Every spec is checked before anything is written, so one bad spec
 * leaves DIR as it was and prints only its own diagnostics.
 *
 * Exit 0 on success, 1 if any spec has errors (each printed as
 * "spec/x.json: /json/path: message"), 2 on usage or I/O errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "emit.h"
#include "afmt.h" /* AFMT_VERSION_STRING, AFMT_RUNTIME_ABI */

/* The generator is a one-shot compiler: the spec models and the text it
 * renders live until exit, which frees them (as cc1 and re2c do), so there
 * is nothing to free one by one.  Under LeakSanitizer that would be
 * reported as leaks on every run, including the runs that build systems
 * make (make amalgamate, cmake/afmtGenerate.cmake, meson) in an ASan
 * build; this hook, which LSan looks up by name, says so once here rather
 * than in every caller's environment.  The runtime and the tools have no
 * such exemption: their leaks are errors in `make asan`. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AFMT_GEN_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(AFMT_GEN_UNDER_ASAN)
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void) { return 1; }
#endif

static void usage(FILE *out)
{
    fputs("usage: afmt-gen -o DIR SPEC.json...\n"
          "       afmt-gen --check SPEC.json...\n"
          "\n"
          "Compile afmt format descriptions (spec/LANGUAGE.md) into C validators,\n"
          "readers and writers.\n"
          "\n"
          "  -o DIR    write DIR/<format>.h, DIR/<format>.c, DIR/fuzz/<format>.dict\n"
          "            and DIR/afmt_formats.c, making DIR (and its parents) if\n"
          "            missing; required unless --check (no default: the shipped\n"
          "            generated/ is rewritten only by make regen, -o generated)\n"
          "  --check   check the specs and write nothing\n"
          "\n"
          "Every spec is checked before anything is written: if one has errors,\n"
          "nothing is written and only its diagnostics are printed.\n"
          "  --version   print afmt-gen's version and runtime ABI\n"
          "  -h, --help  show this help\n"
          "\n"
          "Exit status: 0 success, 1 a spec has errors, 2 usage or I/O error.\n",
          out);
}

/* mkdir -p: make dir and its missing parents.  0, or -1 after saying why
 * on stderr (the path that could not be made, and the system's reason). */
static int make_dirs(const char *dir)
{
    char *p = xstrdup(dir), *c;
    struct stat st;
    int rc = 0;
    for (c = p + 1; ; c++) {
        if (*c != '/' && *c != 0) continue;
        {
            char save = *c;
            *c = 0;
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                fprintf(stderr, "afmt-gen: cannot create directory %s: %s\n", p, strerror(errno));
                rc = -1;
            } else if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
                fprintf(stderr, "afmt-gen: cannot create directory %s: %s\n", p, "a file of that name is in the way");
                rc = -1;
            }
            *c = save;
        }
        if (rc != 0 || *c == 0) break;
    }
    free(p);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    const spec *x = *(const spec *const *)a, *y = *(const spec *const *)b;
    return strcmp(x->format, y->format);
}

/* Every spec through the whole generator, writing nothing: 0 when all
 * passed, else 1 (their diagnostics printed). */
static int check_all(spec **specs, int n)
{
    int i, failed = 0;
    for (i = 0; i < n; i++)
        if (spec_check(specs[i]) != 0 || emit_format(specs[i], NULL) != 0) failed = 1;
    return failed;
}

/* Write every spec's files and the registry into outdir (made if
 * missing): 0, or 2 after an I/O error was printed. */
static int write_all(spec **specs, int n, const char *outdir)
{
    int i;
    if (make_dirs(outdir) != 0) return 2;
    for (i = 0; i < n; i++)
        if (emit_format(specs[i], outdir) != 0 || emit_dict(specs[i], outdir) != 0) return 2;
    return emit_registry(specs, n, outdir) != 0 ? 2 : 0;
}

int main(int argc, char **argv)
{
    const char *outdir = NULL;
    int check_only = 0, i, n = 0, failed = 0;
    spec **specs = xcalloc((size_t)argc + 1, sizeof *specs);
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) { outdir = argv[++i]; continue; }
        if (strcmp(argv[i], "--check") == 0) { check_only = 1; continue; }
        if (strcmp(argv[i], "--version") == 0) {
            printf("afmt-gen %s (runtime ABI %d)\n", AFMT_VERSION_STRING, AFMT_RUNTIME_ABI);
            return 0;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) { usage(stdout); return 0; }
        if (argv[i][0] == '-') { fprintf(stderr, "afmt-gen: unknown option %s\n", argv[i]); usage(stderr); return 2; }
        {
            spec *s = spec_load(argv[i]);
            if (!s) { failed = 1; continue; }
            specs[n++] = s;
        }
    }
    if (n == 0 && !failed) { usage(stderr); return 2; }
    if (!outdir && !check_only) {
        fprintf(stderr, "afmt-gen: say where to write: -o DIR (the shipped formats: make regen), "
                        "or --check to write nothing\n");
        return 2;
    }
    qsort(specs, (size_t)n, sizeof *specs, by_name);
    for (i = 0; i + 1 < n; i++)
        if (strcmp(specs[i]->format, specs[i + 1]->format) == 0) {
            fprintf(stderr, "%s: /format: format '%s' is also defined by %s\n", specs[i + 1]->path, specs[i]->format, specs[i]->path);
            failed = 1;
        }
    if (check_all(specs, n) != 0) failed = 1;
    if (failed) {
        if (!check_only) fprintf(stderr, "afmt-gen: nothing written to %s: a spec has errors\n", outdir);
        return 1;
    }
    return check_only ? 0 : write_all(specs, n, outdir);
}
