/* afmt Python extension: typed metadata values (see values.h). */
#include "values.h"

#include <stdlib.h>
#include <string.h>

static const char *kind_letter(afmt_value_kind k)
{
    switch (k) {
    case AFMT_VALUE_UINT: return "u";
    case AFMT_VALUE_INT: return "i";
    case AFMT_VALUE_FLOAT: return "f";
    default: return "";
    }
}

/* The type name of a value of kind k and width w (a list's items). */
static void scalar_type(afmt_value_kind k, unsigned w, char *out, size_t size)
{
    if (k == AFMT_VALUE_BOOL)
        snprintf(out, size, "bool");
    else if (k == AFMT_VALUE_STRING)
        snprintf(out, size, "str");
    else if (k == AFMT_VALUE_LIST)
        snprintf(out, size, "list");
    else
        snprintf(out, size, "%s%u", kind_letter(k), w * 8);
}

void afmt_py_value_type(const afmt_value *v, char *out, size_t size)
{
    char inner[64];

    if (v->kind != AFMT_VALUE_LIST) {
        scalar_type(v->kind, v->width, out, size);
        return;
    }
    if (v->item_kind == AFMT_VALUE_LIST && v->count > 0)
        afmt_py_value_type(&v->items[0], inner, sizeof inner);
    else
        scalar_type(v->item_kind, v->item_width, inner, sizeof inner);
    snprintf(out, size, "list[%s]", inner);
}

PyObject *afmt_py_value_to_python(const afmt_value *v)
{
    PyObject *list, *item;
    uint64_t i;

    switch (v->kind) {
    case AFMT_VALUE_UINT:
        return PyLong_FromUnsignedLongLong(v->u);
    case AFMT_VALUE_INT:
        return PyLong_FromLongLong(v->i);
    case AFMT_VALUE_FLOAT:
        return PyFloat_FromDouble(v->f);
    case AFMT_VALUE_BOOL:
        return PyBool_FromLong(v->u != 0);
    case AFMT_VALUE_STRING:
        if (v->len > PY_SSIZE_T_MAX)
            return PyErr_NoMemory();
        item = PyUnicode_DecodeUTF8((const char *)v->str, (Py_ssize_t)v->len, NULL);
        if (item)
            return item;
        /* not UTF-8: the bytes as they are */
        PyErr_Clear();
        return PyBytes_FromStringAndSize((const char *)v->str, (Py_ssize_t)v->len);
    case AFMT_VALUE_LIST:
        if (v->count > PY_SSIZE_T_MAX)
            return PyErr_NoMemory();
        list = PyList_New((Py_ssize_t)v->count);
        for (i = 0; list && i < v->count; i++) {
            item = afmt_py_value_to_python(&v->items[i]);
            if (!item) {
                Py_DECREF(list);
                return NULL;
            }
            PyList_SET_ITEM(list, (Py_ssize_t)i, item);
        }
        return list;
    }
    PyErr_SetString(PyExc_ValueError, "a value of a kind this extension does not know");
    return NULL;
}

void afmt_py_arena_free(afmt_py_arena *a)
{
    size_t i;

    for (i = 0; i < a->n; i++)
        free(a->blocks[i]);
    free(a->blocks);
    memset(a, 0, sizeof *a);
}

/* n zeroed bytes owned by a, or NULL with MemoryError. */
static void *arena_alloc(afmt_py_arena *a, size_t n)
{
    void *p;

    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 16;
        void **b = realloc(a->blocks, cap * sizeof *b);
        if (!b)
            return PyErr_NoMemory();
        a->blocks = b;
        a->cap = cap;
    }
    if (!(p = calloc(1, n ? n : 1)))
        return PyErr_NoMemory();
    a->blocks[a->n++] = p;
    return p;
}

