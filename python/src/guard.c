/* afmt Python extension: the SIGBUS guard and watch (see guard.h). */
#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* MAP_ANONYMOUS, sigaction, siginfo_t */
#endif
#include "guard.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "signal_guard.h"

/* A watched mapping: lo == 0 is a free slot.  hi is set before lo (and lo
 * cleared first on unwatch), so the handler never sees half a slot. */
typedef struct watched {
    _Atomic uintptr_t lo, hi;
    _Atomic uint64_t cut_at;
} watched;

static watched slots[AFMT_PY_GUARD_SLOTS];

/* Zero pages over [page of at, hi): the retried access then reads zeros.
 * mmap is a plain system call, safe in a handler in practice. */
static int zero_tail(watched *w, uintptr_t at)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = atomic_load(&w->lo), hi = atomic_load(&w->hi);
    uintptr_t from = at & ~(page - 1);
    void *m;

    if (from < lo)
        from = lo;
    m = mmap((void *)from, hi - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    {
        uint64_t none = UINT64_MAX;
        atomic_compare_exchange_strong(&w->cut_at, &none, (uint64_t)(at - lo));
    }
    return 0;
}

/* A SIGBUS that is not ours goes to the handler before ours (Python's
 * faulthandler, say), or kills the process as it would have. */
static void pass_on(int sig, siginfo_t *si, void *uc, const struct sigaction *previous)
{
    if ((previous->sa_flags & SA_SIGINFO) && previous->sa_sigaction) {
        previous->sa_sigaction(sig, si, uc);
        return;
    }
    if (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN && previous->sa_handler) {
        previous->sa_handler(sig);
        return;
    }
    afmt_signal_die(sig);
}

/* A SIGBUS outside any guard: under a watched mapping (a numpy view's
 * read), or not ours. */
static void outside_guard(int sig, siginfo_t *si, void *uc, const struct sigaction *previous)
{
    uintptr_t at = (uintptr_t)si->si_addr;
    size_t i;

    for (i = 0; i < AFMT_PY_GUARD_SLOTS; i++) {
        uintptr_t lo = atomic_load(&slots[i].lo);
        if (lo && at >= lo && at < atomic_load(&slots[i].hi) && zero_tail(&slots[i], at) == 0)
            return;
    }
    pass_on(sig, si, uc, previous);
}

int afmt_py_guard_run(void (*fn)(void *ctx), void *ctx, uintptr_t *fault_addr)
{
    afmt_signal_guard_install(SIGBUS, outside_guard);
    return afmt_signal_guard_run(SIGBUS, NULL, NULL, fn, ctx, fault_addr);
}

int afmt_py_guard_watch(const void *base, uint64_t len)
{
    size_t i;

    afmt_signal_guard_install(SIGBUS, outside_guard);
    if (!base || len == 0 || len > UINTPTR_MAX - (uintptr_t)base)
        return -1;
    for (i = 0; i < AFMT_PY_GUARD_SLOTS; i++) {
        uintptr_t none = 0;
        /* claim with a placeholder lo of 1 (no mapping starts there), so
         * that hi is in place before the real lo makes the slot live */
        if (atomic_load(&slots[i].lo) == 0 &&
            atomic_compare_exchange_strong(&slots[i].lo, &none, (uintptr_t)1)) {
            atomic_store(&slots[i].cut_at, UINT64_MAX);
            atomic_store(&slots[i].hi, (uintptr_t)base + (uintptr_t)len);
            atomic_store(&slots[i].lo, (uintptr_t)base);
            return (int)i;
        }
    }
    return -1;
}

uint64_t afmt_py_guard_cut_at(int slot)
{
    if (slot < 0 || slot >= AFMT_PY_GUARD_SLOTS)
        return UINT64_MAX;
    return atomic_load(&slots[slot].cut_at);
}

void afmt_py_guard_unwatch(int slot)
{
    if (slot < 0 || slot >= AFMT_PY_GUARD_SLOTS)
        return;
    atomic_store(&slots[slot].hi, (uintptr_t)0);
    atomic_store(&slots[slot].lo, (uintptr_t)0);
}
