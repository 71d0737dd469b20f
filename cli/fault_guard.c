/* afmt CLI: catching a validator's read of a byte not fetched yet (see
 * fault_guard.h). */
#include "fault_guard.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

/* A signal carries no context: the way back is thread-local, set only
 * while a guarded run is on this thread. */
typedef struct fault_frame {
    sigjmp_buf jb;
    uintptr_t lo, hi;
} fault_frame;

static _Thread_local fault_frame *active;
/* where the last guarded run faulted (not a local: it is written in the
 * handler and read after the jump back) */
static _Thread_local uintptr_t fault_at;

static void on_sigsegv(int sig, siginfo_t *si, void *uc)
{
    uintptr_t a = (uintptr_t)si->si_addr;
    (void)uc;
    if (active && a >= active->lo && a < active->hi) {
        fault_at = a;
        siglongjmp(active->jb, 1);
    }
    signal(sig, SIG_DFL); /* a real crash: die of it */
    raise(sig);
}

static void install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigsegv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
}

static pthread_once_t install_once = PTHREAD_ONCE_INIT;

int afmt_cli_fault_guard(const void *lo, const void *hi, void (*fn)(void *ctx), void *ctx,
                         uintptr_t *fault_addr)
{
    fault_frame f;

    pthread_once(&install_once, install);
    f.lo = (uintptr_t)lo;
    f.hi = (uintptr_t)hi;
    if (sigsetjmp(f.jb, 1) != 0) {
        active = NULL;
        *fault_addr = fault_at;
        return 1;
    }
    active = &f;
    fn(ctx);
    active = NULL;
    return 0;
}
