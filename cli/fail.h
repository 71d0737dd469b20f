/* afmt CLI: filling the one error type (afmt_error, afmt.h: plain data)
 * for what the tools find themselves: archives, inputs, options, writes.
 * The runtime fills its own errors; these are the CLI's, with the same
 * fields (code, field path, byte offset, message). */
#ifndef AFMT_CLI_FAIL_H
#define AFMT_CLI_FAIL_H

#include <stdint.h>
#include "afmt.h"

/* Fill err (may be NULL) and return -1: code, field (NULL: none), offset
 * (AFMT_NO_OFFSET: about no byte of an input) and a printf-style message.
 * err->format is kept, as the runtime keeps it. */
int afmt_cli_fail(afmt_error *err, afmt_code code, const char *field, uint64_t offset,
                  const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* err->format := name (NULL: none), cut to fit. */
void afmt_cli_error_set_format(afmt_error *err, const char *name);

#endif /* AFMT_CLI_FAIL_H */
