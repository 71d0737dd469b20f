/* afmt CLI: --spec FILE, a format of one's own with no build step.  The
 * spec is loaded by the reference interpreter (interp/afmt_interp.h), whose
 * format descriptor stands for it everywhere a format goes; the calls that
 * run a format's code go through the functions below, which run the
 * interpreter for that descriptor and the generated code for any other. */
#ifndef AFMT_CLI_SPEC_H
#define AFMT_CLI_SPEC_H

#include <stdint.h>
#include "afmt_interp.h"
#include "afmt.h"

/* Load the spec at path, or print why not to stderr and return NULL: a
 * spec afmt-gen refuses (its diagnostics, then "PROG: --spec PATH: not a
 * usable spec"), one whose construct the interpreter does not run yet,
 * or no memory.  The
 * result lives until exit (the tools free it last, or not at all). */
afmt_interp *afmt_cli_spec_arg(const char *prog, const char *path);

/* fmt->validate, or the interpreter when fmt is in's format (in may be
 * NULL: no --spec). */
int afmt_cli_validate(const afmt_interp *in, const afmt_format *fmt, const uint8_t *buf,
                      uint64_t len, const afmt_options *opt, const afmt_visitor *vis,
                      afmt_error *err);
/* fmt->validate_src, likewise. */
int afmt_cli_validate_src(const afmt_interp *in, const afmt_format *fmt, afmt_src *src,
                          const afmt_options *opt, const afmt_visitor *vis, afmt_error *err);
/* Does the input look like fmt: its magic (detect rules), else the
 * extension of name (may be NULL) among fmt's? */
int afmt_cli_looks_like(const afmt_interp *in, const afmt_format *fmt, const uint8_t *buf,
                        uint64_t len, const char *name);

#endif /* AFMT_CLI_SPEC_H */
