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
/* "path":"NAME" for a file name; when NAME is not UTF-8 (the string then
 * shows U+FFFD where its bytes are not), also ,"path_bytes":"BASE64": the
 * name's exact bytes in RFC 4648 base64, so the file can still be named
 * (docs/afmt-validate.1, JSON OUTPUT). */
int afmt_cli_json_path(afmt_cli_buf *b, const char *path);
/* The UTF-8 sequence at s (at most n bytes, n >= 1, s[0] >= 0x80): its
 * length, with *valid set when it is well formed; else the length of its
 * maximal subpart (the bytes one U+FFFD replaces). */
size_t afmt_cli_utf8_scan(const unsigned char *s, size_t n, int *valid);
/* {"code":"overflow","offset":32,"field":"size","message":"..."} */
int afmt_cli_json_error(afmt_cli_buf *b, const afmt_error *err);

#endif /* AFMT_CLI_JSON_OUT_H */
