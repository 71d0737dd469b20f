/* afmt CLI: batches of inputs for the worker threads (see pool.h). */
#include "pool.h"
#include "thread_own.h"

#include <stdlib.h>
#include <string.h>

void afmt_cli_process_item(afmt_cli_worker *w, const afmt_cli_item *it)
{
    switch (it->kind) {
    case AFMT_CLI_ITEM_PATH:
        afmt_cli_check_path(w, it->path, it->walked);
        break;
    case AFMT_CLI_ITEM_ERRNO:
        afmt_cli_report_errno(w, it->path, it->err_no);
        break;
    case AFMT_CLI_ITEM_NOTE:
        if (!w->cfg->quiet)
            afmt_cli_out_stderr(&w->out, "%s: skipped: %s\n",
                                afmt_cli_quote_name(it->path, w->quoted, sizeof w->quoted),
                                it->note);
        break;
    case AFMT_CLI_ITEM_SKIP:
        w->skipped++;
        if (w->cfg->verbose && !w->cfg->json)
            afmt_cli_out_stderr(&w->out, "%s: skipped: %s\n",
                                afmt_cli_quote_name(it->path, w->quoted, sizeof w->quoted),
                                it->note);
        break;
    }
}

/* Check every input of b with w, as one unit of output. */
static void run_batch(afmt_cli_worker *w, const afmt_cli_batch *b)
{
    unsigned i;

    afmt_cli_out_begin(&w->out, b->seq);
    for (i = 0; i < b->n; i++)
        afmt_cli_process_item(w, &b->items[i]);
    afmt_cli_out_end(&w->out);
}

/* With p->mu held: take the oldest ready batch, or NULL. */
static afmt_cli_batch *take_locked(afmt_cli_pool *p)
{
    afmt_cli_batch *b;

    if (p->rcount == 0)
        return NULL;
    b = p->ready[p->rhead];
    p->rhead = (p->rhead + 1) % p->nbatches;
    p->rcount--;
    return b;
}

typedef struct thread_arg {
    afmt_cli_pool *p;
    afmt_cli_worker *w;
} thread_arg;

static void *run_thread(void *arg)
{
    afmt_cli_pool *p = ((thread_arg *)arg)->p;
    afmt_cli_worker *w = ((thread_arg *)arg)->w;

    free(arg);
    /* a worker opens, reads and closes its inputs itself (thread_own.h) */
    (void)afmt_cli_own_fd_table();
    (void)afmt_cli_own_credentials();
    pthread_mutex_lock(&p->mu);
    for (;;) {
        afmt_cli_batch *b;
        while (p->rcount == 0 && !p->done) {
            p->idle++;
            pthread_cond_wait(&p->ready_cv, &p->mu);
            p->idle--;
        }
        b = take_locked(p);
        if (!b)
            break;
        pthread_mutex_unlock(&p->mu);
        run_batch(w, b);

        pthread_mutex_lock(&p->mu);
        p->free_list[p->nfree++] = b;
        pthread_cond_signal(&p->free_cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

unsigned afmt_cli_pool_start(afmt_cli_pool *p, afmt_cli_worker *workers, unsigned jobs)
{
    size_t i;

    memset(p, 0, sizeof *p);
    p->workers = workers;
    /* The calling thread is a worker too (the last one): it checks a
     * batch itself whenever handing it off would mean waiting. */
    p->self = &workers[jobs - 1];
    /* Enough batches for every worker to hold one, one more waiting for
     * each, and one being filled. */
    p->nbatches = 2 * (size_t)jobs + 1;
    p->batches = malloc(p->nbatches * sizeof *p->batches);
    p->free_list = malloc(p->nbatches * sizeof *p->free_list);
    p->ready = malloc(p->nbatches * sizeof *p->ready);
    p->threads = malloc(jobs * sizeof *p->threads);
    if (!p->batches || !p->free_list || !p->ready || !p->threads) {
        free(p->batches);
        free(p->free_list);
        free(p->ready);
        free(p->threads);
        return 0;
    }
    for (i = 0; i < p->nbatches; i++)
        p->free_list[p->nfree++] = &p->batches[i];
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->ready_cv, NULL);
    pthread_cond_init(&p->free_cv, NULL);
    for (i = 0; i + 1 < jobs; i++) {
        thread_arg *ta = malloc(sizeof *ta);
        if (!ta)
            break;
        ta->p = p;
        ta->w = &workers[i];
        if (pthread_create(&p->threads[i], NULL, run_thread, ta) != 0) {
            free(ta);
            break;
        }
        p->nthreads++;
    }
    if (p->nthreads == 0) {
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->ready_cv);
        pthread_cond_destroy(&p->free_cv);
        free(p->batches);
        free(p->free_list);
        free(p->ready);
        free(p->threads);
    }
    return p->nthreads;
}

/* With p->mu held: queue the batch being filled. */
static void push_locked(afmt_cli_pool *p)
{
    p->cur->seq = p->next_seq++;
    p->ready[(p->rhead + p->rcount) % p->nbatches] = p->cur;
    p->rcount++;
    p->cur = NULL;
    pthread_cond_signal(&p->ready_cv);
}

afmt_cli_item *afmt_cli_pool_slot(afmt_cli_pool *p)
{
    if (!p->cur) {
        pthread_mutex_lock(&p->mu);
        while (p->nfree == 0)
            pthread_cond_wait(&p->free_cv, &p->mu);
        p->cur = p->free_list[--p->nfree];
        pthread_mutex_unlock(&p->mu);
        p->cur->n = 0;
    }
    return &p->cur->items[p->cur->n];
}

void afmt_cli_pool_commit(afmt_cli_pool *p)
{
    afmt_cli_batch *b;

    uint64_t limit = p->committed++ / (2 * (uint64_t)(p->nthreads + 1));

    /* Batches start with one item and grow to AFMT_CLI_BATCH_ITEMS as
     * inputs keep coming: a few (large) inputs spread over every worker,
     * many small ones pay one hand-off per batch. */
    if (limit < 1)
        limit = 1;
    if (limit > AFMT_CLI_BATCH_ITEMS)
        limit = AFMT_CLI_BATCH_ITEMS;
    if (++p->cur->n < limit)
        return;
    pthread_mutex_lock(&p->mu);
    if (p->nfree > 0 || p->idle > 0) {
        push_locked(p);
        pthread_mutex_unlock(&p->mu);
        return;
    }
    /* Every batch is taken and every thread busy: the walk would only
     * wait, so this thread checks the batch itself. */
    b = p->cur;
    b->seq = p->next_seq++;
    p->cur = NULL;
    pthread_mutex_unlock(&p->mu);
    run_batch(p->self, b);
    pthread_mutex_lock(&p->mu);
    p->free_list[p->nfree++] = b;
    pthread_mutex_unlock(&p->mu);
}

void afmt_cli_pool_finish(afmt_cli_pool *p)
{
    unsigned i;

    afmt_cli_batch *b;

    pthread_mutex_lock(&p->mu);
    if (p->cur && p->cur->n > 0)
        push_locked(p);
    p->done = 1;
    pthread_cond_broadcast(&p->ready_cv);
    /* The walk is over: help with what is left. */
    while ((b = take_locked(p)) != NULL) {
        pthread_mutex_unlock(&p->mu);
        run_batch(p->self, b);
        pthread_mutex_lock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    for (i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->ready_cv);
    pthread_cond_destroy(&p->free_cv);
    free(p->batches);
    free(p->free_list);
    free(p->ready);
    free(p->threads);
}
