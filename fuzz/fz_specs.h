/* afmt fuzzing: the shipped specs' JSON text, carried in the fuzz targets
 * (fuzz/build.sh writes fz_specs.c from the files spec/NAME.json) so that the reference
 * interpreter (interp/) can be a second oracle wherever a target runs,
 * with no file beside it (OSS-Fuzz runs the binaries alone). */
#ifndef AFMT_FUZZ_SPECS_H
#define AFMT_FUZZ_SPECS_H

/* The JSON text of the spec of format `name`, or NULL.  Static storage. */
const char *fz_spec_text(const char *name);

#endif
