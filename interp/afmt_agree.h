/* afmt reference interpreter: does it agree with a generated validator?
 *
 * For the agreement test (tests/unit/test_interp_agree.c) and the fuzz
 * targets (fuzz/checks.c): validate one input with a format's generated
 * validator and with the interpreter of its spec, under the same options,
 * and compare everything each reports -- the fields a field visitor is
 * told of, every array view (dtype, shape, order, encoding, offset, name,
 * data and index pointers as offsets, tiles, ...), warnings, trailer and
 * metadata calls, typed key-values (on_kv: key bytes, value recursively),
 * the verdict and the whole afmt_error.
 *
 * Thread-safety: as the validators (reentrant). */
#ifndef AFMT_AGREE_H
#define AFMT_AGREE_H

#include <stddef.h>
#include <stdint.h>
#include "afmt_interp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the runs are given beyond the options. */
typedef struct afmt_agree_how {
    int visit;    /* give a visitor (else NULL: the verdict only) */
    int fields;   /* give a field visitor too */
    int stop_at;  /* the visitor's on_array stops at this array (-1: never) */
    int stop_kv;  /* its on_kv stops at the stop_kv-th key-value (1: the first;
                     0, as a zeroed struct leaves it: never) */
} afmt_agree_how;

/* 0 when the generated validator of fmt and the interpreter in report the
 * same for buf[0..len); 1 when they differ (why: the first line that
 * differs, "generated: ... | interpreter: ..."); -1 when the comparison
 * could not be made (out of memory; why says so).  Allocates the two
 * transcripts, freed before returning. */
int afmt_agree(const afmt_interp *in, const afmt_format *fmt, const uint8_t *buf, uint64_t len,
               const afmt_options *opt, const afmt_agree_how *how, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif
#endif
