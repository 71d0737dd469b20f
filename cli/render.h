/* afmt CLI: writing one input's verdict into the worker's output, as a
 * text line (plus the -v listing) or one JSON object, and counting it. */
#ifndef AFMT_CLI_RENDER_H
#define AFMT_CLI_RENDER_H

#include "report.h"

/* The verdict on display: valid (with what collect.c gathered) or not
 * (err; fmt NULL when no format matched).  -q drops valid ones. */
void afmt_cli_emit(afmt_cli_worker *w, const char *display,
                   const afmt_format *fmt, int valid, const afmt_error *err);

#endif /* AFMT_CLI_RENDER_H */
