/* afmt CLI: one array as the reports show it, the same in afmt-validate
 * -v / --json, afmt info and afmt dump --list. */
#ifndef AFMT_CLI_ARRAY_OUT_H
#define AFMT_CLI_ARRAY_OUT_H

#include <stddef.h>
#include <stdint.h>
#include "afmt.h"
#include "buf.h"

/* Append "[INDEX] NAME DTYPE[SHAPE] ORDER", e.g. "[0] c64[3,4] column-major"
 * (NAME, escaped as afmt_cli_buf_put_escaped does, only when the array has
 * one).  An allocation failure sets b->oom. */
void afmt_cli_put_array_label(afmt_cli_buf *b, uint64_t index, const afmt_array *a);

/* "[INDEX] NAME DTYPE[SHAPE]" ("[1] bias f32[3]"; without NAME when a has
 * none; the name escaped as afmt_cli_buf_put_escaped does) into out, cut
 * to size bytes (NUL-terminated when size > 0): how a refusal of dump or
 * convert names the array.  Allocates a scratch buffer it frees. */
void afmt_cli_array_text_label(char *out, size_t size, uint64_t index, const afmt_array *a);

/* Append {"index","name","dtype","shape","order","offset","nbytes"}. */
void afmt_cli_put_array_json(afmt_cli_buf *b, uint64_t index, const afmt_array *a);

#endif /* AFMT_CLI_ARRAY_OUT_H */
