/* afmt CLI: a growable byte buffer.
 *
 * Used for output lines, JSON objects and input read from pipes.  A buffer
 * is owned by one worker and reused from file to file: reset keeps the
 * allocation, so per-file work allocates nothing once buffers have grown.
 */
#ifndef AFMT_CLI_BUF_H
#define AFMT_CLI_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct afmt_cli_buf {
    char *p;     /* NUL-terminated when len < cap (text use) */
    size_t len;
    size_t cap;
    int oom;     /* an append failed: the content is incomplete */
} afmt_cli_buf;

void afmt_cli_buf_init(afmt_cli_buf *b);
void afmt_cli_buf_free(afmt_cli_buf *b);
/* Empty the buffer, keeping its memory unless it grew beyond keep bytes. */
void afmt_cli_buf_reset(afmt_cli_buf *b, size_t keep);
/* Make room for n more bytes; 0 or -1 (and oom set). */
int afmt_cli_buf_reserve(afmt_cli_buf *b, size_t n);
int afmt_cli_buf_put(afmt_cli_buf *b, const void *p, size_t n);
int afmt_cli_buf_puts(afmt_cli_buf *b, const char *s);
int afmt_cli_buf_putc(afmt_cli_buf *b, char c);
int afmt_cli_buf_printf(afmt_cli_buf *b, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int afmt_cli_buf_u64(afmt_cli_buf *b, uint64_t v);

/* Append s for a one-line text report: printable ASCII other than space and
 * backslash as is, everything else as \xNN, so a name never breaks a line
 * or a field. */
int afmt_cli_buf_put_escaped(afmt_cli_buf *b, const char *s, size_t n);

#endif /* AFMT_CLI_BUF_H */
