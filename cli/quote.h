/* afmt CLI: file names in text output that cannot forge a line.
 *
 * A file name may hold any byte but '/' and NUL: a newline in it would
 * print a line that reads as another file's verdict ("evil\nmodel.npy: ok
 * ..."), a carriage return or an escape sequence could overwrite what the
 * terminal shows.  Text output therefore quotes such a name the way git
 * quotes paths (and ls -b escapes them): in double quotes, with C escapes
 * (\n, \t, \", \\) and every other control byte or byte of 0x80 and more
 * as a three-digit octal escape (\303\251), so the line stays one line and
 * the exact bytes can be read back.  A name is quoted when it holds a
 * control byte (below 0x20, 0x7f, or a UTF-8 C1 control), a '"' or '\\',
 * a byte that is not UTF-8, or a Unicode line separator or bidirectional
 * override (U+2028, U+2029, U+202A-U+202E, U+2066-U+2069: they move text
 * across what looks like a line); any other name, UTF-8 included, is
 * printed as it is.
 *
 * JSON output keeps the name recoverable another way (json_out.h:
 * afmt_cli_json_path).  Pure functions: thread-safe, no allocation.
 */
#ifndef AFMT_CLI_QUOTE_H
#define AFMT_CLI_QUOTE_H

#include <stddef.h>

/* Room for the quoted form of any path the CLI handles (4200 bytes at
 * most, each byte at most 4 once quoted, the quotes and the NUL). */
#define AFMT_CLI_QUOTED_MAX (4 * 4200 + 3)

/* 1 when name must be quoted in text output (see above), else 0. */
int afmt_cli_name_needs_quoting(const char *name);

/* name itself when it needs no quoting, else its quoted form written into
 * buf (cap bytes, which must be at least 8; a form that does not fit is
 * cut at an escape's boundary and ends in "...\"").  The result lives as
 * long as name or buf. */
const char *afmt_cli_quote_name(const char *name, char *buf, size_t cap);

#endif /* AFMT_CLI_QUOTE_H */
