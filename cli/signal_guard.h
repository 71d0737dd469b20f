/* afmt CLI and Python extension: a way back from a fault, shared.
 *
 * A read of a mapped file past its new end (someone cut it short) raises
 * SIGBUS; a read of a page of a remote file not fetched yet (a PROT_NONE
 * reservation, fault_guard.h) raises SIGSEGV.  afmt_signal_guard_run
 * gives a function a way back: that signal on this thread while it runs,
 * at an address inside the range it names, returns control to the guard
 * with the faulting address.  The signal outside any guard (or outside
 * its range) goes to the `outside` hook given to afmt_signal_guard_install
 * for that signal, which each user fills with its own policy
 * (cli/sigbus.c: a message and exit status 2 for its watched input;
 * python/src/guard.c: zero pages under numpy's views); with no hook, the
 * process dies of it as if no handler had been installed.
 *
 * Signals: SIGBUS and SIGSEGV.  State: a signal carries no context, so the
 * way back is thread-local, one guard at a time on a thread; the hooks are
 * process-wide (atomic pointers).  Thread-safe: each thread has its own
 * way back.
 */
#ifndef AFMT_SIGNAL_GUARD_H
#define AFMT_SIGNAL_GUARD_H

#include <signal.h>
#include <stdint.h>

/* Called in the signal handler for a fault no guard takes, with what the
 * handler got and the action that was in place before ours (to pass on a
 * signal that is not ours).  It must be async-signal-safe.  When it
 * returns, the access is retried. */
typedef void (*afmt_signal_outside_fn)(int sig, siginfo_t *info, void *ucontext,
                                       const struct sigaction *previous);

/* Install the handler for sig (SIGBUS or SIGSEGV; once per process and
 * signal) and, when outside is not NULL, make it sig's hook (replacing
 * the one before).  Call it with the hook before the first fault that
 * matters.  0, or -1 for another signal. */
int afmt_signal_guard_install(int sig, afmt_signal_outside_fn outside);

/* Run fn(ctx) with a way back from sig at an address in [lo, hi) (lo and
 * hi NULL: any address), installing the handler if it is not: 0 when fn
 * returned, -1 when such a fault cut it short, and then *fault_addr (may
 * be NULL) is the address it touched.  fn's state is whatever it was
 * then: it must hold no lock and own no memory it has not recorded
 * elsewhere (no stdio, no allocator).  Guards do not nest on a thread. */
int afmt_signal_guard_run(int sig, const void *lo, const void *hi, void (*fn)(void *ctx), void *ctx,
                          uintptr_t *fault_addr);

/* In a handler or hook: end the process by sig's default action, as if
 * no handler had been installed (a real crash stays one). */
void afmt_signal_die(int sig);

#endif /* AFMT_SIGNAL_GUARD_H */
