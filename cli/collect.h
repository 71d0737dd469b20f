/* afmt CLI: the visitor afmt-validate passes to a validator.  It counts
 * the arrays and warnings of one input, keeps a description of the first
 * array, and lists them (as text lines with -v, JSON objects with --json)
 * in the worker's arrays / warns buffers, up to the AFMT_CLI_MAX_LISTED_*
 * limits.  Each array is also checked against a sidecar, when one was
 * loaded (sidecar.h). */
#ifndef AFMT_CLI_COLLECT_H
#define AFMT_CLI_COLLECT_H

#include "report.h"

/* Forget what was collected for the previous input. */
void afmt_cli_collect_begin(afmt_cli_worker *w);

/* vis := the collecting visitor, with w as its context. */
void afmt_cli_collect_visitor(afmt_cli_worker *w, afmt_visitor *vis);

#endif /* AFMT_CLI_COLLECT_H */
