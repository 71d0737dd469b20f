/* afmt Python extension: the module afmt._afmt (its functions, state and
 * init).  The Python half (python/afmt/__init__.py) builds the public API
 * on these; every format rule is the library's (runtime/, generated/). */
#include "state.h"

#include "convert.h"
#include "mapped.h"
#include "save.h"

afmt_py_state *afmt_py_state_of(PyObject *m)
{
    return (afmt_py_state *)PyModule_GetState(m);
}

/* _set_errors(InvalidFile, Refused, FileChanged): the classes to raise. */
static PyObject *set_errors(PyObject *m, PyObject *args)
{
    afmt_py_state *st = afmt_py_state_of(m);
    PyObject *invalid, *refused, *changed;

    if (!PyArg_ParseTuple(args, "OOO", &invalid, &refused, &changed))
        return NULL;
    Py_INCREF(invalid);
    Py_INCREF(refused);
    Py_INCREF(changed);
    Py_XSETREF(st->invalid_file, invalid);
    Py_XSETREF(st->refused, refused);
    Py_XSETREF(st->file_changed, changed);
    Py_RETURN_NONE;
}

/* A NULL-terminated list of strings as a tuple. */
static PyObject *string_tuple(const char *const *s)
{
    Py_ssize_t n = 0, i;
    PyObject *t;

    while (s && s[n])
        n++;
    if (!(t = PyTuple_New(n)))
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *x = PyUnicode_FromString(s[i]);
        if (!x) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

/* formats() -> [(name, extensions, shared_extensions, order, multi,
 * json_metadata, kv_metadata, sidecar_suffix), ...] in name order. */
static PyObject *formats(PyObject *m, PyObject *unused)
{
    PyObject *list = PyList_New(0);
    size_t i;

    (void)m;
    (void)unused;
    for (i = 0; list && i < afmt_format_count; i++) {
        const afmt_format *f = afmt_formats[i];
        PyObject *item;
        if (!f)
            continue;
        item = Py_BuildValue("(sNNsNNNz)", f->name, string_tuple(f->extensions),
                             string_tuple(f->shared_extensions),
                             f->order == AFMT_COL_MAJOR ? "column-major" : "row-major",
                             PyBool_FromLong(f->multi), PyBool_FromLong(f->json_metadata),
                             PyBool_FromLong(f->kv_metadata), afmt_sidecar_suffix(f));
        if (!item || PyList_Append(list, item) != 0) {
            Py_XDECREF(item);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(item);
    }
    return list;
}

static PyMethodDef methods[] = {
    { "validate", (PyCFunction)(void (*)(void))afmt_py_validate, METH_VARARGS | METH_KEYWORDS,
      "validate(source, format=None, lenient=False, limits=None) -> result tuple" },
    { "open_mapped", (PyCFunction)(void (*)(void))afmt_py_open_mapped, METH_VARARGS | METH_KEYWORDS,
      "open_mapped(path, format=None, lenient=False, limits=None) -> Mapped" },
    { "write", (PyCFunction)(void (*)(void))afmt_py_write, METH_VARARGS | METH_KEYWORDS,
      "write(path, format, arrays, metadata=None, kv=None)" },
    { "convert", (PyCFunction)(void (*)(void))afmt_py_convert, METH_VARARGS | METH_KEYWORDS,
      "convert(src, dst, to=None, format=None, lenient=False) -> the output's format" },
    { "output_format", (PyCFunction)(void (*)(void))afmt_py_output_format,
      METH_VARARGS | METH_KEYWORDS, "output_format(path, to=None) -> format name" },
    { "formats", formats, METH_NOARGS, "formats() -> list of format tuples" },
    { "_set_errors", set_errors, METH_VARARGS, "_set_errors(InvalidFile, Refused, FileChanged)" },
    { NULL, NULL, 0, NULL },
};

static int traverse(PyObject *m, visitproc visit, void *arg)
{
    afmt_py_state *st = afmt_py_state_of(m);

    Py_VISIT(st->invalid_file);
    Py_VISIT(st->refused);
    Py_VISIT(st->file_changed);
    return 0;
}

static int clear(PyObject *m)
{
    afmt_py_state *st = afmt_py_state_of(m);

    Py_CLEAR(st->invalid_file);
    Py_CLEAR(st->refused);
    Py_CLEAR(st->file_changed);
    return 0;
}

static void free_module(void *m)
{
    clear((PyObject *)m);
}

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_afmt",
    "The C half of afmt: validation, mapped views, writing and conversion over libafmt.",
    sizeof(afmt_py_state), methods, NULL, traverse, clear, free_module,
};

PyMODINIT_FUNC PyInit__afmt(void);

PyMODINIT_FUNC PyInit__afmt(void)
{
    PyObject *m = PyModule_Create(&module_def);

    if (!m)
        return NULL;
    if (afmt_py_mapped_ready(m) != 0 ||
        PyModule_AddStringConstant(m, "version", AFMT_VERSION_STRING) != 0 ||
        PyModule_AddIntConstant(m, "runtime_abi", AFMT_RUNTIME_ABI) != 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
