/* afmt Python extension: writing arrays out (afmt.save, afmt.convert).
 *
 * One path for both, as afmt convert has: every array is asked of the
 * target (can_write) before anything is written, so a refusal names the
 * array and leaves no file; then the writer writes through a file sink (a
 * temporary file renamed into place on commit, removed on failure); a
 * format with a sidecar (DAPHNE's .meta) gets it written beside. */
#ifndef AFMT_PY_WRITER_H
#define AFMT_PY_WRITER_H

#include "afmt.h"

/* Which array a refusal is about: its index, or (size_t)-1 when the
 * refusal is about the file as a whole. */
typedef struct afmt_py_refusal {
    size_t array;
    afmt_error err;
} afmt_py_refusal;

/* Write arrays[0..n) (plain, native, in fmt->order) as fmt to path, with
 * wopt (may be NULL).  0, or -1 with *why.  No Python object is touched:
 * call it with the GIL released. */
int afmt_py_write_file(const afmt_format *fmt, const afmt_array *arrays, size_t n,
                       const afmt_write_options *wopt, const char *path, afmt_py_refusal *why);

#endif /* AFMT_PY_WRITER_H */
