/* afmt CLI: catching a validator's read of a byte not fetched yet (see
 * fault_guard.h): a SIGSEGV guard over the reservation's range. */
#include "fault_guard.h"

#include <signal.h>

#include "signal_guard.h"

int afmt_cli_fault_guard(const void *lo, const void *hi, void (*fn)(void *ctx), void *ctx,
                         uintptr_t *fault_addr)
{
    /* a fault outside [lo, hi) has no hook: a real crash, re-raised */
    return afmt_signal_guard_run(SIGSEGV, lo, hi, fn, ctx, fault_addr) != 0;
}
