/* afmt Python extension: one validation of one input, with everything a
 * caller of afmt.validate or afmt.open wants kept (the arrays' views,
 * the warnings, the metadata, the key-values, which archive member each
 * array came from).
 *
 * Pure C over the public API (afmt.h and the registry): no Python object
 * is touched here, so the whole run goes with the GIL released.  The
 * format is chosen as afmt-validate chooses it (cli/check.c): the forced
 * one, else magic then extension, else a Futhark text file by content,
 * else the closest format's own error (cli/closest.c, compiled in); a
 * DAPHNE sidecar beside a file on disk is checked as the CLI checks it;
 * a file that changed size while it was read gets no verdict but an I/O
 * error, as in afmt-validate.
 *
 * Memory: the views (about 2.5 KiB each, see afmt_views), one malloc'd
 * copy per key-value (afmt_kv_copy), the metadata's text, and up to
 * AFMT_PY_WARNINGS_KEPT warnings; all freed by afmt_py_run_free.
 * Thread-safety: a run belongs to one thread at a time. */
#ifndef AFMT_PY_RUN_H
#define AFMT_PY_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "afmt.h"

/* Warnings kept per run; more are counted, not kept (a lenient file could
 * warn once per element). */
#define AFMT_PY_WARNINGS_KEPT 256

/* The most views kept: each array of a file takes at least one header
 * record, so a real file is far below; past it the run fails (limit). */
#define AFMT_PY_VIEWS_MAX ((size_t)1 << 22)

/* One typed key-value (GGUF metadata, a torch checkpoint's plain value):
 * a deep copy that outlives the validation, and where its key was. */
typedef struct afmt_py_kv {
    afmt_kv *kv;      /* one block from afmt_kv_copy (free() it) */
    uint64_t offset;
} afmt_py_kv;

typedef struct afmt_py_run {
    const afmt_format *fmt;  /* the format chosen, or NULL (none detected) */
    int closest;             /* fmt was not detected: it is only the closest
                              * match, whose error is the verdict */
    int valid;               /* 1 when the input is valid */
    afmt_error error;        /* why not, when valid == 0 */
    afmt_views views;        /* the arrays, in file order */
    /* per kept view: the index in members[] of the archive member it came
     * from, or -1 (not in an archive) */
    int32_t *member_of;
    size_t member_of_cap;
    char **members;          /* member names (malloc'd, NUL-terminated) */
    size_t n_members, members_cap;
    int32_t current_member;  /* the member being parsed, or -1 */
    afmt_error *warnings;    /* the first AFMT_PY_WARNINGS_KEPT warnings */
    size_t n_warnings;       /* warnings kept */
    uint64_t warnings_seen;  /* warnings given, kept or not */
    uint8_t *metadata;       /* on_metadata's JSON text (malloc'd), or NULL */
    uint64_t metadata_len;
    uint64_t metadata_offset;
    afmt_py_kv *kvs;         /* on_kv's key-values, in file order */
    size_t n_kvs, kvs_cap;
    int out_of_memory;       /* something could not be kept: the run failed */
} afmt_py_run;

/* What to validate and how. */
typedef struct afmt_py_input {
    const uint8_t *data;     /* the bytes (a mapping, or a caller's buffer) */
    uint64_t len;
    const char *path;        /* the file on disk, or NULL for bytes in memory:
                              * names the extension, the sidecar, and is
                              * looked at again after (changed meanwhile) */
    int mapped;              /* data is a mapping of path: looked at again after */
    uint64_t mapped_size;    /* the file's size when mapped */
    const afmt_format *forced; /* format=..., or NULL to detect */
    const afmt_options *opt;
} afmt_py_input;

/* An empty run (allocates nothing). */
void afmt_py_run_init(afmt_py_run *run);

/* Validate in->data as afmt-validate would, filling *run (initialised
 * with afmt_py_run_init, not used before).  Always returns; run->valid
 * and run->error say the verdict.  Reads in->data: a caller that maps a
 * file runs this under the SIGBUS guard (guard.h). */
void afmt_py_run_validate(afmt_py_run *run, const afmt_py_input *in);

/* Forget the views and everything kept, as after afmt_py_run_init: what a
 * run abandoned by a SIGBUS half-way calls before reporting the cut. */
void afmt_py_run_reset(afmt_py_run *run);

/* Free everything the run holds; *run is then empty. */
void afmt_py_run_free(afmt_py_run *run);

/* The member name of kept view i, or NULL when it is in no archive. */
const char *afmt_py_run_member(const afmt_py_run *run, size_t i);

#endif /* AFMT_PY_RUN_H */
