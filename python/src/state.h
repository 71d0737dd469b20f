/* afmt Python extension: the module's state and the helpers every file
 * shares (raising afmt's errors as Python exceptions).
 *
 * The state is what CPython needs per module: the exception classes the
 * Python half of the package defines (afmt/_errors.py) and hands over with
 * _afmt._set_errors, and the type of a mapped file.  Until they are set
 * (importing _afmt by itself), errors are raised as ValueError. */
#ifndef AFMT_PY_STATE_H
#define AFMT_PY_STATE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "afmt.h"

typedef struct afmt_py_state {
    PyObject *invalid_file;  /* afmt.InvalidFile(code, field, offset, message, format, path) */
    PyObject *refused;       /* afmt.Refused(array, code, field, offset, message, format) */
    PyObject *file_changed;  /* afmt.FileChanged, an InvalidFile */
} afmt_py_state;

/* The state of module m (the extension module object). */
afmt_py_state *afmt_py_state_of(PyObject *m);

/* (code, field, offset, message, format): an afmt_error as plain Python
 * values, offset None for AFMT_NO_OFFSET, format None for "".  New
 * reference, NULL with an exception set. */
PyObject *afmt_py_error_tuple(const afmt_error *err);

/* Raise cls (NULL: ValueError) for err about path (may be NULL); returns
 * NULL for `return afmt_py_raise(...)`. */
PyObject *afmt_py_raise(PyObject *cls, const afmt_error *err, const char *path);

/* Raise afmt.Refused naming the array (may be NULL) and err. */
PyObject *afmt_py_raise_refused(PyObject *m, const char *array, const afmt_error *err);

/* afmt_options from Python arguments: lenient, and limits (None or a
 * mapping of afmt_limits member names to ints).  0, or -1 with a Python
 * exception set. */
int afmt_py_options(afmt_options *opt, int lenient, PyObject *limits);

/* The format named by obj (None: NULL in *out, detect).  0, or -1 with
 * ValueError naming the formats there are. */
int afmt_py_format_arg(PyObject *obj, const afmt_format **out);

#endif /* AFMT_PY_STATE_H */
