/* afmt CLI: a regular file validated through a window by offset
 * (afmt_src_seekable) instead of a whole-file map.
 *
 * afmt-validate opens every regular file larger than the window so
 * (afmt_cli_input_open_windowed; one that fits is mapped, within the same
 * bound), and afmt info one it cannot map (ulimit -v below its size):
 * memory and address space are then the 32 MiB window whatever the
 * file's size, a payload no check reads is skipped unread,
 * and the file's length is known at once (unlike a pipe's).  What must be
 * held at once and does not fit the window (a header of more than 32 MiB,
 * a zip archive, which is read whole) sets in->window_short; afmt-validate
 * then maps the file and validates it from memory (check.c), so a verdict
 * never depends on the window.
 *
 * A file cut short while it is read gives AFMT_E_IO naming the offset
 * where bytes are missing, as a mapped one does ("the file was cut short
 * while it was read: no byte at offset N any more (it was M bytes when
 * opened)").  Thread-safe: the state of a validation is on the caller's
 * stack and in its window.
 */
#ifndef AFMT_CLI_WINDOW_FILE_H
#define AFMT_CLI_WINDOW_FILE_H

#include "afmt.h"
#include "input.h"

struct afmt_interp;

/* Validate the windowed file in (in->windowed_file: in->fd open, in->size
 * its size when opened) as fmt through window (AFMT_CLI_STREAM_WINDOW
 * bytes, the caller's), with --spec's interpreter when interp is not NULL.
 * 0 valid, else -1 with err; in->window_short says whether the failure was
 * the window's (then the bytes may validate from memory). */
int afmt_cli_windowed_validate(const struct afmt_interp *interp, const afmt_format *fmt,
                               afmt_cli_input *in, uint8_t *window, const afmt_options *opt,
                               const afmt_visitor *vis, afmt_error *err);

/* Map the windowed file in whole, read-only, for a validation from memory
 * after the window fell short: in->map, map_len, data and len then
 * describe the mapping, which afmt_cli_input_close unmaps.  0, or -1 with
 * err (the mmap's errno text; ENOMEM under ulimit -v). */
int afmt_cli_input_map(afmt_cli_input *in, afmt_error *err);

#endif /* AFMT_CLI_WINDOW_FILE_H */
