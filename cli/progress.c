/* afmt CLI: the progress line on standard error (see progress.h). */
#include "progress.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

/* Nothing is shown before the work has taken this long, then the line is
 * redrawn this often. */
#define NS_PER_S INT64_C(1000000000)
#define SHOW_AFTER_NS NS_PER_S
#define REDRAW_NS 250000000L

static int64_t elapsed_ns(const struct timespec *start)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)(now.tv_sec - start->tv_sec) * NS_PER_S +
           (now.tv_nsec - start->tv_nsec);
}

/* With p->mu held. */
static void erase_locked(afmt_cli_progress *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
        p->shown = 0;
    }
}

static void *redraw(void *arg)
{
    afmt_cli_progress *p = arg;
    struct timespec until;
    int64_t ns;
    uint_fast64_t checked, last_checked = 0;
    int64_t last_s = -1;

    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        /* The condition variable waits on CLOCK_REALTIME (the default);
         * only the interval matters here. */
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += REDRAW_NS;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->cv, &p->mu, &until);
        if (p->stop)
            break;
        ns = elapsed_ns(&p->start);
        checked = atomic_load(&p->checked);
        if (ns < SHOW_AFTER_NS ||
            (p->shown && checked == last_checked && ns / NS_PER_S == last_s))
            continue;
        last_checked = checked;
        last_s = ns / NS_PER_S;
        fprintf(stderr, "\r%s: %" PRIuFAST64 " checked, %" PRId64 "s\033[K", p->prog, checked,
                last_s);
        p->shown = 1;
    }
    erase_locked(p);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

afmt_cli_progress *afmt_cli_progress_start(afmt_cli_progress *p, const char *prog)
{
    if (!isatty(STDERR_FILENO) || isatty(STDOUT_FILENO))
        return NULL;
    p->prog = prog;
    atomic_init(&p->checked, 0);
    p->stop = 0;
    p->shown = 0;
    clock_gettime(CLOCK_MONOTONIC, &p->start);
    if (pthread_mutex_init(&p->mu, NULL) != 0)
        return NULL;
    if (pthread_cond_init(&p->cv, NULL) != 0) {
        pthread_mutex_destroy(&p->mu);
        return NULL;
    }
    if (pthread_create(&p->thread, NULL, redraw, p) != 0) {
        /* No thread, no progress line: the work goes on without it. */
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
        return NULL;
    }
    return p;
}

void afmt_cli_progress_count(afmt_cli_progress *p)
{
    if (p)
        atomic_fetch_add(&p->checked, 1);
}

void afmt_cli_progress_hold(afmt_cli_progress *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    erase_locked(p);
}

void afmt_cli_progress_release(afmt_cli_progress *p)
{
    if (p)
        pthread_mutex_unlock(&p->mu);
}

void afmt_cli_progress_stop(afmt_cli_progress *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
}
