/* afmt Python extension: _afmt.write, the C half of afmt.save.
 *
 * _afmt.write(path, format, arrays, metadata=None, kv=None):
 *   arrays    [(key, buffer, dtype, shape, opaque_name), ...]: buffer any
 *             object of the buffer protocol holding the elements plain, in
 *             the host's byte order and in the format's order (the Python
 *             half passes numpy.ascontiguousarray or asfortranarray);
 *             dtype an afmt name ("f32", "bf16", "opaque"); opaque_name
 *             the type's name for opaque elements ("F8_E4M3") or None
 *   metadata  JSON text of an object of strings (safetensors), or None
 *   kv        a dict of typed key-values (GGUF; values.h), or None
 * Refusals raise afmt.Refused naming the array; the GIL is released while
 * the file is written. */
#ifndef AFMT_PY_SAVE_H
#define AFMT_PY_SAVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *afmt_py_write(PyObject *module, PyObject *args, PyObject *kw);

#endif /* AFMT_PY_SAVE_H */