/* "u32" -> kind and width; 0, or -1 when it names no scalar type. */
static int parse_scalar(const char *t, afmt_value_kind *kind, unsigned *width)
{
    static const struct { const char *name; afmt_value_kind kind; unsigned width; } types[] = {
        { "u8", AFMT_VALUE_UINT, 1 }, { "u16", AFMT_VALUE_UINT, 2 },
        { "u32", AFMT_VALUE_UINT, 4 }, { "u64", AFMT_VALUE_UINT, 8 },
        { "i8", AFMT_VALUE_INT, 1 }, { "i16", AFMT_VALUE_INT, 2 },
        { "i32", AFMT_VALUE_INT, 4 }, { "i64", AFMT_VALUE_INT, 8 },
        { "f32", AFMT_VALUE_FLOAT, 4 }, { "f64", AFMT_VALUE_FLOAT, 8 },
        { "bool", AFMT_VALUE_BOOL, 1 }, { "str", AFMT_VALUE_STRING, 0 },
    };
    size_t i;

    for (i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(t, types[i].name) == 0) {
            *kind = types[i].kind;
            *width = types[i].width;
            return 0;
        }
    return -1;
}

static int value_from_python(PyObject *obj, const char *type, afmt_py_arena *a, afmt_value *v,
                             const char *key);

/* A list value of items of `item_type` (NULL: inferred from the first). */
static int list_from_python(PyObject *obj, const char *item_type, afmt_py_arena *a,
                            afmt_value *v, const char *key)
{
    PyObject *seq = PySequence_Fast(obj, "a list value must be a sequence");
    Py_ssize_t n, i;
    afmt_value *items;
    int rc = 0;

    if (!seq)
        return -1;
    n = PySequence_Fast_GET_SIZE(seq);
    v->kind = AFMT_VALUE_LIST;
    v->count = (uint64_t)n;
    if ((size_t)n > SIZE_MAX / sizeof *items || !(items = arena_alloc(a, (size_t)n * sizeof *items))) {
        Py_DECREF(seq);
        return -1;
    }
    v->items = items;
    for (i = 0; i < n && rc == 0; i++) {
        rc = value_from_python(PySequence_Fast_GET_ITEM(seq, i), item_type, a, &items[i], key);
        if (rc == 0 && i > 0 && (items[i].kind != items[0].kind || items[i].width != items[0].width)) {
            PyErr_Format(PyExc_TypeError, "metadata %s: a list's items must all be of one type "
                         "(use afmt.Typed)", key);
            rc = -1;
        }
    }
    Py_DECREF(seq);
    if (rc != 0)
        return -1;
    if (n > 0) {
        v->item_kind = items[0].kind;
        v->item_width = items[0].width;
    } else if (item_type && parse_scalar(item_type, &v->item_kind, &v->item_width) == 0) {
        /* an empty list of a named type */
    } else {
        v->item_kind = AFMT_VALUE_STRING; /* an empty list of nothing said: strings */
        v->item_width = 0;
    }
    return 0;
}

/* A Python str or bytes as a string value pointing into obj (kept alive by
 * the caller's metadata mapping). */
static int string_from_python(PyObject *obj, afmt_value *v, const char *key)
{
    const char *s;
    Py_ssize_t n;

    v->kind = AFMT_VALUE_STRING;
    if (PyUnicode_Check(obj))
        s = PyUnicode_AsUTF8AndSize(obj, &n);
    else if (PyBytes_Check(obj))
        s = PyBytes_AsString(obj), n = PyBytes_GET_SIZE(obj);
    else {
        PyErr_Format(PyExc_TypeError, "metadata %s: expected a str", key);
        return -1;
    }
    if (!s)
        return -1;
    v->str = (const uint8_t *)s;
    v->len = (uint64_t)n;
    return 0;
}

static int number_from_python(PyObject *obj, afmt_value_kind kind, unsigned width, afmt_value *v,
                              const char *key)
{
    v->kind = kind;
    v->width = width;
    if (kind == AFMT_VALUE_FLOAT) {
        v->f = PyFloat_AsDouble(obj);
        return v->f == -1.0 && PyErr_Occurred() ? -1 : 0;
    }
    if (kind == AFMT_VALUE_BOOL) {
        int t = PyObject_IsTrue(obj);
        v->u = t > 0;
        return t < 0 ? -1 : 0;
    }
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "metadata %s: expected an int", key);
        return -1;
    }
    if (kind == AFMT_VALUE_UINT) {
        v->u = PyLong_AsUnsignedLongLong(obj);
        if (v->u == (uint64_t)-1 && PyErr_Occurred())
            return -1;
        /* the writer checks the value fits width bytes (AFMT_E_TYPE) */
        return 0;
    }
    v->i = PyLong_AsLongLong(obj);
    return v->i == -1 && PyErr_Occurred() ? -1 : 0;
}

