/* afmt CLI: afmt-validate --sarif, the verdicts as one SARIF 2.1.0 log.
 *
 * The log has one run.  Its tool.driver names afmt-validate and its
 * version and holds a rule per afmt error code (id = the code's name,
 * "truncated", with a friendly name, short and full descriptions, help,
 * and the man page as helpUri when there is one), as GitHub code
 * scanning's ingestion rules and the SARIF multitool's ask.  Each rejected input
 * and each warning is a result (level "error" / "warning") whose location
 * is the file (a relative URI, or a file: URI for an absolute path; the
 * archive for a member, which is named as a logical location) and the
 * byte region: byteOffset, and byteLength when the offending field's
 * width is known (field_span.h), never a guess.  A member's region is in
 * the archive's bytes: its offset plus the member's place when it is
 * stored as it is (np.savez), else the member's compressed bytes (its
 * offset is then in the message only); an error of no byte (no format
 * matches, an unreadable input) has none.  The
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
#include <time.h>
#include "afmt.h"

struct afmt_cli_worker;

typedef struct afmt_cli_sarif_rule {
    const char *name;       /* name: "InputCutShort" */
    const char *short_text; /* shortDescription.text */
    const char *help;       /* help.text; fullDescription.text is short_text, then help */
} afmt_cli_sarif_rule;

/* What the run's one invocation says (SARIF 3.20), written with the
 * footer: its exit status, and when it started and ended. */
typedef struct afmt_cli_sarif_invocation {
    int exit_code;          /* the exit status afmt-validate ends with */
    time_t start, end;
} afmt_cli_sarif_invocation;

/* The rule of an error code, or NULL for AFMT_OK and unknown codes. */
const afmt_cli_sarif_rule *afmt_cli_sarif_rule_of(afmt_code code);

/* {"version":"2.1.0",...,"runs":[{"tool":{...},"results":[  on f. */
void afmt_cli_sarif_begin(FILE *f);
/* The end of the results, then the run's invocations: one, with
 * executionSuccessful (every input was read: exit status 0 or 1),
 * exitCode, the start and end times (UTC) and the working directory as a
 * file: URI (GitHub code scanning makes absolute URIs relative to it);
 * then ]}]} and a newline. */
void afmt_cli_sarif_end(FILE *f, const afmt_cli_sarif_invocation *inv);

/* The results for one verdict into w's output: the error of a rejected
 * input (err; fmt may be NULL), then each warning collected (w->warns
 * holds them as afmt_error structs in SARIF mode).  A valid input without
 * warnings adds nothing.  Byte lengths come from w->spans. */
void afmt_cli_sarif_emit(struct afmt_cli_worker *w, const char *display,
                         const afmt_format *fmt, int valid, const afmt_error *err);

#endif /* AFMT_CLI_SARIF_H */
