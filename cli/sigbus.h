/* afmt CLI: reading a mapped file that someone else cuts short.
 *
 * The first access past the file's new end raises SIGBUS.  Two ways to
 * turn it into an error instead of a death by signal:
 *
 * - afmt_cli_sigbus_guard: fn(ctx) runs with a way back here, and a
 *   SIGBUS brings control back with the faulting address.  For code that
 *   reads the mapping outside stdio and the allocator (a validator, the
 *   callbacks of afmt-validate and afmt info), so nothing is left locked.
 *
 * - afmt_cli_sigbus_watch: for the rest (afmt dump and convert read the
 *   mapping inside fwrite, write and memcpy): a SIGBUS inside the watched
 *   mapping, outside any guard, writes "PROG: PATH: error: the file was
 *   cut short while it was read: no byte at offset N any more (it was M
 *   bytes when opened)" to stderr, removes the temporary outputs
 *   (cleanup.h) and ends the process with exit status 2.
 *
 * Any other SIGBUS is a real crash and kills the process as before.
 * Thread-safe: each thread has its own way back; the watch is process-
 * wide (one input at a time, for the single-input commands).
 */
#ifndef AFMT_CLI_SIGBUS_H
#define AFMT_CLI_SIGBUS_H

#include <stddef.h>
#include <stdint.h>

/* 0 when fn returned, -1 when a SIGBUS cut it short; then *fault_addr
 * (may be NULL) is the address it touched.  fn's state is then whatever
 * it was; it must not hold locks or own memory it has not recorded
 * elsewhere. */
int afmt_cli_sigbus_guard(void (*fn)(void *ctx), void *ctx, uintptr_t *fault_addr);

/* A file's mapping: [base, base + len) maps path, whose (st_dev,
 * st_ino) were dev and ino when it was mapped.  path may be NULL. */
typedef struct afmt_cli_mapped {
    const char *path;
    const void *base;
    uint64_t len;
    uint64_t dev, ino;
} afmt_cli_mapped;

/* "the file was cut short while it was read: no byte at offset N any more
 * (it was LEN bytes when opened)" into msg (cap bytes), and N: the first
 * byte no longer there.  That is the file's size now, when path is still
 * the file mapped and now ends before the faulting address; else the
 * faulting address's place in the mapping, or LEN when it is outside it.
 * (Where a reader faults depends on the order it touches bytes in: memcpy
 * loads a copy's last bytes first.) */
uint64_t afmt_cli_sigbus_describe(uintptr_t fault_addr, const afmt_cli_mapped *file, char *msg, size_t cap);

/* Watch file's mapping for the rest of the process or until
 * afmt_cli_sigbus_unwatch: a SIGBUS in it outside a guard ends the process
 * as said above, its message beginning "PROG: " (prog may be NULL) and
 * naming file->path (quoted as quote.h quotes names), its offset found as
 * afmt_cli_sigbus_describe finds it.  The message is made here, so the
 * handler only adds the numbers; file need not outlive the call. */
void afmt_cli_sigbus_watch(const char *prog, const afmt_cli_mapped *file);
void afmt_cli_sigbus_unwatch(void);

#endif /* AFMT_CLI_SIGBUS_H */
