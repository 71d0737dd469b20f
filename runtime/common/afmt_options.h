/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime (internal): warnings and tolerances, as generated code
 * reports them.  The options themselves are public, in afmt.h.
 *
 * There is no global state: limits, strictness and the callbacks that
 * receive arrays and warnings travel in these structs.
 */
#ifndef AFMT_OPTIONS_H
#define AFMT_OPTIONS_H

#include <stdarg.h>
#include <stdint.h>
#include "../afmt.h"
#include "../array/afmt_array.h"
#include "afmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tell opt->fields (when set) of a header field the validator just read;
 * generated validators call it behind `if (opt->fields)`.  The field's
 * name is formatted with its path ("value[1].dims") only here.
 * value_name: what the spec calls this value ("string"), or NULL. */
AFMT_GEN_API void afmt_report_field(const afmt_options *opt, const afmt_path *path, const char *name,
                                    afmt_field_kind kind, uint64_t offset, int is_array, uint64_t count,
                                    unsigned width, int big_endian, const uint8_t *bytes, const char *doc,
                                    const char *value_name);

/* Report a lenient tolerance (mode LENIENT) or fail (mode STRICT): the one
 * place generated code decides between warning and error. */
AFMT_GEN_API int afmt_tolerate(const afmt_options *opt, const afmt_visitor *vis,
                               afmt_error *err, afmt_code code, const afmt_path *path,
                               const char *field, uint64_t index, uint64_t offset,
                               const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 9, 10)))
#endif
    ;
/* afmt_tolerate with the message's arguments as a va_list. */
int afmt_toleratev(const afmt_options *opt, const afmt_visitor *vis, afmt_error *err,
                   afmt_code code, const afmt_path *path, const char *field, uint64_t index,
                   uint64_t offset, const char *fmt, va_list ap)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 9, 0)))
#endif
    ;

/* Report a warning in any mode. */
AFMT_GEN_API void afmt_warn(const afmt_visitor *vis, const afmt_path *path,
                            const char *field, uint64_t index, uint64_t offset,
                            const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif /* AFMT_OPTIONS_H */
