/* afmt CLI: checking inputs and reporting the verdicts (afmt-validate).
 *
 * A worker owns everything one input's check needs (output text, the list
 * of arrays and warnings, a buffer for stream and archive input) and
 * reuses it from input to input.  The job is shared out among files:
 *
 *   worker.c   making and freeing a worker
 *   path.c     opening a path and sending it the right way (file, pipe,
 *              compressed shard, URL)
 *   check.c    detecting the format and validating bytes or a stream
 *   collect.c  the visitor that lists arrays and warnings
 *   sidecar.c  a metadata file beside the data (DAPHNE's .meta)
 *   render.c   the verdict as a text line or a JSON object
 *   sigbus.c   surviving a mapped file cut short meanwhile
 *   members.c  an archive's members, a line each
 *   shard.c    compressed tar shards, decompressed into a stream
 *   out.c      the output, in argument order
 *
 * Thread-safety: a worker belongs to one thread at a time.
 */
#ifndef AFMT_CLI_REPORT_H
#define AFMT_CLI_REPORT_H

#include <stdint.h>
#include "afmt.h"
#include "buf.h"
#include "config.h"
#include "field_span.h"
#include "input.h"
#include "out.h"
#include "quote.h"

/* Most arrays (and warnings) listed per file; the rest are counted. */
#define AFMT_CLI_MAX_LISTED_ARRAYS 10000
#define AFMT_CLI_MAX_LISTED_WARNINGS 1000
#define AFMT_CLI_DESC_MAX 8192

/* Buffers that grew beyond this for one input are given back afterwards. */
#define AFMT_CLI_KEEP_BYTES ((size_t)4 << 20)

typedef struct afmt_cli_worker {
    const afmt_cli_config *cfg;
    afmt_cli_out out;
    afmt_cli_buf arrays;   /* listed arrays: text lines or JSON objects */
    afmt_cli_buf warns;    /* listed warnings, likewise */
    afmt_cli_buf data;     /* stream bytes */
    afmt_cli_buf name;     /* scratch for a name (a URL's path) */
    afmt_cli_buf msg;      /* scratch for a SARIF message */
    /* The archive whose member is being checked (display is then
     * "ARCHIVE:MEMBER"), or NULL. */
    const char *archive;
    /* While a member of archive is checked, where its offsets lie in the
     * archive's bytes (a SARIF region, sarif.c; set by members.c from the
     * library's afmt_member): member_base is added to a reported offset
     * (0: the library's offsets are the archive's already); AFMT_NO_OFFSET
     * when the member is not stored as it is (deflated), member_at and
     * member_len then being its stored bytes (0: unknown).
     * afmt_cli_member_where_unknown sets them back. */
    uint64_t member_base, member_at, member_len;
    /* --sarif: the header fields read by the current check, for the byte
     * length of the field an error names. */
    afmt_cli_span_rec spans;
    uint8_t *window;       /* stream window (AFMT_CLI_STREAM_WINDOW), made on first use */
    /* A sidecar found beside the file (DAPHNE's x.dbdf.meta), checked as
     * the arrays are visited (sidecar.c): meta_on while one is, meta
     * its parsed form (NULL when it did not parse: meta_err says why). */
    int meta_on;
    afmt_sidecar *meta;
    int meta_failed;
    afmt_error meta_err;
    char meta_path[4200];
    /* The path of the regular file being checked, when the input is one
     * (not a stream, not an archive member): the only inputs a sidecar
     * can lie beside. */
    const char *disk_path;
    /* A mapped regular file: its path and size, to notice it changing while
     * it is read. */
    const char *mapped_path;
    uint64_t mapped_size;
    /* The input being checked (collect.c). */
    uint64_t narrays, nwarn;
    uint64_t arrays_listed, warns_listed;
    afmt_order first_order;
    char first[AFMT_CLI_DESC_MAX];
    char desc[AFMT_CLI_DESC_MAX];
    /* the name being reported, quoted for text output (quote.h) */
    char quoted[AFMT_CLI_QUOTED_MAX];
    int skip_unknown;      /* the input comes from a directory walk */
    int closest;           /* the format named is only the closest match */
    /* A model set being checked (model_set.c): the shard whose tensors
     * the collecting visitor hands to it, or model NULL; hold: keep the
     * shard's verdict off the output (a walk reports the file itself);
     * verdict: the last one given (1 valid, 0 invalid, -1 error). */
    struct afmt_cli_model_hook *model;
    int hold;
    int verdict;
    /* A valid input's line says this instead of its first array (a model
     * set's summary), or NULL. */
    const char *summary;
    /* An archive's members, each its own line (members.c): the archive's
     * display while its input is checked (else NULL); the member being
     * checked (its format, NULL between members) and its line's name
     * "ARCHIVE:MEMBER"; the members that got a line; the warnings that are
     * the archive's own (given outside any member), held for its line;
     * line_member: the member's name in the line being emitted (JSON
     * "member"), or NULL. */
    const char *members_of;
    const afmt_format *member_fmt;
    afmt_cli_buf member_line;
    uint64_t members_done;
    afmt_cli_buf archive_warns;
    uint64_t archive_nwarn, archive_warns_listed;
    const char *line_member;
    int member_failed;          /* a member's line was invalid: member_error */
    afmt_error member_error;
    /* What was seen so far. */
    uint64_t checked, valid, invalid, errors, skipped;
} afmt_cli_worker;

