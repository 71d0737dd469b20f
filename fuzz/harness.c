/* afmt fuzzing: the one fuzz target, compiled once per (target, format).
 *
 *   -DFZ_TARGET=FZ_VALIDATE | FZ_ROUNDTRIP | FZ_STREAM | FZ_CONVERT
 *   -DFZ_FORMAT=name        one format of the registry (a bare word, e.g.
 *                           -DFZ_FORMAT=futhark); without it, every format
 *
 * fuzz/build.sh builds validate_<format>, roundtrip_<format> and
 * stream_<format> for every format the registry lists (so a format added to
 * spec/ gets its targets with no change here), plus validate, roundtrip and
 * convert over every format.  What each runs is in fuzz/checks.c.
 *
 * Built with clang -fsanitize=fuzzer (libFuzzer), afl-clang-fast
 * -fsanitize=fuzzer (AFL++'s libAFLDriver supplies main), $LIB_FUZZING_ENGINE
 * (OSS-Fuzz / ClusterFuzzLite), or any C11 compiler with
 * -DFZ_STANDALONE_MAIN: a main that runs the files and folders named on the
 * command line once each (reproducing without an engine; also the replay
 * driver for profiling).
 *
 * Environment, read per input: AFMT_FUZZ_KEEP_GOING=1 prints every bug of
 * an input and carries on (reproducing by hand) instead of aborting at the
 * first; AFMT_FUZZ_IGNORE="a|b" steps over bugs whose message contains a or
 * b (fuzzing on past a known, unfixed bug).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "afmt_interp.h"
#include "fz_specs.h"

#define FZ_VALIDATE 1
#define FZ_ROUNDTRIP 2
#define FZ_STREAM 3
#define FZ_CONVERT 4

#ifndef FZ_TARGET
#error "compile with -DFZ_TARGET=FZ_VALIDATE (or FZ_ROUNDTRIP, FZ_STREAM, FZ_CONVERT)"
#endif

#if FZ_TARGET == FZ_VALIDATE
#define FZ_TARGET_NAME "validate"
#elif FZ_TARGET == FZ_ROUNDTRIP
#define FZ_TARGET_NAME "roundtrip"
#elif FZ_TARGET == FZ_STREAM
#define FZ_TARGET_NAME "stream"
#else
#define FZ_TARGET_NAME "convert"
#endif

#define FZ_STR2(x) #x
#define FZ_STR(x) FZ_STR2(x)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__asan_default_options(void);

/* ASan's defaults for every run of a target, however it is started (an
 * ASAN_OPTIONS in the environment still wins).  A 16 MiB quarantine instead
 * of 256 MiB: inputs are at most 64 KiB, so a freed block is still caught
 * for thousands of inputs, and the process stays near 100 MB instead of
 * growing to ~500 MB (the 512 MB -rss_limit_mb) and spending its time
 * recycling quarantined memory (measured: 34,000 -> 43,000 exec/s). */
const char *__asan_default_options(void)
{
    return "quarantine_size_mb=16:detect_leaks=1";
}

/* The format this target fuzzes, or NULL for all of them. */
static const afmt_format *fz_target_format(void)
{
#ifdef FZ_FORMAT
    const afmt_format *f = afmt_format_by_name(FZ_STR(FZ_FORMAT));
    if (!f) {
        fprintf(stderr, "afmt-fuzz: no format \"%s\" in the registry\n", FZ_STR(FZ_FORMAT));
        abort();
    }
    return f;
#else
    return NULL;
#endif
}

/* The reference interpreter of every format's spec (the spec's text is
 * in this binary: fz_specs.c, written by fuzz/build.sh), or only of the
 * one format a per-format target fuzzes (the checks ask for no other),
 * loaded once and kept for the process: loading costs a thousand inputs'
 * time, and libFuzzer's entry point has no context to keep it in, so this
 * one cache is process-wide (read-only once filled; the targets are
 * single-threaded).  A spec that does not load leaves its entry NULL: the
 * checks then skip the comparison for that format. */
