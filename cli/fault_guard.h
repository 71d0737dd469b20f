/* afmt CLI: running a validator over a sparse mapping of a remote file and
 * learning which byte it needed next.
 *
 * A remote file is mapped as reserved address space (PROT_NONE, nothing
 * allocated) of its full size; the ranges fetched so far are made
 * readable.  The validator runs over the mapping as over any buffer; when
 * it touches a byte not fetched yet, the SIGSEGV that follows is caught
 * (on this thread, inside [lo, hi) only) and the run is abandoned, telling
 * the caller the address.  The caller fetches around it and runs the
 * validator again: validators keep no state, so each new run reads the
 * same bytes it read before.  A run abandoned half-way leaves what it
 * allocated (an archive's member table): remote_file.c abandons runs in
 * child processes, whose memory goes with them.  Only what the checks read is fetched,
 * whatever the format: no format knowledge is needed here.
 *
 * A fault outside [lo, hi), or on a thread with no guard, is a real crash
 * and is re-raised as one.
 */
#ifndef AFMT_CLI_FAULT_GUARD_H
#define AFMT_CLI_FAULT_GUARD_H

#include <stdint.h>

/* Run fn(ctx) with faults inside [lo, hi) caught: 0 when fn returned, 1
 * when it touched *fault_addr first (fn was abandoned). */
int afmt_cli_fault_guard(const void *lo, const void *hi, void (*fn)(void *ctx), void *ctx,
                         uintptr_t *fault_addr);

#endif /* AFMT_CLI_FAULT_GUARD_H */
