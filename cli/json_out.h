/* afmt CLI: writing JSON values into a buffer.
 *
 * Only what the reports need: strings (escaped, always valid UTF-8 out:
 * bytes that are not UTF-8 become U+FFFD), and the error object shape
 * {"code","offset","field","message"} shared by errors and warnings.
 */
#ifndef AFMT_CLI_JSON_OUT_H
#define AFMT_CLI_JSON_OUT_H

#include <stddef.h>
#include "afmt.h"
#include "buf.h"

/* "..." with JSON escapes; n bytes of s (stops at n, not at NUL). */
int afmt_cli_json_str(afmt_cli_buf *b, const char *s, size_t n);
/* Same for a NUL-terminated string. */
int afmt_cli_json_cstr(afmt_cli_buf *b, const char *s);
/* {"code":"overflow","offset":32,"field":"size","message":"..."} */
int afmt_cli_json_error(afmt_cli_buf *b, const afmt_error *err);

#endif /* AFMT_CLI_JSON_OUT_H */
