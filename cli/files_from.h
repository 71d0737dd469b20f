/* afmt CLI: reading a list of inputs (--files-from FILE, -0).
 *
 * A batch engine or `find -print0` hands afmt-validate the paths to check
 * in a file or on standard input, one per line (or NUL-terminated with
 * -0), rather than on a command line that has a length limit.  The list is
 * read a path at a time through a fixed buffer: memory does not grow with
 * the list, and a path longer than the buffer is reported, not cut.
 */
#ifndef AFMT_CLI_FILES_FROM_H
#define AFMT_CLI_FILES_FROM_H

#include <stddef.h>

/* Called once per path, in list order.  too_long: the entry was longer
 * than the buffer (path then holds its first bytes, to name it). */
typedef void afmt_cli_each_path_fn(void *ctx, const char *path, int too_long);

/* Read the list at list_path ("-": standard input); entries end with
 * delim ('\n' or '\0').  With '\n' a final "\r" is dropped (lists written
 * on Windows) and empty lines are skipped; with '\0' only empty entries
 * are.  buf (size bytes, >= 2) holds one path at a time.  Returns 0, or -1
 * with errno set when the list cannot be opened or read. */
int afmt_cli_files_from(const char *list_path, int delim, char *buf, size_t size,
                        afmt_cli_each_path_fn *each, void *ctx);

#endif /* AFMT_CLI_FILES_FROM_H */
