/* afmt CLI: naming formats, element types and orders in messages (lookups
 * are the registry's, afmt_format.h). */
#ifndef AFMT_CLI_FORMATS_H
#define AFMT_CLI_FORMATS_H

#include <stdio.h>
#include "afmt.h"

/* "row-major" / "column-major" */
const char *afmt_cli_order_name(afmt_order order);

/* "futhark, tenbin, ..." */
void afmt_cli_print_format_names(FILE *f);

/* "bool, i8, ..., c128": every element type a user can name (not opaque),
 * by kind and size, from the runtime's dtype table. */
void afmt_cli_print_dtype_names(FILE *f);

/* Resolve --format NAME or print "PROG: unknown format 'NAME' (known: ...)"
 * to stderr and return NULL. */
const afmt_format *afmt_cli_format_arg(const char *prog, const char *name);

#endif /* AFMT_CLI_FORMATS_H */
