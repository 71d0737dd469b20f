/* afmt CLI: the settings of one afmt-validate (or afmt info) run, from
 * its options.  Read-only once the checks start, shared by all workers. */
#ifndef AFMT_CLI_CONFIG_H
#define AFMT_CLI_CONFIG_H

#include <stdint.h>
#include "afmt.h"
#include "progress.h"

typedef struct afmt_cli_config {
    afmt_options opt;            /* mode, limits (max_total_bytes = file_limit) */
    const afmt_format *forced;   /* --format or --spec, or NULL to detect */
    const struct afmt_interp *interp; /* --spec: its interpreter (forced is its
                                 * format: cli/spec.h), else NULL */
    int verbose;                 /* -v: arrays and warnings on their own lines */
    int quiet;                   /* -q: only invalid inputs and errors */
    int json;                    /* --json: one object per input */
    int sarif;                   /* --sarif: one SARIF log (sarif.h) */
    /* --sarif: set once the first result is written (out.h); the target
     * changes while the checks run, the pointer does not. */
    int *list_started;
    int recursive;               /* -r */
    unsigned jobs;               /* -j; 0: not given (one per CPU) */
    uint64_t file_limit;         /* --max-bytes for regular files */
    uint64_t stream_limit;       /* for a stream read whole (a compressed shard's head) */
    afmt_cli_progress *progress; /* the progress line, or NULL (progress.h) */
} afmt_cli_config;

/* Defaults: strict, text, jobs 0 (one per CPU), no file limit beyond the
 * runtime's, 1 GiB for streams. */
void afmt_cli_config_default(afmt_cli_config *cfg);

#endif /* AFMT_CLI_CONFIG_H */
