/* afmt Python extension: what a run found, as plain Python values (the
 * Python half makes afmt.Result, afmt.ArrayInfo and afmt.Error of them).
 *
 * The result tuple: (ok, format, arrays, error, warnings, warnings_seen,
 * metadata, kvs, closest_match):
 *   ok        bool
 *   format    the format's name, or None (none detected)
 *   arrays    [(index, key, name, dtype, type_name, shape, strides, order,
 *              offset, nbytes, member, block, encoding), ...]: key is the
 *              name the array is found under (afmt_array_key: "arr_0" for
 *              an unnamed one), strides in elements or None (not
 *              strided), order "row-major" or "column-major", member the
 *              archive member or None, block the elements per quantized
 *              block (0: none), encoding "plain", "bits", "lz4", ...
 *   error     None, or (code, field, offset, message, format)
 *   warnings  [(code, field, offset, message, format), ...]
 *   metadata  the JSON text of the file's metadata (safetensors'
 *              __metadata__), or None
 *   kvs       [(key, value, type, offset), ...] (GGUF key-values, torch
 *              plain values)
 *   closest_match  when no format was detected, the one that read the
 *              furthest (whose error is the verdict), else None */
#ifndef AFMT_PY_DESCRIBE_H
#define AFMT_PY_DESCRIBE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "run.h"

/* New reference, NULL with an exception set. */
PyObject *afmt_py_run_result(const afmt_py_run *run);

/* The key array i of the run is found under, into buf (32 bytes at least
 * for an unnamed one); returns it. */
const char *afmt_py_array_key(const afmt_py_run *run, size_t i, char *buf, size_t size);

#endif /* AFMT_PY_DESCRIBE_H */
