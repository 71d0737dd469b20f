/* afmt Python extension: _afmt.write (see save.h). */
#include "save.h"

#include <stdlib.h>
#include <string.h>

#include "state.h"
#include "values.h"
#include "writer.h"

/* The buffers held while writing, released after. */
typedef struct held {
    Py_buffer *b;
    size_t n;
} held;

static void release_all(held *h)
{
    size_t i;

    for (i = 0; i < h->n; i++)
        PyBuffer_Release(&h->b[i]);
    free(h->b);
}

/* One (key, buffer, dtype, shape, opaque_name) entry as a view over the
 * buffer; 0, or -1 with an exception (Refused naming the key). */
static int array_from_entry(PyObject *m, const afmt_format *fmt, PyObject *entry, Py_buffer *b,
                            afmt_array *a)
{
    const char *key, *dtype_name, *opaque = NULL;
    PyObject *buffer, *shape;
    Py_ssize_t k, rank;
    afmt_dtype dtype;
    afmt_error err;
    uint64_t count = 1, elsize, need;

    if (!PyArg_ParseTuple(entry, "sOsO!z", &key, &buffer, &dtype_name, &PyTuple_Type, &shape, &opaque))
        return -1;
    afmt_error_clear(&err);
    dtype = afmt_dtype_from_name(dtype_name);
    if (dtype == AFMT_DTYPE_INVALID) {
        err.code = AFMT_E_TYPE;
        err.offset = AFMT_NO_OFFSET;
        snprintf(err.message, sizeof err.message, "no afmt element type %s", dtype_name);
        afmt_py_raise_refused(m, key, &err);
        return -1;
    }
    rank = PyTuple_GET_SIZE(shape);
    if (rank > AFMT_RANK_CAP) {
        PyErr_Format(PyExc_ValueError, "%s: rank %zd, afmt holds at most %d", key, rank, AFMT_RANK_CAP);
        return -1;
    }
    if (PyObject_GetBuffer(buffer, b, fmt->order == AFMT_COL_MAJOR ? PyBUF_F_CONTIGUOUS
                                                                   : PyBUF_C_CONTIGUOUS) != 0)
        return -1;
    afmt_array_init(a, dtype);
    a->rank = (uint32_t)rank;
    for (k = 0; k < rank; k++) {
        unsigned long long d = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(shape, k));
        if (d == (unsigned long long)-1 && PyErr_Occurred())
            return -1;
        a->dims[k] = d;
        if (__builtin_mul_overflow(count, (uint64_t)d, &count)) {
            PyErr_Format(PyExc_OverflowError, "%s: the shape's product overflows 64 bits", key);
            return -1;
        }
    }
    elsize = dtype == AFMT_OPAQUE ? (count ? (uint64_t)b->len / count : 1) : afmt_dtype_get(dtype)->size;
    if (dtype == AFMT_OPAQUE) {
        a->elsize = a->stride = elsize;
        snprintf(a->opaque_name, sizeof a->opaque_name, "%s", opaque ? opaque : "");
    }
    if (__builtin_mul_overflow(count, elsize, &need) || need != (uint64_t)b->len) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes of data for %llu elements of %llu bytes", key,
                     b->len, (unsigned long long)count, (unsigned long long)elsize);
        return -1;
    }
    a->count = count;
    a->order = fmt->order;
    a->data = b->buf;
    a->nbytes = (uint64_t)b->len;
    snprintf(a->name, sizeof a->name, "%s", key);
    return 0;
}

PyObject *afmt_py_write(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *names[] = { "path", "format", "arrays", "metadata", "kv", NULL };
    PyObject *path_obj, *path = NULL, *arrays, *metadata = Py_None, *kv = Py_None;
    const char *format_name, *md = NULL;
    Py_ssize_t md_len = 0, n, i;
    const afmt_format *fmt;
    afmt_write_options wopt;
    afmt_py_arena arena;
    afmt_py_refusal why;
    afmt_array *views = NULL;
    held h = { NULL, 0 };
    PyObject *result = NULL;
    int rc;

    memset(&arena, 0, sizeof arena);
    memset(&wopt, 0, sizeof wopt);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OsO!|OO", names, &path_obj, &format_name,
                                     &PyList_Type, &arrays, &metadata, &kv))
        return NULL;
    if (!(fmt = afmt_format_by_name(format_name)))
        return PyErr_Format(PyExc_ValueError, "no format %s", format_name);
    if (!PyUnicode_FSConverter(path_obj, &path))
        return NULL;
    n = PyList_GET_SIZE(arrays);
    views = calloc((size_t)n ? (size_t)n : 1, sizeof *views);
    h.b = calloc((size_t)n ? (size_t)n : 1, sizeof *h.b);
    if (!views || !h.b) {
        PyErr_NoMemory();
        goto done;
    }
    for (i = 0; i < n; i++) {
        if (array_from_entry(m, fmt, PyList_GET_ITEM(arrays, i), &h.b[h.n], &views[i]) != 0) {
            if (h.b[h.n].obj)
                h.n++;
            goto done;
        }
        h.n++;
    }
    if (metadata != Py_None) {
        if (!(md = PyUnicode_AsUTF8AndSize(metadata, &md_len)))
            goto done;
        wopt.metadata = (const uint8_t *)md;
        wopt.metadata_len = (uint64_t)md_len;
    }
    if (kv != Py_None && afmt_py_kvs_from_python(kv, &arena, (afmt_kv **)&wopt.kv, &wopt.n_kv) != 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    rc = afmt_py_write_file(fmt, views, (size_t)n, &wopt, PyBytes_AS_STRING(path), &why);
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        afmt_py_raise_refused(m, why.array == (size_t)-1 ? NULL : views[why.array].name, &why.err);
        goto done;
    }
    Py_INCREF(Py_None);
    result = Py_None;
done:
    release_all(&h);
    free(views);
    afmt_py_arena_free(&arena);
    Py_XDECREF(path);
    return result;
}