static const afmt_interp *const *fz_interps(const afmt_format *only)
{
    static const afmt_interp *interps[64];
    static int loaded;
    size_t i;
    if (!loaded) {
        loaded = 1;
        for (i = 0; i < afmt_format_count && i < 64; i++) {
            const char *text = afmt_formats[i] && (!only || afmt_formats[i] == only)
                                   ? fz_spec_text(afmt_formats[i]->name) : NULL;
            interps[i] = text ? afmt_interp_load_text(afmt_formats[i]->spec, text) : NULL;
        }
    }
    return interps;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Called once by libFuzzer and AFL++'s driver before the first input: the
 * interpreters are loaded here, so that their loading (the spec parsed,
 * checked and compiled: 0.1 s of CPU for all fourteen, seconds of wall
 * time for a process at nice 19 on a loaded machine) is not charged to the
 * first input, which libFuzzer's -timeout then called a hang (the empty
 * input, in the first campaign on torch).  The replay main loads them at
 * its first input instead. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    (void)fz_interps(fz_target_format());
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *keep = getenv("AFMT_FUZZ_KEEP_GOING");
    const afmt_format *only = fz_target_format();
    fz_ctx c;

    fz_ctx_init(&c, FZ_TARGET_NAME, !(keep && keep[0] == '1'));
    c.ignore = getenv("AFMT_FUZZ_IGNORE");
    c.interps = fz_interps(only);
#if FZ_TARGET == FZ_VALIDATE
    /* The per-format target leaves the stream comparisons to stream_<fmt>
     * (they cost most per input); the all-format target keeps them. */
    c.streams = only == NULL;
    /* ... and decoding views of more than 64 KiB (a 100-byte DAPHNE file
     * may hold a million zeros: decoding and comparing both orders took
     * 90% of the time) to the all-format validate target and roundtrip_*. */
    if (only)
        c.max_decode = (uint64_t)64 << 10;
    fz_check_validate(&c, only, data, size);
#elif FZ_TARGET == FZ_ROUNDTRIP
    fz_check_roundtrip(&c, only, data, size);
#elif FZ_TARGET == FZ_STREAM
    fz_check_streams(&c, only, data, size);
#elif FZ_TARGET == FZ_CONVERT
    (void)only;
    fz_check_convert(&c, data, size);
#else
#error "unknown FZ_TARGET"
#endif
    return 0;
}

#ifdef FZ_STANDALONE_MAIN
/* Reproducer / replay main: run every file (or every file in a folder)
 * once; with AFMT_FUZZ_REPEAT=N, N times (profiling). */
#include <sys/stat.h>

#include "inputs.h"

static int run_file(const char *path, long repeat)
{
    uint64_t len;
    uint8_t *buf = fz_read_file(path, &len);
    long i;

    if (!buf) {
        perror(path);
        return 1;
    }
    if (repeat == 1)
        fprintf(stderr, "running %s (%llu bytes)\n", path, (unsigned long long)len);
    for (i = 0; i < repeat; i++)
        LLVMFuzzerTestOneInput(buf, (size_t)len);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    const char *rep = getenv("AFMT_FUZZ_REPEAT");
    long repeat = rep ? strtol(rep, NULL, 10) : 1;
    int i, rc = 0;
    struct stat st;

    if (repeat < 1)
        repeat = 1;
    for (i = 1; i < argc; i++) {
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            char **names, path[4096];
            size_t n = fz_list_dir(argv[i], FZ_REGULAR_FILES, NULL, &names), k;
            for (k = 0; k < n; k++) {
                snprintf(path, sizeof path, "%s/%s", argv[i], names[k]);
                rc |= run_file(path, repeat);
            }
            fz_free_names(names, n);
        } else {
            rc |= run_file(argv[i], repeat);
        }
    }
    return rc;
}
#endif
