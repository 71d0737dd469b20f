/* afmt Python extension: a validated file, mapped read-only (the object
 * behind afmt.open), and afmt.validate over a path or bytes.
 *
 * A Mapped holds the afmt_file (descriptor and mapping) and the run that
 * validated it.  It exports the whole mapping through the buffer protocol
 * (read-only bytes), so that numpy arrays made over it
 * (numpy.ndarray(buffer=mapped, ...)) keep it alive as their base: the
 * mapping is unmapped only when the Mapped is freed, that is when no array
 * of it is left.  close() only stops new arrays from being made.
 *
 * While it lives the mapping is watched (guard.h): a SIGBUS from a view
 * reading past a cut gives zero pages and check() raises FileChanged. */
#ifndef AFMT_PY_MAPPED_H
#define AFMT_PY_MAPPED_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* The type, made ready by the module's init (0, or -1 with an exception). */
int afmt_py_mapped_ready(PyObject *module);

/* _afmt.open_mapped(path, format=None, lenient=False, limits=None) */
PyObject *afmt_py_open_mapped(PyObject *module, PyObject *args, PyObject *kw);

/* _afmt.validate(source, format=None, lenient=False, limits=None): the
 * result tuple of describe.h; raises only for bad arguments. */
PyObject *afmt_py_validate(PyObject *module, PyObject *args, PyObject *kw);

#endif /* AFMT_PY_MAPPED_H */
