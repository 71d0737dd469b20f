/* The reference interpreter (interp/) agrees with the generated validators:
 * for every format of the registry this program is linked with (the
 * shipped ones; tests/run.sh links it again with tests/specs' formats
 * too), its spec is loaded by the interpreter, and every file under the
 * directories given (default: corpus and tests) is validated by both
 * under each mode below; everything they report must be equal
 * (interp/afmt_agree.h).  One PASS or FAIL line per file (all formats,
 * all modes), then a summary.
 *
 *   test_interp_agree [DIR...]      run from the repository root
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "afmt.h"
#include "afmt_agree.h"
#include "testutil.h"

/* The modes: strict and lenient, value checks on and off, small limits,
 * no visitor, a visitor that stops at the first or second array, or at
 * the first or third key-value. */
typedef struct mode {
    const char *name;
    afmt_mode strictness;
    int check_values, small_limits;
    afmt_agree_how how;
} mode;

static const mode MODES[] = {
    {"strict", AFMT_STRICT, 1, 0, {1, 1, -1, 0}},
    {"lenient", AFMT_LENIENT, 1, 0, {1, 1, -1, 0}},
    {"strict no-values", AFMT_STRICT, 0, 0, {1, 0, -1, 0}},
    {"lenient no-values", AFMT_LENIENT, 0, 0, {1, 0, -1, 0}},
    {"strict small-limits", AFMT_STRICT, 1, 1, {1, 1, -1, 0}},
    {"lenient small-limits", AFMT_LENIENT, 0, 1, {1, 0, -1, 0}},
    {"no visitor", AFMT_STRICT, 1, 0, {0, 0, -1, 0}},
    {"stop at array 0", AFMT_LENIENT, 1, 0, {1, 0, 0, 0}},
    {"stop at array 1", AFMT_STRICT, 1, 0, {1, 0, 1, 0}},
    /* a visitor whose on_kv stops at the first or third key-value: the
     * same verdict, error and offset from both (typed metadata: GGUF,
     * tests/specs/directory's dirfmt) */
    {"stop at kv 1", AFMT_LENIENT, 1, 0, {1, 0, -1, 1}},
    {"stop at kv 3", AFMT_STRICT, 1, 0, {1, 1, -1, 3}},
};
#define NMODES (sizeof MODES / sizeof MODES[0])

static void options_of(const mode *m, uint64_t len, afmt_options *o)
{
    afmt_options_default(o);
    o->mode = m->strictness;
    o->check_values = m->check_values;
    if (m->small_limits) {
        o->limits.max_rank = 2;
        o->limits.max_items = 3;
        o->limits.max_header_bytes = 16;
        o->limits.max_decoded_bytes = 64;
        o->limits.max_total_bytes = len > 4 ? len - 1 : len + 1; /* too small for most, big enough for tiny ones */
    }
}

typedef struct run {
    const afmt_format *fmts[64];
    afmt_interp *ins[64];
    int nfmts;
    long files, passed, failed, compared;
} run;

/* Every format, every mode, one file: one line. */
static int check_buffer(run *r, int only, const uint8_t *buf, uint64_t len, const char *what);
static void check_file(run *r, const char *path)
{
    uint64_t len = 0;
    uint8_t *buf = fz_read_file(path, &len);
    if (!buf) {
        printf("FAIL %s: cannot read\n", path);
        r->failed++;
        return;
    }
    r->files++;
    if (check_buffer(r, -1, buf, len, path) != 0) {
        r->failed++;
    } else {
        printf("PASS %s\n", path);
        r->passed++;
    }
    free(buf);
}

/* Every format, every mode, one input in memory: 0 agree, else a FAIL
 * line (what names the input). */
static int check_buffer(run *r, int only, const uint8_t *buf, uint64_t len, const char *what)
{
    char why[2048];
    int i;
    size_t k;
    for (i = 0; i < r->nfmts; i++) {
        if (only >= 0 && i != only) continue;
        for (k = 0; k < NMODES; k++) {
            afmt_options o;
            options_of(&MODES[k], len, &o);
            r->compared++;
            if (afmt_agree(r->ins[i], r->fmts[i], buf, len, &o, &MODES[k].how, why, sizeof why) != 0) {
                printf("FAIL %s as %s (%s): %s\n", what, r->fmts[i]->name, MODES[k].name, why);
                return -1;
            }
        }
    }
    return 0;
}

/* What each format's own writer makes of a few arrays (so that a format
 * with no sample files, tests/specs', is compared on valid files too),
 * and its mutants: every prefix, every byte flipped and incremented. */
