/* afmt CLI: a metadata file beside the data (DAPHNE's x.dbdf.meta),
 * described by the format's spec (fmt->sidecar).  When it exists it is
 * read (bounded) before the data is validated, each array is checked
 * against it as it is visited, and its end is checked afterwards.  A
 * sidecar that disagrees makes the input invalid, naming the sidecar. */
#ifndef AFMT_CLI_SIDECAR_H
#define AFMT_CLI_SIDECAR_H

#include "report.h"

/* Load path + fmt->sidecar->suffix if fmt has a sidecar and the file is
 * there; otherwise nothing is checked. */
void afmt_cli_sidecar_begin(afmt_cli_worker *w, const afmt_format *fmt, const char *path);

/* The index-th array of the data (from the visitor). */
void afmt_cli_sidecar_check_array(afmt_cli_worker *w, const afmt_array *a, uint64_t index);

/* After a valid data file: 0 when the sidecar (if any) agrees, else -1
 * with *err naming the sidecar's field.  Forgets the sidecar. */
int afmt_cli_sidecar_end(afmt_cli_worker *w, const afmt_format *fmt, int valid, afmt_error *err);

#endif /* AFMT_CLI_SIDECAR_H */
