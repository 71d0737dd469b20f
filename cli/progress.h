/* afmt CLI: a progress line on standard error during long work.
 *
 * Shown only when standard error is a terminal and standard output is not
 * (a report going to a file or a pipe: with both on the terminal, the
 * report's own lines show the progress), and only once the work has taken
 * more than a second, so quick runs and scripts never see it.  A thread
 * redraws "PROG: N checked, Ts" in place four times a second; the line is
 * erased when the work ends, and before any other line on standard error
 * (afmt_cli_progress_hold / _release).
 *
 * Thread-safety: afmt_cli_progress_count, _hold and _release may be called
 * from any thread between _start and _stop; each takes a NULL progress
 * (no progress line) and does nothing then.
 */
#ifndef AFMT_CLI_PROGRESS_H
#define AFMT_CLI_PROGRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

typedef struct afmt_cli_progress {
    const char *prog;
    atomic_uint_fast64_t checked; /* inputs with a verdict so far */
    pthread_mutex_t mu;           /* guards the line and stop */
    pthread_cond_t cv;
    pthread_t thread;
    struct timespec start;
    int stop;
    int shown; /* the line is on the terminal now */
} afmt_cli_progress;

/* Start the progress line of PROG if standard error is a terminal and
 * standard output is not.  Returns p when started, else NULL (no thread,
 * nothing to stop). */
afmt_cli_progress *afmt_cli_progress_start(afmt_cli_progress *p, const char *prog);

/* One more input has its verdict. */
void afmt_cli_progress_count(afmt_cli_progress *p);

/* Erase the line and keep it away until _release: for a line of one's own
 * on standard error. */
void afmt_cli_progress_hold(afmt_cli_progress *p);
void afmt_cli_progress_release(afmt_cli_progress *p);

/* End the thread and erase the line. */
void afmt_cli_progress_stop(afmt_cli_progress *p);

#endif /* AFMT_CLI_PROGRESS_H */
