/* afmt Python extension: a mapped file that someone cuts short.
 *
 * The first access past a mapped file's new end raises SIGBUS, which by
 * default kills the interpreter.  Two defences, both in one handler:
 *
 * - afmt_py_guard_run: fn(ctx) runs with a way back; a SIGBUS on this
 *   thread during it returns here (-1) instead.  For the library's own
 *   reads of a mapping (validation, decoding a copy), which hold no lock
 *   and own nothing they have not recorded.
 *
 * - afmt_py_guard_watch: a mapping whose pages numpy views read at any
 *   time, outside any guard.  A SIGBUS inside it replaces the pages from
 *   the faulting one to the mapping's end with zero pages (the access is
 *   then retried and reads zeros) and records the offset; the owner asks
 *   afmt_py_guard_cut_at and raises afmt.FileChanged.  The process lives;
 *   a view of the cut part reads zeros until then (docs/PYTHON.md).
 *
 * Any other SIGBUS goes to the handler that was installed before (Python's
 * faulthandler, say) or kills the process as it would have.
 *
 * State: a signal handler gets no context pointer, so the way back is
 * thread-local (cli/signal_guard.c, the core shared with the CLI) and the
 * watched mappings are a fixed process-wide table (AFMT_PY_GUARD_SLOTS,
 * lock-free: claimed and read with atomics).  These are the only static
 * state of the extension, and they have to be.
 */
#ifndef AFMT_PY_GUARD_H
#define AFMT_PY_GUARD_H

#include <stddef.h>
#include <stdint.h>

/* Mappings watched at once; a file opened when all are taken is mapped
 * without the watch (afmt_py_guard_watch says so). */
#define AFMT_PY_GUARD_SLOTS 1024

/* 0 when fn returned; -1 when a SIGBUS cut it short, *fault_addr then the
 * address it touched. */
int afmt_py_guard_run(void (*fn)(void *ctx), void *ctx, uintptr_t *fault_addr);

/* Watch [base, base + len): a slot number, or -1 when every slot is in
 * use (the mapping is then unwatched: a cut reaching a view kills the
 * process as with numpy.memmap). */
int afmt_py_guard_watch(const void *base, uint64_t len);

/* The offset from base of the first byte found cut in slot's mapping, or
 * UINT64_MAX when none was. */
uint64_t afmt_py_guard_cut_at(int slot);

/* Stop watching the slot (before unmapping it). */
void afmt_py_guard_unwatch(int slot);

#endif /* AFMT_PY_GUARD_H */
