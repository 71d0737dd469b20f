/* afmt CLI: checking inputs on several threads, in batches.
 *
 * The walk (on the calling thread) fills items; they travel to the worker
 * threads in batches of up to AFMT_CLI_BATCH_ITEMS, so that a queue
 * hand-off (a lock, often a wake-up) is paid once per batch and not once
 * per file: with files of a few hundred bytes, a hand-off per file cost
 * more than checking the file, and -j 2 was slower than -j 1.  Batches
 * start with one item and grow as inputs keep coming, so a few large
 * inputs still spread over all workers.  The walking thread is one of the N workers:
 * when handing a batch off would mean waiting, it checks it itself, so
 * -j N never runs more than N threads at a time.  Each batch is one unit of ordered output
 * (out.h), so the output keeps the argument order.
 *
 * Memory is bounded: a fixed pool of batches, and the walk waits for a
 * free one.  Thread-safety: the pool's own lock guards its queues; an
 * item belongs to one thread at a time.
 */
#ifndef AFMT_CLI_POOL_H
#define AFMT_CLI_POOL_H

#include <pthread.h>
#include <stdint.h>
#include "report.h"

#define AFMT_CLI_ITEM_PATH_MAX 4096
#define AFMT_CLI_BATCH_ITEMS 32

typedef enum afmt_cli_item_kind {
    AFMT_CLI_ITEM_PATH,  /* a file, pipe or shard to check */
    AFMT_CLI_ITEM_ERRNO, /* the walk failed on this path */
    AFMT_CLI_ITEM_NOTE,  /* skipped with a note (symlink loop) */
    AFMT_CLI_ITEM_SKIP   /* skipped as nothing to check (a FIFO met in a walk):
                          * said under -v only, as files of no known format are */
} afmt_cli_item_kind;

typedef struct afmt_cli_item {
    afmt_cli_item_kind kind;
    int err_no;
    int walked;       /* met in a directory walk, not named */
    const char *note; /* a static string */
    char path[AFMT_CLI_ITEM_PATH_MAX];
} afmt_cli_item;

typedef struct afmt_cli_batch {
    uint64_t seq; /* output order */
    unsigned n;
    afmt_cli_item items[AFMT_CLI_BATCH_ITEMS];
} afmt_cli_batch;

typedef struct afmt_cli_pool {
    afmt_cli_worker *workers;
    afmt_cli_worker *self; /* the calling thread's worker */
    unsigned nthreads;  /* started */
    pthread_t *threads;
    pthread_mutex_t mu;
    pthread_cond_t ready_cv, free_cv;
    afmt_cli_batch *batches;  /* all of them */
    afmt_cli_batch **free_list, **ready; /* ready: a ring */
    size_t nbatches, nfree, rhead, rcount;
    unsigned idle;      /* workers waiting for a batch */
    int done;
    afmt_cli_batch *cur; /* being filled by the walk */
    uint64_t next_seq;
    uint64_t committed;  /* items so far */
} afmt_cli_pool;

/* Check one item with w (reporting into w->out, without begin/end). */
void afmt_cli_process_item(afmt_cli_worker *w, const afmt_cli_item *it);

/* Start jobs - 1 threads (jobs >= 2), each with its worker (workers[i],
 * whose out uses a shared seq); the calling thread is the last worker: it
 * checks a batch itself when every thread is busy and every batch taken,
 * and helps at the end.  Returns the number of threads started; 0 (out
 * of memory, no threads) means the caller checks inputs itself. */
unsigned afmt_cli_pool_start(afmt_cli_pool *p, afmt_cli_worker *workers, unsigned jobs);

/* The next free item to fill (waits for a free batch); then commit it. */
afmt_cli_item *afmt_cli_pool_slot(afmt_cli_pool *p);
void afmt_cli_pool_commit(afmt_cli_pool *p);

/* Hand off what is left, wait for the workers and free the pool. */
void afmt_cli_pool_finish(afmt_cli_pool *p);

#endif /* AFMT_CLI_POOL_H */
