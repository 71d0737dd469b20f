/* afmt: a way back from a fault (see signal_guard.h). */
#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sigaction, siginfo_t */
#endif
#include "signal_guard.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <string.h>

/* The guard running on this thread: the way back, the signal and range
 * it takes, and the address that faulted (written by the handler, read
 * after the jump back, so not a local of the guard). */
typedef struct guard_frame {
    sigjmp_buf jb;
    int sig;
    uintptr_t lo, hi;
} guard_frame;

static _Thread_local guard_frame *active;
static _Thread_local uintptr_t fault_at;

/* Per signal: the hook (atomic: the handler may read it while a thread
 * sets it), the action before ours (written once, by the pthread_once
 * call, before our handler can run) and the once. */
typedef struct signal_slot {
    int sig;
    _Atomic(afmt_signal_outside_fn) outside;
    struct sigaction previous;
    pthread_once_t once;
} signal_slot;

static signal_slot slots[] = {
    {.sig = SIGBUS, .once = PTHREAD_ONCE_INIT},
    {.sig = SIGSEGV, .once = PTHREAD_ONCE_INIT},
};

static signal_slot *slot_of(int sig)
{
    size_t i;
    for (i = 0; i < sizeof slots / sizeof slots[0]; i++)
        if (slots[i].sig == sig)
            return &slots[i];
    return NULL;
}

void afmt_signal_die(int sig)
{
    /* the default action now (a signal sent by kill has no access to
     * retry, so it is raised again rather than returned from) */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_fault(int sig, siginfo_t *info, void *ucontext)
{
    uintptr_t at = (uintptr_t)info->si_addr;
    signal_slot *slot = slot_of(sig);
    afmt_signal_outside_fn hook;

    if (active && active->sig == sig && at >= active->lo && at < active->hi) {
        fault_at = at;
        siglongjmp(active->jb, 1);
    }
    hook = slot ? atomic_load(&slot->outside) : NULL;
    if (hook) {
        hook(sig, info, ucontext, &slot->previous);
        return;
    }
    afmt_signal_die(sig);
}

static void install(signal_slot *slot)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    /* NODEFER: a hook that returns for a retry may see the same fault
     * again; siglongjmp restores the mask the guard saved either way */
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(slot->sig, &sa, &slot->previous);
}

static void install_sigbus(void) { install(slot_of(SIGBUS)); }
static void install_sigsegv(void) { install(slot_of(SIGSEGV)); }

int afmt_signal_guard_install(int sig, afmt_signal_outside_fn outside)
{
    signal_slot *slot = slot_of(sig);

    if (!slot)
        return -1;
    if (outside)
        atomic_store(&slot->outside, outside);
    pthread_once(&slot->once, sig == SIGBUS ? install_sigbus : install_sigsegv);
    return 0;
}

int afmt_signal_guard_run(int sig, const void *lo, const void *hi, void (*fn)(void *ctx), void *ctx,
                          uintptr_t *fault_addr)
{
    guard_frame frame;

    if (afmt_signal_guard_install(sig, NULL) != 0)
        return -1;
    frame.sig = sig;
    frame.lo = (uintptr_t)lo;
    frame.hi = lo || hi ? (uintptr_t)hi : UINTPTR_MAX;
    if (sigsetjmp(frame.jb, 1) != 0) {
        active = NULL;
        if (fault_addr)
            *fault_addr = fault_at;
        return -1;
    }
    active = &frame;
    fn(ctx);
    active = NULL;
    return 0;
}
