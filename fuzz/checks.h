/* afmt fuzzing: the checks the fuzz targets run (fuzz/checks.c).
 *
 * Linked into every fuzz target (fuzz/harness.c) and into
 * tests/unit/test_fuzz_regressions.c, so a file that once made a fuzzer fail
 * is re-checked by `make test` with the very same code.  Nothing here names
 * a format: the checks walk the registry (afmt_formats[]) or take one format
 * from it, so a format added to spec/ is fuzzed with no change here.
 *
 *   fz_check_validate   strict / lenient / tiny limits / no value checks;
 *                       every view handed to the visitor is sane and decodes
 *                       (in both orders, which must agree); the same input
 *                       as a stream (validate_src) gives the same verdict;
 *                       the reference interpreter of the format's spec
 *                       (interp/, when the context has it) reports exactly
 *                       what the generated validator reports
 *   fz_check_roundtrip  valid in F -> plain -> write F -> validate -> same
 *                       values, names, trailer; the rewrite is a fixed point
 *   fz_check_convert    valid in A -> plain in B's order -> write B (when B's
 *                       can_write accepts it) -> validate B -> the same value
 *                       at the same logical index
 * fuzz/README.md lists every check and every tolerated refusal.
 *
 * A "bug" is a broken documented contract.  fz_bug() records it in the
 * fz_ctx; with abort_on_bug (fuzz targets) it prints it and aborts, so the
 * engine saves the input.  No global state: everything a check keeps is in
 * the fz_ctx and on the stack; the functions are thread-safe for distinct
 * contexts.  Allocation: the checks allocate and free their own scratch.
 */
#ifndef AFMT_FUZZ_CHECKS_H
#define AFMT_FUZZ_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include "afmt_internal.h"

struct afmt_interp;

typedef struct fz_ctx {
    const char *target;   /* "validate", "roundtrip", "convert", "all" */
    const char *input;    /* file name for messages, or NULL */
    int abort_on_bug;     /* fuzz targets: print and abort() at the first bug */
    int quiet;            /* do not print bugs (the caller reports them) */
    /* Known, unfixed bugs to step over while fuzzing on: '|'-separated
     * substrings of bug messages (AFMT_FUZZ_IGNORE); NULL for none. */
    const char *ignore;
    /* Stream checks (validate): 1 runs the buffer-vs-stream comparisons
     * (a window holding the whole input, and a 512-byte window that must
     * slide) on this input; 0 leaves them to another target (the stream_*
     * targets run them on every input; see fuzz/README.md). */
    int streams;
    /* Validate: views whose plain size is above this are checked but not
     * decoded (1 MiB, the most any check decodes, unless lowered: the
     * per-format validate targets lower it, see fuzz/README.md). */
    uint64_t max_decode;
    /* The reference interpreter of each format's spec, by index in
     * afmt_formats[] (an entry may be NULL), or NULL for none: a second
     * oracle, compared with the generated validator on every input
     * (interp/afmt_agree.h).  Owned by the caller, who loads it once. */
    const struct afmt_interp *const *interps;
    unsigned long agreed;      /* (format, mode) interpreter comparisons that agreed */
    unsigned ignored;     /* bugs matched by ignore */
    unsigned bugs;        /* bugs found so far */
    char first[1024];     /* the first bug, for the caller's report */
    /* what the checks got to do (the unit test asserts seeds get this far) */
    unsigned long validated;   /* (format, mode) validations that passed */
    unsigned long decoded;     /* views decoded to plain */
    unsigned long roundtrips;  /* same-format rewrites compared */
    unsigned long conversions; /* cross-format writes compared */
} fz_ctx;

/* Zero *c and set its target name (not copied: a string that outlives c)
 * and abort_on_bug; streams is on, max_decode 1 MiB. */
void fz_ctx_init(fz_ctx *c, const char *target, int abort_on_bug);

/* The validate checks on buf[0..len) as format `only`, or as every format
 * of the registry when only is NULL (then afmt_format_detect too). */
void fz_check_validate(fz_ctx *c, const afmt_format *only, const uint8_t *buf, uint64_t len);

/* The validate checks without the stream comparisons, then only those:
 * together exactly fz_check_validate (the stream targets run the second). */
void fz_check_streams(fz_ctx *c, const afmt_format *only, const uint8_t *buf, uint64_t len);

/* The round-trip checks, as `only` or as every format in which the input
 * is valid (strict, else lenient). */
void fz_check_roundtrip(fz_ctx *c, const afmt_format *only, const uint8_t *buf, uint64_t len);

/* The cross-format checks: every format A in which the input is valid,
 * each of its first 8 logical arrays into every other format B. */
void fz_check_convert(fz_ctx *c, const uint8_t *buf, uint64_t len);

/* All three over every format, as the regression test runs them. */
void fz_check_all(fz_ctx *c, const uint8_t *buf, uint64_t len);

/* The fuzz targets' options: small limits (a fuzz input is at most 64 KiB). */
void fz_options(afmt_options *o, afmt_mode mode);

/* "FIELD at offset N: MESSAGE" of an error into out; returns out. */
const char *fz_describe(const afmt_error *e, char *out, size_t size);

#endif /* AFMT_FUZZ_CHECKS_H */
