/* afmt CLI: standard output in argument order, from one or several
 * workers.
 *
 * Each input has a sequence number, and a worker writes an input's text
 * only when every earlier input has been written.  Text finished before
 * its turn is parked (up to AFMT_CLI_PARKED inputs), so a worker goes on
 * with its next input instead of waiting; long outputs (verbose listings,
 * archives) are written in pieces as they grow, so memory stays bounded.
 *
 * Thread-safety: an afmt_cli_out belongs to one worker thread; the
 * afmt_cli_seq it points to is shared, guarded by its own mutex.
 */
#ifndef AFMT_CLI_OUT_H
#define AFMT_CLI_OUT_H

#include <pthread.h>
#include <stdint.h>
#include "buf.h"
#include "progress.h"

/* Outputs finished before their turn wait here, so a worker goes on with
 * its next input instead of waiting (tiny inputs would otherwise make the
 * workers run in lock-step).  When it is full, a worker waits its turn. */
#define AFMT_CLI_PARKED 64

/* A byte that starts each element of a JSON list streamed across inputs
 * (SARIF results).  It never appears in JSON text itself (control bytes
 * are escaped), so the ordered writer replaces it with a comma before
 * every element but the first, and with nothing before the first. */
#define AFMT_CLI_LIST_MARK '\x1e'

typedef struct afmt_cli_parked {
    uint64_t seq;
    char *text;
    size_t len;
    int used;
} afmt_cli_parked;

/* Turns for writing: the input numbered `next` may write.  The owner
 * initialises mu and cv and zeroes the rest. */
typedef struct afmt_cli_seq {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t next;
    afmt_cli_parked parked[AFMT_CLI_PARKED];
    int write_failed;
    int *list_started; /* see AFMT_CLI_LIST_MARK; NULL: no list */
} afmt_cli_seq;

typedef struct afmt_cli_out {
    afmt_cli_buf buf;  /* pending text for stdout */
    afmt_cli_seq *seq; /* NULL: one worker, always its turn */
    uint64_t my_seq;
    int has_turn;
    int write_failed;
    afmt_cli_progress *progress; /* erased before a line on stderr; NULL: none */
    int *list_started; /* see AFMT_CLI_LIST_MARK; NULL: no list */
} afmt_cli_out;

/* seq may be NULL (a single worker); progress starts NULL.
 * afmt_cli_out_free releases the buffer. */
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

#endif /* AFMT_CLI_OUT_H */
