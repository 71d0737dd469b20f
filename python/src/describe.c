/* afmt Python extension: a run as plain Python values (see describe.h). */
#include "describe.h"

#include <string.h>

#include "state.h"
#include "values.h"

static const char *encoding_name(afmt_encoding e)
{
    switch (e) {
    case AFMT_ENC_PLAIN: return "plain";
    case AFMT_ENC_BITS_LSB: return "bits";
    case AFMT_ENC_LZ4_BLOCK: return "lz4";
    case AFMT_ENC_CSR: return "csr";
    case AFMT_ENC_ZEROS: return "zeros";
    case AFMT_ENC_COO: return "coo";
    case AFMT_ENC_TEXT: return "text";
    }
    return "unknown";
}

/* A name as stored (any bytes): str, bad UTF-8 replaced. */
static PyObject *name_text(const char *s)
{
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "surrogateescape");
}

const char *afmt_py_array_key(const afmt_py_run *run, size_t i, char *buf, size_t size)
{
    return afmt_array_key(&run->views.v[i], i, buf, size);
}

static PyObject *dims_tuple(const uint64_t *dims, uint32_t rank)
{
    PyObject *t = PyTuple_New(rank);
    uint32_t k;

    for (k = 0; t && k < rank; k++) {
        PyObject *d = PyLong_FromUnsignedLongLong(dims[k]);
        if (!d) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, k, d);
    }
    return t;
}

static PyObject *array_tuple(const afmt_py_run *run, size_t i)
{
    const afmt_array *a = &run->views.v[i];
    const char *member = afmt_py_run_member(run, i);
    char key[64];
    PyObject *shape = dims_tuple(a->dims, a->rank);
    PyObject *strides = a->strided ? dims_tuple(a->strides, a->rank) : (Py_INCREF(Py_None), Py_None);
    PyObject *k = name_text(afmt_py_array_key(run, i, key, sizeof key));
    PyObject *name = name_text(a->name);
    PyObject *mem = member ? name_text(member) : (Py_INCREF(Py_None), Py_None);
    PyObject *t = NULL;

    if (shape && strides && k && name && mem)
        t = Py_BuildValue("(IOOssOOsKKOKs)", a->index, k, name, afmt_dtype_name(afmt_array_value_dtype(a)),
                          afmt_array_type_name(a), shape, strides,
                          a->order == AFMT_COL_MAJOR ? "column-major" : "row-major",
                          (unsigned long long)a->offset, (unsigned long long)a->nbytes, mem,
                          (unsigned long long)a->block, encoding_name(a->encoding));
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_XDECREF(k);
    Py_XDECREF(name);
    Py_XDECREF(mem);
    return t;
}

static PyObject *kv_tuple(const afmt_py_kv *kv)
{
    char type[160];
    PyObject *key = PyUnicode_DecodeUTF8((const char *)kv->kv->key, (Py_ssize_t)kv->kv->key_len,
                                         "surrogateescape");
    PyObject *value = afmt_py_value_to_python(&kv->kv->value);
    PyObject *t = NULL;

    afmt_py_value_type(&kv->kv->value, type, sizeof type);
    if (key && value)
        t = Py_BuildValue("(OOsK)", key, value, type, (unsigned long long)kv->offset);
    Py_XDECREF(key);
    Py_XDECREF(value);
    return t;
}

/* [f(i) for i in range(n)], NULL with an exception. */
static PyObject *list_of(size_t n, PyObject *(*f)(const void *ctx, size_t i), const void *ctx)
{
    PyObject *list = PyList_New((Py_ssize_t)n);
    size_t i;

    for (i = 0; list && i < n; i++) {
        PyObject *item = f(ctx, i);
        if (!item) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

static PyObject *nth_array(const void *ctx, size_t i)
{
    return array_tuple(ctx, i);
}

static PyObject *nth_warning(const void *ctx, size_t i)
{
    return afmt_py_error_tuple(&((const afmt_py_run *)ctx)->warnings[i]);
}

static PyObject *nth_kv(const void *ctx, size_t i)
{
    return kv_tuple(&((const afmt_py_run *)ctx)->kvs[i]);
}

PyObject *afmt_py_run_result(const afmt_py_run *run)
{
    size_t kept = run->views.n < run->views.max ? run->views.n : run->views.max;
    PyObject *arrays = list_of(run->valid ? kept : 0, nth_array, run);
    PyObject *warnings = list_of(run->n_warnings, nth_warning, run);
    PyObject *kvs = list_of(run->valid ? run->n_kvs : 0, nth_kv, run);
    PyObject *error = run->valid ? (Py_INCREF(Py_None), Py_None) : afmt_py_error_tuple(&run->error);
    PyObject *metadata = run->valid && run->metadata
                             ? PyUnicode_DecodeUTF8((const char *)run->metadata,
                                                    (Py_ssize_t)run->metadata_len, "replace")
                             : (Py_INCREF(Py_None), Py_None);
    PyObject *format = run->fmt && !run->closest ? PyUnicode_FromString(run->fmt->name)
                                                 : (Py_INCREF(Py_None), Py_None);
    PyObject *t = NULL;

    if (arrays && warnings && kvs && error && metadata && format)
        t = Py_BuildValue("(OOOOOKOOz)", run->valid ? Py_True : Py_False, format, arrays, error,
                          warnings, (unsigned long long)run->warnings_seen, metadata, kvs,
                          run->fmt && run->closest ? run->fmt->name : NULL);
    Py_XDECREF(arrays);
    Py_XDECREF(warnings);
    Py_XDECREF(kvs);
    Py_XDECREF(error);
    Py_XDECREF(metadata);
    Py_XDECREF(format);
    return t;
}
