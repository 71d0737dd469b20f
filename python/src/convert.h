/* afmt Python extension: _afmt.convert(src, dst, to=None, lenient=False),
 * the C half of afmt.convert, and _afmt.output_format(path, to=None).
 *
 * The input is validated (as afmt-validate would), the output's format
 * chosen as afmt convert chooses it (cli/out_format.c, compiled in: an
 * extension that names a format wins or is refused), each array decoded
 * into the target's order (GGUF's quantized blocks copied as they are) and
 * asked of the target before anything is written; what the target can
 * keep is kept: the trailer when the format stays, safetensors'
 * __metadata__ for a target with JSON metadata, typed key-values for a
 * target with them.  Refusals raise afmt.Refused naming the array; an
 * invalid input raises afmt.InvalidFile.  The GIL is released from
 * opening the input to committing the output. */
#ifndef AFMT_PY_CONVERT_H
#define AFMT_PY_CONVERT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *afmt_py_convert(PyObject *module, PyObject *args, PyObject *kw);
PyObject *afmt_py_output_format(PyObject *module, PyObject *args, PyObject *kw);

#endif /* AFMT_PY_CONVERT_H */
