/* afmt CLI: validating inputs and reporting the result, in text or JSON.
 *
 * A worker owns everything one file's check needs (output text, the list of
 * arrays and warnings, a buffer for stream and archive input) and reuses it
 * from file to file.  Output goes through an afmt_cli_out, which keeps the
 * argument order when several workers run in parallel: each input has a
 * sequence number, and a worker writes only when every earlier input has
 * been written.  Long outputs (verbose listings, archives) are written in
 * pieces as they grow, so memory stays bounded.
 */
#ifndef AFMT_CLI_REPORT_H
#define AFMT_CLI_REPORT_H

#include <pthread.h>
#include <stdint.h>
#include "afmt.h"
#include "buf.h"
#include "input.h"

/* Most arrays (and warnings) listed per file; the rest are counted. */
#define AFMT_CLI_MAX_LISTED_ARRAYS 10000
#define AFMT_CLI_MAX_LISTED_WARNINGS 1000
#define AFMT_CLI_DESC_MAX 8192

/* Outputs finished before their turn wait here, so a worker goes on with
 * its next input instead of waiting (tiny inputs would otherwise make the
 * workers run in lock-step).  When it is full, a worker waits its turn. */
#define AFMT_CLI_PARKED 64

typedef struct afmt_cli_parked {
    uint64_t seq;
    char *text;
    size_t len;
    int used;
} afmt_cli_parked;

/* Turns for writing: the input numbered `next` may write. */
typedef struct afmt_cli_seq {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t next;
    afmt_cli_parked parked[AFMT_CLI_PARKED];
    int write_failed;
} afmt_cli_seq;

typedef struct afmt_cli_out {
    afmt_cli_buf buf;  /* pending text for stdout */
    afmt_cli_seq *seq; /* NULL: one worker, always its turn */
    uint64_t my_seq;
    int has_turn;
    int write_failed;
} afmt_cli_out;

void afmt_cli_out_init(afmt_cli_out *o, afmt_cli_seq *seq);
void afmt_cli_out_free(afmt_cli_out *o);
/* Start the output of input number seq_no. */
void afmt_cli_out_begin(afmt_cli_out *o, uint64_t seq_no);
/* Write the pending text now (waiting for this input's turn). */
void afmt_cli_out_flush(afmt_cli_out *o);
/* Write the pending text if it has grown large. */
void afmt_cli_out_maybe_flush(afmt_cli_out *o);
/* One line on stderr, in order with the stdout lines. */
void afmt_cli_out_stderr(afmt_cli_out *o, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Write what is pending and pass the turn to the next input. */
void afmt_cli_out_end(afmt_cli_out *o);

typedef struct afmt_cli_config {
    afmt_options opt;            /* mode, limits (max_total_bytes = file_limit) */
    const afmt_format *forced;   /* --format, or NULL to detect */
    int verbose;                 /* -v: arrays and warnings on their own lines */
    int quiet;                   /* -q: only invalid inputs and errors */
    int json;                    /* --json: one object per input */
    int recursive;               /* -r */
    unsigned jobs;               /* -j */
    uint64_t file_limit;         /* --max-bytes for regular files */
    uint64_t stream_limit;       /* for pipes and archive members */
} afmt_cli_config;

/* Defaults: strict, text, one job, no file limit beyond the runtime's,
 * 1 GiB for streams. */
void afmt_cli_config_default(afmt_cli_config *cfg);

typedef struct afmt_cli_worker {
    const afmt_cli_config *cfg;
    afmt_cli_out out;
    afmt_cli_buf arrays;   /* listed arrays: text lines or JSON objects */
    afmt_cli_buf warns;    /* listed warnings, likewise */
    afmt_cli_buf data;     /* stream / archive member bytes */
    afmt_cli_buf name;     /* scratch for composed names ("a.tar:x.ten") */
    uint8_t *window;       /* stream window (AFMT_CLI_STREAM_WINDOW), made on first use */
    /* A sidecar found beside the file (DAPHNE's x.dbdf.meta), checked as
     * the arrays are visited. */
    const afmt_meta_desc *meta_desc;
    afmt_meta meta;
    afmt_meta_column *meta_columns; /* AFMT_META_MAX_COLUMNS, made on first use */
    int meta_failed;
    afmt_error meta_err;
    char meta_path[4200];
    /* A mapped regular file: its path and size, to notice it changing while
     * it is read. */
    const char *mapped_path;
    uint64_t mapped_size;
    /* The input being checked. */
    uint64_t narrays, nwarn;
    uint64_t arrays_listed, warns_listed;
    afmt_order first_order;
    char first[AFMT_CLI_DESC_MAX];
    char desc[AFMT_CLI_DESC_MAX];
    int skip_unknown;      /* the input comes from a directory walk */
    /* What was seen so far. */
    uint64_t checked, valid, invalid, errors, skipped;
} afmt_cli_worker;

void afmt_cli_worker_init(afmt_cli_worker *w, const afmt_cli_config *cfg,
                          afmt_cli_seq *seq);
void afmt_cli_worker_free(afmt_cli_worker *w);

/* Open and check one path: a regular file (mmap'ed), a pipe or "-" (read),
 * a tar shard (each member with a known extension).  Reports everything to
 * w->out; the caller brackets it with afmt_cli_out_begin / _end.  walked:
 * the file was met in a directory walk, and is skipped (not reported
 * invalid) when neither its magic nor its extension matches a format (the
 * --format one, if given). */
void afmt_cli_check_path(afmt_cli_worker *w, const char *path, int walked);

/* Check bytes already in memory.  display is the name printed; ext_name
 * (may be NULL) is the name whose extension helps detection. */
void afmt_cli_check_bytes(afmt_cli_worker *w, const char *display,
                          const char *ext_name, const uint8_t *buf, uint64_t len);

/* Check an opened input (maybe over its limit). */
void afmt_cli_check_input(afmt_cli_worker *w, const char *display,
                          const char *ext_name, const afmt_cli_input *in);

/* Report "PATH: error: MESSAGE" (text, stderr) or a JSON object with an
 * error of code io (stdout); counts as an error (exit status 2). */
void afmt_cli_report_error(afmt_cli_worker *w, const char *display,
                           const afmt_error *err);
void afmt_cli_report_errno(afmt_cli_worker *w, const char *display, int errnum);
void afmt_cli_report_message(afmt_cli_worker *w, const char *display,
                             const char *message);

/* tar.c: every member of a tar shard whose name has a known extension. */
void afmt_cli_check_tar(afmt_cli_worker *w, const char *path);

#endif /* AFMT_CLI_REPORT_H */