static void check_written(run *r)
{
    static const struct { afmt_dtype dtype; uint32_t rank; uint64_t dims[2]; } ARRAYS[] = {
        {AFMT_I32, 2, {2, 3}}, {AFMT_F64, 1, {3}}, {AFMT_U8, 0, {0}}, {AFMT_BOOL, 1, {5}}, {AFMT_U16, 2, {0, 4}},
    };
    static const uint8_t DATA[64] = {1, 0, 1, 1, 0, 7, 200, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
    int i;
    size_t k;
    for (i = 0; i < r->nfmts; i++) {
        for (k = 0; k < sizeof ARRAYS / sizeof ARRAYS[0]; k++) {
            const afmt_format *f = r->fmts[i];
            afmt_array a;
            afmt_sink sink;
            afmt_error err;
            uint8_t file[512], mutant[512];
            char what[256];
            uint64_t n, at;
            int bad = 0;
            afmt_array_init(&a, ARRAYS[k].dtype);
            a.rank = ARRAYS[k].rank;
            a.dims[0] = ARRAYS[k].dims[0];
            a.dims[1] = ARRAYS[k].dims[1];
            a.count = a.rank == 0 ? 1 : a.rank == 1 ? a.dims[0] : a.dims[0] * a.dims[1];
            a.nbytes = a.count * a.elsize;
            a.data = DATA;
            a.order = f->order;
            afmt_sink_buffer(&sink, file, sizeof file);
            if (f->can_write(&a, &err) != 0 || f->write(&a, 1, NULL, &sink, &err) != 0) continue;
            n = sink.written;
            snprintf(what, sizeof what, "%s's writer's %s[%u dims]", f->name, afmt_dtype_name(a.dtype), a.rank);
            r->files++;
            bad = check_buffer(r, i, file, n, what) != 0;
            for (at = 0; !bad && at < n; at++) {
                snprintf(what, sizeof what, "%s's writer's %s[%u dims] cut at %llu", f->name, afmt_dtype_name(a.dtype),
                         a.rank, (unsigned long long)at);
                bad = check_buffer(r, i, file, at, what) != 0;
                memcpy(mutant, file, (size_t)n);
                mutant[at] ^= 0xff;
                snprintf(what, sizeof what, "%s's writer's %s[%u dims], byte %llu flipped", f->name,
                         afmt_dtype_name(a.dtype), a.rank, (unsigned long long)at);
                if (!bad) bad = check_buffer(r, i, mutant, n, what) != 0;
                mutant[at] = (uint8_t)(file[at] + 1);
                snprintf(what, sizeof what, "%s's writer's %s[%u dims], byte %llu plus 1", f->name,
                         afmt_dtype_name(a.dtype), a.rank, (unsigned long long)at);
                if (!bad) bad = check_buffer(r, i, mutant, n, what) != 0;
            }
            snprintf(what, sizeof what, "%s's writer's %s[%u dims] and its mutants", f->name, afmt_dtype_name(a.dtype),
                     a.rank);
            if (bad) {
                r->failed++;
            } else {
                printf("PASS %s\n", what);
                r->passed++;
            }
        }
    }
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every regular file under dir, in name order (the output is stable). */
static void walk(run *r, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, i;
    if (!d) return;
    while ((e = readdir(d)) != NULL) {
        char **g;
        if (e->d_name[0] == '.') continue;
        g = realloc(names, sizeof *names * (n + 1));
        if (!g) break;
        names = g;
        names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (!names[n]) break;
        sprintf(names[n++], "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    for (i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISDIR(st.st_mode)) walk(r, names[i]);
        else if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) check_file(r, names[i]);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    static const char *const DEFAULT_DIRS[] = {"corpus", "tests"};
    run r;
    size_t i;
    memset(&r, 0, sizeof r);
    for (i = 0; afmt_formats[i] && r.nfmts < 64; i++) {
        afmt_interp *in;
        char why[512];
        if (afmt_interp_unsupported(afmt_formats[i]->spec, why, sizeof why)) {
            printf("SKIP interpreter: %s\n", why);
            continue;
        }
        in = afmt_interp_load(afmt_formats[i]->spec);
        if (!in) {
            printf("FAIL interpreter: cannot load %s\n", afmt_formats[i]->spec);
            r.failed++;
            continue;
        }
        r.fmts[r.nfmts] = afmt_formats[i];
        r.ins[r.nfmts++] = in;
    }
    check_written(&r);
    if (argc > 1)
        for (i = 1; i < (size_t)argc; i++) walk(&r, argv[i]);
    else
        for (i = 0; i < 2; i++) walk(&r, DEFAULT_DIRS[i]);
    printf("interpreter agreement: %ld inputs (files, and written files with their mutants) x %d formats x %zu modes: %ld comparisons; %ld agree, %ld differ\n",
           r.files, r.nfmts, NMODES, r.compared, r.passed, r.failed);
    for (i = 0; i < (size_t)r.nfmts; i++) afmt_interp_free(r.ins[i]);
    return r.failed ? 1 : 0;
}
