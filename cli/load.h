/* afmt CLI: opening one input and finding its format, for the afmt
 * commands that work on a single file (dump, convert). */
#ifndef AFMT_CLI_LOAD_H
#define AFMT_CLI_LOAD_H

#include "afmt.h"
#include "visitor.h"
#include "buf.h"
#include "input.h"

typedef struct afmt_cli_loaded {
    const char *path;
    /* The file opened: path, or for "ARCHIVE:MEMBER" (member_pick.h) a
     * copy of ARCHIVE (file_copy, owned), member then pointing at MEMBER
     * in path; after a run that found it, member_fmt and member_size are
     * the member's (what afmt info shows). */
    const char *file;
    char *file_copy;
    const char *member;
    const afmt_format *member_fmt;
    uint64_t member_size;
    afmt_cli_input in;
    afmt_cli_buf stream; /* holds the bytes when read from a pipe */
    const afmt_format *fmt;
    const char *prog;    /* "afmt convert": prefixes the messages, or NULL */
    /* --spec: the interpreter that fmt belongs to (cli/spec.h), set by the
     * caller after afmt_cli_load; NULL otherwise */
    const struct afmt_interp *interp;
    /* a URL's file (load_url.h), or NULL */
    struct afmt_cli_remote_file *remote;
    /* A URL opened bounded is validated again from the start after each
     * range fetched: restart(restart_ctx), if set by the caller, is called
     * before each run to forget what the last one reported. */
    void (*restart)(void *restart_ctx);
    void *restart_ctx;
} afmt_cli_loaded;

/* Open path ("-": standard input; http:// or https://: a URL, see
 * load_url.h), find its format (forced may be NULL).
 * prog ("afmt convert"; NULL for none) begins each message printed about
 * l, here and in afmt_cli_loaded_validate.  Prints the reason and returns an exit status (1 no format / too large,
 * 2 I/O) on failure, 0 on success.  format_option is the command's option
 * that names a format ("--format", "--from"), for the hint given when no
 * format is detected (closest.h). */
int afmt_cli_load(afmt_cli_loaded *l, const char *prog, const char *path,
                  const afmt_format *forced, const char *format_option);
/* (afmt_cli_load and afmt_cli_load_bounded watch a mapped input, sigbus.h:
 * a SIGBUS in it outside a guard, until afmt_cli_loaded_close, ends the
 * process with "PROG: PATH: error: the file was cut short ..." and exit
 * status 2, the temporary outputs removed.) */

/* Why afmt_cli_load_quiet failed: the error and the format it concerns
 * (NULL when none is detected and none comes close). */
typedef struct afmt_cli_load_failure {
    afmt_error err;
    const afmt_format *fmt;
    int closest; /* fmt is only the closest match */
} afmt_cli_load_failure;

/* afmt_cli_load that prints nothing: on failure (the same exit statuses)
 * *why says what afmt_cli_load would have printed. */
int afmt_cli_load_quiet(afmt_cli_loaded *l, const char *path, const afmt_format *forced,
                        const char *format_option, afmt_cli_load_failure *why);

/* afmt_cli_load_quiet for a command that needs the input once and no
 * array's data (afmt info): a pipe is not read whole, only its head (for
 * detection); afmt_cli_loaded_run then validates it through a window of
 * AFMT_CLI_STREAM_WINDOW bytes, so memory stays bounded whatever its
 * length.  Files are mapped as afmt_cli_load_quiet maps them. */
int afmt_cli_load_quiet_bounded(afmt_cli_loaded *l, const char *path, const afmt_format *forced,
                                const char *format_option, afmt_cli_load_failure *why);

/* afmt_cli_load, a pipe opened bounded as afmt_cli_load_quiet_bounded
 * opens it. */
int afmt_cli_load_bounded(afmt_cli_loaded *l, const char *prog, const char *path,
                          const afmt_format *forced, const char *format_option);

/* The format and size afmt info shows for l: the member's, after a run
 * that found the one asked for, else l's own. */
const afmt_format *afmt_cli_loaded_format(const afmt_cli_loaded *l);
uint64_t afmt_cli_loaded_size(const afmt_cli_loaded *l);

/* Validate l once with opt and vis (afmt_cli_validate over l's bytes, or
 * through a window for a pipe opened bounded, held to 1 GiB
 * (AFMT_CLI_STREAM_DEFAULT_LIMIT) or opt->limits.max_total_bytes if
 * less), printing nothing: 0 valid, -1 with err.  For "ARCHIVE:MEMBER"
 * the archive is validated and vis told only what is the member's
 * (member_pick.h); no such member is AFMT_E_IO.
 * l->in.size is then the input's size (a pipe's: the bytes read).  A URL
 * opened bounded: -2 with err when a range could not be fetched (no
 * verdict), and see restart above. */
int afmt_cli_loaded_run(afmt_cli_loaded *l, const afmt_options *opt, const afmt_visitor *vis,
                        afmt_error *err);
/* afmt_cli_loaded_run with a mapped input guarded (sigbus.h): -2 with
 * err (AFMT_E_IO, the offset of the first byte found missing) when the
 * file was cut short while it was read, or changed size meanwhile (then
 * the verdict is not given: it would be about bytes no longer there);
 * vis's callbacks must then hold no
 * lock and leave their state usable.  Otherwise what afmt_cli_loaded_run
 * returns. */
int afmt_cli_loaded_run_guarded(afmt_cli_loaded *l, const afmt_options *opt,
                                const afmt_visitor *vis, afmt_error *err);
/* Close l (and stop watching its mapping for SIGBUS). */
void afmt_cli_loaded_close(afmt_cli_loaded *l);

/* Validate l with vis; on failure print "PATH: invalid FORMAT: ..." to
 * stderr and return 1 (AFMT_EXIT_INVALID), or "PATH: error: ..." and 2
 * when the archive has no member of the name asked for; 0 when valid. */
int afmt_cli_loaded_validate(afmt_cli_loaded *l, const afmt_options *opt,
                             const afmt_visitor *vis);

/* "PATH: warning: FIELD at offset N: MESSAGE" on stderr. */
void afmt_cli_print_warning(const char *path, const afmt_error *warning);

#endif /* AFMT_CLI_LOAD_H */
