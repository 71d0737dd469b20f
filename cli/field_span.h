/* afmt CLI: the byte span of the field an error names.
 *
 * afmt_error carries a field path and the byte offset of the problem, not
 * the field's width.  The width is in the spec, and validators tell a
 * field visitor (afmt_field_visitor) each header field they read, with
 * its offset and width, before checking it.  A recorder keeps the last
 * AFMT_CLI_SPAN_KEEP fields of a check; afterwards an error that names one
 * of them (or an element "name[k]" of an integer array field) gets that
 * field's exact length.  An error on anything else (a field cut short
 * before it was read, a payload element) has no known length: the caller
 * leaves it out rather than guess.
 *
 * Thread-safety: a recorder belongs to one worker.
 */
#ifndef AFMT_CLI_FIELD_SPAN_H
#define AFMT_CLI_FIELD_SPAN_H

#include <stdint.h>
#include "afmt.h"

#define AFMT_CLI_SPAN_KEEP 16

typedef struct afmt_cli_span {
    char field[AFMT_FIELD_MAX];
    uint64_t offset;
    uint64_t width; /* of one element for an integer array field */
    uint64_t count; /* elements: 1 unless an integer array field */
} afmt_cli_span;

typedef struct afmt_cli_span_rec {
    afmt_cli_span recent[AFMT_CLI_SPAN_KEEP]; /* a ring */
    unsigned next, used;
} afmt_cli_span_rec;

/* Forget the fields of the previous check. */
void afmt_cli_span_begin(afmt_cli_span_rec *r);

/* *fv := a field visitor that records into r. */
void afmt_cli_span_visitor(afmt_cli_span_rec *r, afmt_field_visitor *fv);

/* The length in bytes of the field err names at err->offset, or 0 when
 * it is not known. */
uint64_t afmt_cli_span_length(const afmt_cli_span_rec *r, const afmt_error *err);

#endif /* AFMT_CLI_FIELD_SPAN_H */
