/* afmt: the SIGBUS guard's core (see sigbus_guard.h). */
#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sigaction, siginfo_t */
#endif
#include "sigbus_guard.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <string.h>

/* The way back of a guarded run on this thread, and the address that
 * faulted (written by the handler, read after the jump back, so not a
 * local of the guard). */
static _Thread_local sigjmp_buf *bus_return;
static _Thread_local uintptr_t bus_fault;

/* The hook is atomic: the handler may read it while a thread sets it.
 * previous is written once, by the pthread_once call, before the handler
 * can run. */
static _Atomic(afmt_sigbus_outside_fn) outside_hook;
static struct sigaction previous;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;

static void on_sigbus(int sig, siginfo_t *info, void *ucontext)
{
    afmt_sigbus_outside_fn hook;

    if (bus_return) {
        bus_fault = (uintptr_t)info->si_addr;
        siglongjmp(*bus_return, 1);
    }
    hook = atomic_load(&outside_hook);
    if (hook) {
        hook(sig, info, ucontext, &previous);
        return;
    }
    afmt_sigbus_die(sig);
}

void afmt_sigbus_die(int sig)
{
    /* the default action now (a SIGBUS sent by kill has no access to
     * retry, so it is raised again rather than returned from) */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    /* NODEFER: a hook that returns for a retry may see the same fault
     * again; siglongjmp restores the mask the guard saved either way */
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &previous);
}

void afmt_sigbus_guard_install(afmt_sigbus_outside_fn outside)
{
    if (outside)
        atomic_store(&outside_hook, outside);
    pthread_once(&install_once, install);
}

int afmt_sigbus_guard_run(void (*fn)(void *ctx), void *ctx, uintptr_t *fault_addr)
{
    sigjmp_buf jb;

    afmt_sigbus_guard_install(NULL);
    if (sigsetjmp(jb, 1) != 0) {
        bus_return = NULL;
        if (fault_addr)
            *fault_addr = bus_fault;
        return -1;
    }
    bus_return = &jb;
    fn(ctx);
    bus_return = NULL;
    return 0;
}
