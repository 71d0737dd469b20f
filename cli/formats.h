/* afmt CLI: looking formats up in the registry by name and extension. */
#ifndef AFMT_CLI_FORMATS_H
#define AFMT_CLI_FORMATS_H

#include <stdio.h>
#include "afmt_format.h"

/* "row-major" / "column-major" */
const char *afmt_cli_order_name(afmt_order order);

/* Does name end with ext (ASCII case-insensitive)? */
int afmt_cli_ends_with(const char *name, const char *ext);

/* The format whose extension is the longest suffix of path; NULL if none.
 * When two formats claim that same suffix, returns NULL and sets
 * *ambiguous to the first of them (else *ambiguous = NULL). */
const afmt_format *afmt_cli_format_by_ext(const char *path,
                                          const afmt_format **ambiguous);

/* Does name end with an extension of any known format? */
int afmt_cli_has_known_ext(const char *name);

/* ".tar", ".tar.gz", ".tgz", ...: a shard afmt-validate opens as an archive. */
int afmt_cli_is_tar_path(const char *path);

/* "futhark, tenbin, ..." */
void afmt_cli_print_format_names(FILE *f);

/* Resolve --format NAME or print "PROG: unknown format 'NAME' (known: ...)"
 * to stderr and return NULL. */
const afmt_format *afmt_cli_format_arg(const char *prog, const char *name);

#endif /* AFMT_CLI_FORMATS_H */
