/* afmt CLI: reading a mapped file that someone else cuts short.
 *
 * The first access past the file's new end raises SIGBUS.  fn(ctx) runs
 * with a handler installed that brings control back here instead of
 * killing the process.  Thread-safe: each thread has its own way back. */
#ifndef AFMT_CLI_SIGBUS_H
#define AFMT_CLI_SIGBUS_H

/* 0 when fn returned, -1 when a SIGBUS cut it short (fn's state is then
 * whatever it was; it must not hold locks or own memory it has not
 * recorded elsewhere). */
int afmt_cli_sigbus_guard(void (*fn)(void *ctx), void *ctx);

#endif /* AFMT_CLI_SIGBUS_H */
