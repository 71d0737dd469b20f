/* afmt CLI: the SIGBUS guard (see sigbus.h). */
#include "sigbus.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

/* A signal carries no context, so the way back is thread-local (each -j
 * worker has its own), set only around the reads of a mapping. */
static _Thread_local sigjmp_buf *bus_return;

static void on_sigbus(int sig)
{
    (void)sig;
    if (bus_return)
        siglongjmp(*bus_return, 1);
    signal(SIGBUS, SIG_DFL);
    raise(SIGBUS);
}

static void install_sigbus(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

static pthread_once_t sigbus_once = PTHREAD_ONCE_INIT;

int afmt_cli_sigbus_guard(void (*fn)(void *ctx), void *ctx)
{
    sigjmp_buf jb;
    pthread_once(&sigbus_once, install_sigbus);
    if (sigsetjmp(jb, 1) != 0) {
        bus_return = NULL;
        return -1;
    }
    bus_return = &jb;
    fn(ctx);
    bus_return = NULL;
    return 0;
}
