/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: the descriptor every generated format exports.  afmt_format
 * and the lookup functions are public and live in afmt.h; this header
 * pulls in what a descriptor refers to.
 *
 * afmt-gen emits one `const afmt_format afmt_<name>_format` per spec and a
 * registry (generated/afmt_formats.c) listing them all, so tools find a new
 * format after `make regen && make` with no C change.
 */
#ifndef AFMT_FORMAT_H
#define AFMT_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include "../afmt.h"
#include "../array/afmt_array.h"
#include "../common/afmt_error.h"
#include "../common/afmt_options.h"
#include "../io/afmt_sink.h"
#include "../io/afmt_src.h"
#include "../text/afmt_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif /* AFMT_FORMAT_H */