static int value_from_python(PyObject *obj, const char *type, afmt_py_arena *a, afmt_value *v,
                             const char *key)
{
    PyObject *typed = PyObject_HasAttrString(obj, "afmt_type") ? PyObject_GetAttrString(obj, "afmt_type") : NULL;
    afmt_value_kind kind;
    unsigned width;
    int rc;

    memset(v, 0, sizeof *v);
    if (typed) {
        /* afmt.Typed(type, value): the type said by the caller */
        PyObject *inner = PyObject_GetAttrString(obj, "value");
        const char *t = PyUnicode_Check(typed) ? PyUnicode_AsUTF8(typed) : NULL;
        rc = -1;
        if (!inner || !t) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "metadata %s: afmt_type must be a str", key);
        } else {
            rc = value_from_python(inner, t, a, v, key);
        }
        Py_XDECREF(inner);
        Py_DECREF(typed);
        return rc;
    }
    if (type) {
        size_t n = strlen(type);
        if (n > 6 && strncmp(type, "list[", 5) == 0 && type[n - 1] == ']') {
            char *inner = arena_alloc(a, n);
            if (!inner)
                return -1;
            memcpy(inner, type + 5, n - 6);
            return list_from_python(obj, inner, a, v, key);
        }
        if (strcmp(type, "list") == 0)
            return list_from_python(obj, NULL, a, v, key);
        if (parse_scalar(type, &kind, &width) != 0) {
            PyErr_Format(PyExc_ValueError, "metadata %s: unknown type %s (u8..u64, i8..i64, f32, "
                         "f64, bool, str, list[T])", key, type);
            return -1;
        }
        if (kind == AFMT_VALUE_STRING)
            return string_from_python(obj, v, key);
        return number_from_python(obj, kind, width, v, key);
    }
    if (PyBool_Check(obj))
        return number_from_python(obj, AFMT_VALUE_BOOL, 1, v, key);
    if (PyLong_Check(obj)) {
        int overflow = 0;
        PyLong_AsLongLongAndOverflow(obj, &overflow);
        return number_from_python(obj, overflow > 0 ? AFMT_VALUE_UINT : AFMT_VALUE_INT, 8, v, key);
    }
    if (PyFloat_Check(obj))
        return number_from_python(obj, AFMT_VALUE_FLOAT, 8, v, key);
    if (PyUnicode_Check(obj) || PyBytes_Check(obj))
        return string_from_python(obj, v, key);
    if (PyList_Check(obj) || PyTuple_Check(obj))
        return list_from_python(obj, NULL, a, v, key);
    PyErr_Format(PyExc_TypeError, "metadata %s: a %s cannot be stored (bool, int, float, str, "
                 "list, or afmt.Typed)", key, Py_TYPE(obj)->tp_name);
    return -1;
}

int afmt_py_kvs_from_python(PyObject *metadata, afmt_py_arena *arena, afmt_kv **kv, size_t *n)
{
    PyObject *key, *value;
    Py_ssize_t pos = 0, count;
    afmt_kv *out;
    size_t i = 0;

    *kv = NULL;
    *n = 0;
    if (!PyDict_Check(metadata)) {
        PyErr_SetString(PyExc_TypeError, "metadata must be a dict");
        return -1;
    }
    count = PyDict_Size(metadata);
    if (!(out = arena_alloc(arena, (size_t)count * sizeof *out)))
        return -1;
    while (PyDict_Next(metadata, &pos, &key, &value)) {
        Py_ssize_t klen;
        const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8AndSize(key, &klen) : NULL;
        if (!k) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "metadata keys must be str");
            return -1;
        }
        out[i].key = (const uint8_t *)k;
        out[i].key_len = (uint64_t)klen;
        if (value_from_python(value, NULL, arena, &out[i].value, k) != 0)
            return -1;
        i++;
    }
    *kv = out;
    *n = i;
    return 0;
}
