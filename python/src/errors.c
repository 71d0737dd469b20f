/* afmt Python extension: afmt errors as Python values and exceptions (see
 * state.h). */
#include "state.h"

#include <string.h>

/* s as a str, bad UTF-8 replaced: fields and messages quote file bytes,
 * which must never make reporting an error fail. */
static PyObject *text(const char *s)
{
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

PyObject *afmt_py_error_tuple(const afmt_error *err)
{
    PyObject *items[5];
    PyObject *t = NULL;
    int i;

    items[0] = PyUnicode_FromString(afmt_code_name(err->code));
    items[1] = text(err->field);
    items[2] = err->offset == AFMT_NO_OFFSET ? (Py_INCREF(Py_None), Py_None)
                                             : PyLong_FromUnsignedLongLong(err->offset);
    items[3] = text(err->message);
    items[4] = err->format[0] ? text(err->format) : (Py_INCREF(Py_None), Py_None);
    if (items[0] && items[1] && items[2] && items[3] && items[4])
        t = PyTuple_Pack(5, items[0], items[1], items[2], items[3], items[4]);
    for (i = 0; i < 5; i++)
        Py_XDECREF(items[i]);
    return t;
}

PyObject *afmt_py_raise(PyObject *cls, const afmt_error *err, const char *path)
{
    PyObject *t = afmt_py_error_tuple(err), *args, *exc;
    char text[AFMT_FIELD_MAX + AFMT_MESSAGE_MAX + 64];

    if (!t)
        return NULL;
    if (!cls) {
        afmt_error_describe(err, text, sizeof text);
        Py_DECREF(t);
        PyErr_SetString(PyExc_ValueError, text);
        return NULL;
    }
    /* InvalidFile(code, field, offset, message, format, path) */
    args = Py_BuildValue("(OOOOOs)", PyTuple_GET_ITEM(t, 0), PyTuple_GET_ITEM(t, 1),
                         PyTuple_GET_ITEM(t, 2), PyTuple_GET_ITEM(t, 3), PyTuple_GET_ITEM(t, 4),
                         path);
    Py_DECREF(t);
    if (!args)
        return NULL;
    exc = PyObject_Call(cls, args, NULL);
    Py_DECREF(args);
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

PyObject *afmt_py_raise_refused(PyObject *m, const char *array, const afmt_error *err)
{
    afmt_py_state *st = afmt_py_state_of(m);
    PyObject *t, *args, *exc;
    char text[AFMT_FIELD_MAX + AFMT_MESSAGE_MAX + 64];

    if (!st->refused) {
        afmt_error_describe(err, text, sizeof text);
        PyErr_Format(PyExc_ValueError, "%s: %s", array ? array : "", text);
        return NULL;
    }
    if (!(t = afmt_py_error_tuple(err)))
        return NULL;
    /* Refused(array, code, field, offset, message, format) */
    args = Py_BuildValue("(sOOOOO)", array, PyTuple_GET_ITEM(t, 0), PyTuple_GET_ITEM(t, 1),
                         PyTuple_GET_ITEM(t, 2), PyTuple_GET_ITEM(t, 3), PyTuple_GET_ITEM(t, 4));
    Py_DECREF(t);
    if (!args)
        return NULL;
    exc = PyObject_Call(st->refused, args, NULL);
    Py_DECREF(args);
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

/* One limits entry: a member name and where it is. */
typedef struct limit_name {
    const char *name;
    size_t offset;
} limit_name;

static const limit_name limit_names[] = {
    { "max_rank", offsetof(afmt_limits, max_rank) },
    { "max_header_bytes", offsetof(afmt_limits, max_header_bytes) },
    { "max_total_bytes", offsetof(afmt_limits, max_total_bytes) },
    { "max_items", offsetof(afmt_limits, max_items) },
    { "max_decoded_bytes", offsetof(afmt_limits, max_decoded_bytes) },
    { "max_depth", offsetof(afmt_limits, max_depth) },
    { "max_held_bytes", offsetof(afmt_limits, max_held_bytes) },
    { "max_kept_bytes", offsetof(afmt_limits, max_kept_bytes) },
};

int afmt_py_options(afmt_options *opt, int lenient, PyObject *limits)
{
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    size_t i;

    afmt_options_default(opt);
    opt->mode = lenient ? AFMT_LENIENT : AFMT_STRICT;
    if (!limits || limits == Py_None)
        return 0;
    if (!PyDict_Check(limits)) {
        PyErr_SetString(PyExc_TypeError, "limits must be a dict of afmt_limits names to ints");
        return -1;
    }
    while (PyDict_Next(limits, &pos, &key, &value)) {
        const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        unsigned long long v;
        for (i = 0; k && i < sizeof limit_names / sizeof limit_names[0]; i++)
            if (strcmp(k, limit_names[i].name) == 0)
                break;
        if (!k || i == sizeof limit_names / sizeof limit_names[0]) {
            PyErr_Format(PyExc_ValueError, "unknown limit %R (known: max_rank, max_header_bytes, "
                         "max_total_bytes, max_items, max_decoded_bytes, max_depth, "
                         "max_held_bytes, max_kept_bytes)", key);
            return -1;
        }
        v = PyLong_AsUnsignedLongLong(value);
        if (v == (unsigned long long)-1 && PyErr_Occurred())
            return -1;
        memcpy((char *)&opt->limits + limit_names[i].offset, &(uint64_t){ (uint64_t)v }, sizeof(uint64_t));
    }
    return 0;
}

int afmt_py_format_arg(PyObject *obj, const afmt_format **out)
{
    const char *name;

    *out = NULL;
    if (!obj || obj == Py_None)
        return 0;
    if (!PyUnicode_Check(obj) || !(name = PyUnicode_AsUTF8(obj))) {
        PyErr_SetString(PyExc_TypeError, "format must be a format's name (a str) or None");
        return -1;
    }
    *out = afmt_format_by_name(name);
    if (!*out) {
        PyErr_Format(PyExc_ValueError, "no format %R (afmt.formats() lists them)", obj);
        return -1;
    }
    return 0;
}
