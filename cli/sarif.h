/* afmt CLI: afmt-validate --sarif, the verdicts as one SARIF 2.1.0 log.
 *
 * The log has one run.  Its tool.driver names afmt-validate and its
 * version and holds a rule per afmt error code (id = the code's name,
 * "truncated", with a short description and help).  Each rejected input
 * and each warning is a result (level "error" / "warning") whose location
 * is the file (a relative URI, or a file: URI for an absolute path; the
 * archive for a member, which is named as a logical location) and, for a
 * file of its own, the byte region: byteOffset, and byteLength when the
 * offending field's width is known (field_span.h), never a guess.  The
 * message holds the format, the field path and the reason.  A valid input
 * adds nothing.
 *
 * Streaming: the header is written before the first check and the footer
 * after the last, and each result in between is a fragment that starts
 * with AFMT_CLI_LIST_MARK; the ordered output (out.c) writes a comma for
 * every mark but the first, so the log stays one valid JSON document in
 * bounded memory whatever the number of inputs.
 */
#ifndef AFMT_CLI_SARIF_H
#define AFMT_CLI_SARIF_H

#include <stdio.h>
#include "afmt.h"

struct afmt_cli_worker;

typedef struct afmt_cli_sarif_rule {
    const char *short_text; /* shortDescription.text */
    const char *help;       /* help.text */
} afmt_cli_sarif_rule;

/* The rule of an error code, or NULL for AFMT_OK and unknown codes. */
const afmt_cli_sarif_rule *afmt_cli_sarif_rule_of(afmt_code code);

/* {"version":"2.1.0",...,"runs":[{"tool":{...},"results":[  on f. */
void afmt_cli_sarif_begin(FILE *f);
/* ]}]} and a newline. */
void afmt_cli_sarif_end(FILE *f);

/* The results for one verdict into w's output: the error of a rejected
 * input (err; fmt may be NULL), then each warning collected (w->warns
 * holds them as afmt_error structs in SARIF mode).  A valid input without
 * warnings adds nothing.  Byte lengths come from w->spans. */
void afmt_cli_sarif_emit(struct afmt_cli_worker *w, const char *display,
                         const afmt_format *fmt, int valid, const afmt_error *err);

#endif /* AFMT_CLI_SARIF_H */
