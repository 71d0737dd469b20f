/* afmt CLI and Python extension: the part of a SIGBUS defence they share.
 *
 * A read of a mapped file past its new end (someone cut it short) raises
 * SIGBUS.  afmt_sigbus_guard_run gives a function a way back: a SIGBUS on
 * this thread while it runs returns control to the guard with the
 * faulting address.  A SIGBUS outside any guard goes to the `outside`
 * hook given to afmt_sigbus_guard_install, which each user fills with its
 * own policy (cli/sigbus.c: a message and exit status 2 for its watched
 * input; python/src/guard.c: zero pages under numpy's views).
 *
 * State: a signal carries no context, so the way back is thread-local and
 * the hook process-wide (an atomic pointer).  Thread-safe: each thread
 * has its own way back.
 */
#ifndef AFMT_SIGBUS_GUARD_H
#define AFMT_SIGBUS_GUARD_H

#include <signal.h>
#include <stdint.h>

/* Called in the signal handler for a SIGBUS outside any guard, with what
 * the handler got and the action that was in place before ours (to pass
 * a SIGBUS that is not ours on).  It must be async-signal-safe.  When it
 * returns, the access is retried. */
typedef void (*afmt_sigbus_outside_fn)(int sig, siginfo_t *info, void *ucontext,
                                       const struct sigaction *previous);

/* Install the handler (once per process) and, when outside is not NULL,
 * make it the hook (replacing the one before).  Call it with the hook
 * before the first fault that matters. */
void afmt_sigbus_guard_install(afmt_sigbus_outside_fn outside);

/* Run fn(ctx) with a way back (installing the handler with no hook if
 * none is): 0 when fn returned, -1 when a SIGBUS cut it short, and then
 * *fault_addr (may be NULL) is the address it touched.  fn's state is
 * whatever it was then: it must hold no lock and own no memory it has not
 * recorded elsewhere (no stdio, no allocator). */
int afmt_sigbus_guard_run(void (*fn)(void *ctx), void *ctx, uintptr_t *fault_addr);

/* In a handler or hook: end the process by sig's default action, as if
 * no handler had been installed (a real crash stays one). */
void afmt_sigbus_die(int sig);

#endif /* AFMT_SIGBUS_GUARD_H */