/* member_base, member_at and member_len: nothing known. */
static inline void afmt_cli_member_where_unknown(afmt_cli_worker *w)
{
    w->member_base = AFMT_NO_OFFSET;
    w->member_at = w->member_len = 0;
}

/* cfg must outlive the worker; seq is NULL for a single worker. */
void afmt_cli_worker_init(afmt_cli_worker *w, const afmt_cli_config *cfg,
                          afmt_cli_seq *seq);
void afmt_cli_worker_free(afmt_cli_worker *w);

/* Open and check one path: a regular file (read or mmap'ed), a pipe or
 * "-" (through a window), a compressed tar shard (decompressed through a
 * window), a URL.  Reports everything to w->out; the caller brackets it with
 * afmt_cli_out_begin / _end.  walked: the file was met in a directory
 * walk, and is skipped (not reported invalid) when neither its magic nor
 * its extension matches a format (the --format one, if given). */
void afmt_cli_check_path(afmt_cli_worker *w, const char *path, int walked);

/* Check bytes already in memory.  display is the name printed; ext_name
 * (may be NULL) is the name whose extension helps detection. */
void afmt_cli_check_bytes(afmt_cli_worker *w, const char *display,
                          const char *ext_name, const uint8_t *buf, uint64_t len);

/* Report an archive member that the archive cuts short: len bytes of its
 * size (UINT64_MAX: unknown) could be read; why is the archive's reason.
 * Always invalid (code truncated). */
void afmt_cli_check_cut(afmt_cli_worker *w, const char *display, const char *ext_name,
                        const uint8_t *buf, uint64_t len, uint64_t size, const char *why);

/* Check an opened input (maybe over its limit, maybe a lazy stream). */
void afmt_cli_check_input(afmt_cli_worker *w, const char *display,
                          const char *ext_name, const afmt_cli_input *in);

/* Report an input as invalid with err, format fmt (may be NULL). */
void afmt_cli_report_invalid(afmt_cli_worker *w, const char *display,
                             const afmt_format *fmt, const afmt_error *err);

/* Report "PATH: error: MESSAGE" (text, stderr) or a JSON object with an
 * error of code io (stdout); counts as an error (exit status 2). */
void afmt_cli_report_error(afmt_cli_worker *w, const char *display,
                           const afmt_error *err);
void afmt_cli_report_errno(afmt_cli_worker *w, const char *display, int errnum);
void afmt_cli_report_message(afmt_cli_worker *w, const char *display,
                             const char *message);

/* shard.c: a compressed tar shard, decompressed by libarchive and
 * checked as a stream (a plain tar is an input like any other: the
 * webdataset format).  in: the shard opened as a stream (standard input),
 * or NULL to open path. */
void afmt_cli_check_compressed(afmt_cli_worker *w, const char *path, afmt_cli_input *in);

/* Is path named like a compressed tar shard (.tar.gz, .tgz, .tar.bz2,
 * .tbz2, .tar.xz, .txz, .tar.zst, .tar.lz4)? */
int afmt_cli_is_compressed_tar_path(const char *path);

/* Do the first bytes of a stream look compressed (gzip, bzip2, xz,
 * zstd): a compressed shard, since no afmt format is? */
int afmt_cli_looks_compressed(const uint8_t *head, uint64_t len);

#endif /* AFMT_CLI_REPORT_H */
