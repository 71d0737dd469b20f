/* afmt fuzzing: what the fuzz targets share.
 *
 * Each target (fuzz_validate.c, fuzz_roundtrip.c, fuzz_convert.c) is one
 * LLVMFuzzerTestOneInput calling fz_target_run with its check.  The checks
 * themselves live in fuzz_checks.h, which tests/unit/test_fuzz_regressions.c
 * includes too.  Built with clang -fsanitize=fuzzer (libFuzzer), with
 * afl-clang-fast -fsanitize=fuzzer (AFL++'s libAFLDriver supplies main), or
 * with any C11 compiler and -DFZ_STANDALONE_MAIN (a main that runs the
 * files and folders named on the command line once each, to reproduce a
 * crash without a fuzzing engine).
 */
#ifndef AFMT_FUZZ_COMMON_H
#define AFMT_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

typedef enum fz_target {
    FZ_TARGET_VALIDATE,
    FZ_TARGET_ROUNDTRIP,
    FZ_TARGET_CONVERT
} fz_target;

/* Run one target's check on one input; prints and aborts on a bug, so the
 * engine records the input as a crash. */
void fz_target_run(fz_target target, const uint8_t *data, size_t size);

/* The libFuzzer entry point each target defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* AFMT_FUZZ_COMMON_H */
