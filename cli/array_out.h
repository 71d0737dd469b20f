/* afmt CLI: one array as the reports show it, the same in afmt-validate
 * -v / --json, afmt info and afmt dump --list. */
#ifndef AFMT_CLI_ARRAY_OUT_H
#define AFMT_CLI_ARRAY_OUT_H

#include <stdint.h>
#include "afmt.h"
#include "buf.h"

/* Append "[INDEX] NAME DTYPE[SHAPE] ORDER", e.g. "[0] c64[3,4] column-major"
 * (NAME, escaped as afmt_cli_buf_put_escaped does, only when the array has
 * one).  An allocation failure sets b->oom. */
void afmt_cli_put_array_label(afmt_cli_buf *b, uint64_t index, const afmt_array *a);

/* Append {"index","name","dtype","shape","order","offset","nbytes"}. */
void afmt_cli_put_array_json(afmt_cli_buf *b, uint64_t index, const afmt_array *a);

#endif /* AFMT_CLI_ARRAY_OUT_H */
