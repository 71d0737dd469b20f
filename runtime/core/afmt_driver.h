/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: the drivers behind every generated format's entry points.
 *
 * Generated code supplies the format-specific bodies (a validator body over
 * an afmt_src, a writer body over a sink); these functions do what every
 * format does around them: defaults for a NULL options pointer, clearing and
 * naming errors, turning a buffer into a source, counting sinks for exact
 * sizes, and freeing the writer's scratch buffer on every path.
 */
#ifndef AFMT_DRIVER_H
#define AFMT_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include "../array/afmt_array.h"
#include "../common/afmt_error.h"
#include "../common/afmt_options.h"
#include "../io/afmt_sink.h"
#include "../io/afmt_src.h"
#include "afmt_step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A validator body: the spec's items, read through c (afmt_step.h), which
 * afmt_run_validator fills (input, options, visitor, error, an empty path,
 * pos 0) after holding the input to opt->limits.max_total_bytes. */
typedef int (*afmt_validate_body_fn)(afmt_validation *c);
/* owned: a buffer the body may malloc (compressed payloads), freed after. */
typedef int (*afmt_write_body_fn)(const afmt_array *arrays, size_t n, const afmt_write_options *wopt,
                                  afmt_sink *sink, afmt_error *err, uint8_t **owned);

AFMT_GEN_API int afmt_run_validator(afmt_validate_body_fn body, const char *format, afmt_src *src,
                                    const afmt_options *opt, const afmt_visitor *vis, afmt_error *err);
/* A validator body that reads an argument of its caller's (the reference
 * interpreter's spec, interp/), and afmt_run_validator for it: the same
 * driver, arg handed to body unchanged. */
typedef int (*afmt_validate_body_arg_fn)(afmt_validation *c, const void *arg);
AFMT_GEN_API int afmt_run_validator_arg(afmt_validate_body_arg_fn body, const void *arg, const char *format,
                                        afmt_src *src, const afmt_options *opt, const afmt_visitor *vis,
                                        afmt_error *err);
AFMT_GEN_API int afmt_run_validator_buffer(afmt_validate_body_fn body, const char *format, const uint8_t *buf,
                                           uint64_t len, const afmt_options *opt, const afmt_visitor *vis,
                                           afmt_error *err);
AFMT_GEN_API int afmt_run_writer(afmt_write_body_fn body, const char *format, const afmt_array *arrays, size_t n,
                                 const afmt_write_options *wopt, afmt_sink *sink, afmt_error *err);
/* The writer through a counting sink: encoded_size and can_write can never
 * disagree with write. */
AFMT_GEN_API int afmt_run_writer_size(afmt_write_body_fn body, const char *format, const afmt_array *arrays,
                                      size_t n, const afmt_write_options *wopt, uint64_t *size, afmt_error *err);

#ifdef __cplusplus
}
#endif
#endif
