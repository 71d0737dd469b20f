/* afmt Python extension: the Mapped type and afmt.validate (see mapped.h). */
#include "mapped.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "describe.h"
#include "guard.h"
#include "job.h"
#include "state.h"

typedef struct mapped {
    PyObject_HEAD
    PyObject *module;   /* for the exception classes */
    afmt_file file;     /* open (fd >= 0) until freed */
    afmt_py_run run;    /* the validation: its views point into file.data */
    int slot;           /* the guard's watch, or -1 */
    int closed;         /* close() was called: no new arrays */
} mapped;

/* The one type object; set by afmt_py_mapped_ready (module init). */
static PyTypeObject mapped_type;

static void mapped_dealloc(PyObject *self)
{
    mapped *m = (mapped *)self;

    afmt_py_guard_unwatch(m->slot);
    afmt_file_close(&m->file);
    afmt_py_run_free(&m->run);
    Py_XDECREF(m->module);
    Py_TYPE(self)->tp_free(self);
}

/* The whole mapping as read-only bytes; numpy keeps the object as base. */
static int mapped_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    mapped *m = (mapped *)self;

    return PyBuffer_FillInfo(view, self, (void *)m->file.data, (Py_ssize_t)m->file.len, 1, flags);
}

static PyBufferProcs mapped_buffer = { mapped_getbuffer, NULL };

/* The file's path for messages. */
static const char *path_of(const mapped *m)
{
    return m->file.path;
}

/* Raise FileChanged when the file was cut under a view or now has another
 * size or modification time than when it was opened; 0 when unchanged. */
static int changed(mapped *m)
{
    afmt_py_state *st = afmt_py_state_of(m->module);
    uint64_t cut = afmt_py_guard_cut_at(m->slot);
    struct stat s;
    afmt_error err;

    afmt_error_clear(&err);
    if (cut != UINT64_MAX) {
        afmt_py_cut_error(&err, cut, &m->file, m->run.fmt ? m->run.fmt->name : NULL);
    } else if (fstat(m->file.fd, &s) != 0 || (uint64_t)s.st_size != m->file.len ||
               (int64_t)s.st_mtim.tv_sec != m->file.mtime_sec ||
               (int64_t)s.st_mtim.tv_nsec != m->file.mtime_nsec) {
        err.code = AFMT_E_IO;
        err.offset = AFMT_NO_OFFSET;
        snprintf(err.message, sizeof err.message,
                 "the file changed after it was opened (%llu bytes then): views of it may "
                 "hold bytes that were not validated", (unsigned long long)m->file.len);
    } else {
        return 0;
    }
    afmt_py_raise(st->file_changed, &err, path_of(m));
    return -1;
}

static PyObject *mapped_check(PyObject *self, PyObject *unused)
{
    (void)unused;
    if (changed((mapped *)self) != 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *mapped_result(PyObject *self, PyObject *unused)
{
    (void)unused;
    return afmt_py_run_result(&((mapped *)self)->run);
}

static PyObject *mapped_close(PyObject *self, PyObject *unused)
{
    (void)unused;
    ((mapped *)self)->closed = 1;
    Py_RETURN_NONE;
}

/* numpy's type string of a's values (the logical type of a view with a
 * value transform), and the extra innermost dimension numpy needs for it
 * (c32: 2 f16; opaque of elsize > 1: elsize bytes), 0 for none.  bf16 has
 * no numpy type: its bits as u16. */
static const char *typestr(const afmt_array *a, uint64_t *extra)
{
    *extra = 0;
    switch (afmt_array_value_dtype(a)) {
    case AFMT_BOOL: return "|b1";
    case AFMT_I8: return "|i1";
    case AFMT_I16: return "<i2";
    case AFMT_I32: return "<i4";
    case AFMT_I64: return "<i8";
    case AFMT_U8: return "|u1";
    case AFMT_U16: return "<u2";
    case AFMT_U32: return "<u4";
    case AFMT_U64: return "<u8";
    case AFMT_F16: return "<f2";
    case AFMT_BF16: return "<u2";
    case AFMT_F32: return "<f4";
    case AFMT_F64: return "<f8";
    case AFMT_C64: return "<c8";
    case AFMT_C128: return "<c16";
    case AFMT_C32: *extra = 2; return "<f2";
    default:
        if (a->elsize > 1 && !a->block)
            *extra = a->elsize;
        return "|u1";
    }
}

/* Byte strides of a's elements in storage (its logical shape, plus the
 * extra dimension); 0, or -1 when they do not fit (then copy). */
static int byte_strides(const afmt_array *a, uint64_t extra, uint64_t unit, int64_t *out)
{
    uint64_t run_len = a->strided ? 0 : (extra ? a->elsize : a->stride);
    uint32_t k;

    if (a->strided) {
        for (k = 0; k < a->rank; k++) {
            uint64_t s;
            if (__builtin_mul_overflow(a->strides[k], a->elsize, &s) || s > INT64_MAX)
                return -1;
            out[k] = (int64_t)s;
        }
    } else if (a->order == AFMT_ROW_MAJOR) {
        uint64_t s = run_len;
        for (k = a->rank; k-- > 0;) {
            if (s > INT64_MAX)
                return -1;
            out[k] = (int64_t)s;
            if (__builtin_mul_overflow(s, a->dims[k], &s))
                s = UINT64_MAX; /* only an empty array gets here, never read */
        }
    } else {
        uint64_t s = run_len;
        for (k = 0; k < a->rank; k++) {
            if (s > INT64_MAX)
                return -1;
            out[k] = (int64_t)s;
            if (__builtin_mul_overflow(s, a->dims[k], &s))
                s = UINT64_MAX;
        }
    }
    if (extra)
        out[a->rank] = (int64_t)unit;
    return 0;
}

/* Why a's elements cannot be handed out as they lie, or NULL when they can:
 * native byte order, plain, aligned, in the mapping. */
static const char *why_copy(const mapped *m, size_t i, const afmt_array *a, uint64_t unit,
                            const int64_t *strides, int strides_ok, char *buf, size_t size)
{
    const uint8_t *lo = m->file.data, *hi = m->file.data + m->file.len;
    uint32_t k;

    if (m->run.views.copies && m->run.views.copies[i])
        return "a compressed archive member (inflated into memory)";
    if (!a->data || a->data < lo || a->data > hi || (uint64_t)(hi - a->data) < a->nbytes)
        return "its bytes are not in the file as stored";
    if (a->block)
        return NULL; /* quantized blocks: raw bytes, any alignment */
    if (afmt_array_has_transform(a)) {
        /* never a view of the stored elements as if they were the values */
        snprintf(buf, size, "its %s values are stored as %s (a value transform, decoded)",
                 afmt_dtype_name(afmt_array_value_dtype(a)), afmt_dtype_name(a->dtype));
        return buf;
    }
    if (a->encoding != AFMT_ENC_PLAIN) {
        snprintf(buf, size, "stored %s-encoded", a->encoding == AFMT_ENC_BITS_LSB ? "bit-packed"
                 : a->encoding == AFMT_ENC_LZ4_BLOCK ? "LZ4" : a->encoding == AFMT_ENC_ZEROS ? "as zeros"
                 : a->encoding == AFMT_ENC_TEXT ? "text" : "sparse");
        return buf;
    }
    if (a->count == 0)
        return "empty";
    if (a->endian == AFMT_BIG && unit > 1)
        return "big-endian (numpy arrays of afmt are in the host's byte order)";
    if (!strides_ok)
        return "strides too large for numpy";
    if ((uintptr_t)a->data % unit != 0) {
        snprintf(buf, size, "unaligned (offset %llu, elements of %llu-byte alignment)",
                 (unsigned long long)a->offset, (unsigned long long)unit);
        return buf;
    }
    for (k = 0; k < a->rank; k++)
        if (strides[k] % (int64_t)unit != 0)
            return "strides not a multiple of the element's alignment";
    return NULL;
}

/* plan(i) -> (typestr, shape, strides, offset, reason): how array i is
 * handed out.  offset >= 0: a view numpy.ndarray(shape, typestr,
 * buffer=self, offset=offset, strides=strides); offset -1: a copy into
 * numpy.empty(shape, typestr) by read_into, reason saying why. */
static PyObject *mapped_plan(PyObject *self, PyObject *arg)
{
    mapped *m = (mapped *)self;
    Py_ssize_t i = PyLong_AsSsize_t(arg);
    size_t kept = m->run.views.n < m->run.views.max ? m->run.views.n : m->run.views.max;
    const afmt_array *a;
    const afmt_dtype_info *info;
    uint64_t extra, unit, shape[AFMT_RANK_CAP + 1];
    int64_t strides[AFMT_RANK_CAP + 1];
    uint32_t rank, k;
    const char *ts, *why;
    char buf[160];
    int strides_ok;
    PyObject *shape_t, *strides_t, *out;

    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0 || (size_t)i >= kept) {
        PyErr_SetString(PyExc_IndexError, "no such array");
        return NULL;
    }
    if (m->closed) {
        PyErr_SetString(PyExc_ValueError, "the file is closed");
        return NULL;
    }
    if (changed(m) != 0)
        return NULL;
    a = &m->run.views.v[i];
    ts = typestr(a, &extra);
    info = afmt_dtype_get(a->dtype);
    unit = a->dtype == AFMT_C32 ? 2 : info->component ? info->component : 1;
    if (a->dtype == AFMT_OPAQUE)
        unit = 1;
    rank = a->rank;
    if (a->block) {
        rank = 1;
        shape[0] = a->nbytes;
        strides[0] = 1;
        strides_ok = 1;
    } else {
        memcpy(shape, a->dims, rank * sizeof shape[0]);
        if (extra)
            shape[rank] = a->dtype == AFMT_C32 ? 2 : extra;
        strides_ok = byte_strides(a, extra, a->dtype == AFMT_C32 ? 2 : 1, strides) == 0;
        if (extra)
            rank++;
    }
    why = why_copy(m, (size_t)i, a, unit, strides, strides_ok, buf, sizeof buf);
    shape_t = PyTuple_New(rank);
    strides_t = why ? (Py_INCREF(Py_None), Py_None) : PyTuple_New(rank);
    for (k = 0; shape_t && strides_t && k < rank; k++) {
        PyTuple_SET_ITEM(shape_t, k, PyLong_FromUnsignedLongLong(shape[k]));
        if (!why)
            PyTuple_SET_ITEM(strides_t, k, PyLong_FromLongLong(strides[k]));
    }
    out = shape_t && strides_t && !PyErr_Occurred()
              ? Py_BuildValue("(sOOLz)", ts, shape_t, strides_t,
                              why ? -1LL : (long long)(a->data - m->file.data), why)
              : NULL;
    Py_XDECREF(shape_t);
    Py_XDECREF(strides_t);
    return out;
}

/* What read_into does with the GIL released, under the guard. */
typedef struct read_job {
    const mapped *m;
    const afmt_array *a;
    int in_file;          /* the view's bytes lie in the mapping */
    void *dst;
    uint64_t size;
    int rc;
    afmt_error err;
} read_job;

static void run_read(void *ctx)
{
    read_job *j = ctx;

    if (j->a->block) {
        /* quantized blocks are copied byte for byte, never decoded */
        memcpy(j->dst, j->a->data, (size_t)j->size);
        j->rc = 0;
    } else if (j->in_file) {
        j->rc = afmt_file_read_array(&j->m->file, j->a, AFMT_ROW_MAJOR, j->dst, j->size, &j->err);
    } else {
        j->rc = afmt_array_to_plain(j->a, AFMT_ROW_MAJOR, j->dst, j->size, &j->err);
    }
}

/* read_into(i, out): array i decoded into out (a writable C-contiguous
 * buffer of exactly its plain size: numpy.empty(shape, typestr) of plan). */
static PyObject *mapped_read_into(PyObject *self, PyObject *args)
{
    mapped *m = (mapped *)self;
    afmt_py_state *st = afmt_py_state_of(m->module);
    Py_ssize_t i;
    PyObject *out;
    Py_buffer b;
    read_job j;
    uint64_t size;
    uintptr_t fault = 0;
    int cut;
    size_t kept = m->run.views.n < m->run.views.max ? m->run.views.n : m->run.views.max;

    if (!PyArg_ParseTuple(args, "nO", &i, &out))
        return NULL;
    if (i < 0 || (size_t)i >= kept) {
        PyErr_SetString(PyExc_IndexError, "no such array");
        return NULL;
    }
    memset(&j, 0, sizeof j);
    j.m = m;
    j.a = &m->run.views.v[i];
    if (j.a->block)
        size = j.a->nbytes;
    else if (afmt_array_plain_size(j.a, &size, &j.err) != 0)
        return afmt_py_raise(st->invalid_file, &j.err, path_of(m));
    if (PyObject_GetBuffer(out, &b, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0)
        return NULL;
    if ((uint64_t)b.len != size) {
        PyBuffer_Release(&b);
        PyErr_Format(PyExc_ValueError, "read_into: the buffer has %zd bytes, the array %llu",
                     b.len, (unsigned long long)size);
        return NULL;
    }
    j.in_file = !(m->run.views.copies && m->run.views.copies[i]) && j.a->data >= m->file.data &&
                j.a->data <= m->file.data + m->file.len;
    j.dst = b.buf;
    j.size = size;
    Py_BEGIN_ALLOW_THREADS
    cut = size ? afmt_py_guard_run(run_read, &j, &fault) : 0;
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&b);
    if (cut != 0) {
        afmt_py_fault_error(&j.err, fault, &m->file, m->run.fmt ? m->run.fmt->name : NULL);
        return afmt_py_raise(st->file_changed, &j.err, path_of(m));
    }
    if (j.rc != 0)
        return afmt_py_raise(j.err.code == AFMT_E_IO ? st->file_changed : st->invalid_file, &j.err,
                             path_of(m));
    Py_RETURN_NONE;
}

static PyObject *mapped_path(PyObject *self, void *unused)
{
    (void)unused;
    return PyUnicode_DecodeFSDefault(path_of((mapped *)self));
}

static PyObject *mapped_size(PyObject *self, void *unused)
{
    (void)unused;
    return PyLong_FromUnsignedLongLong(((mapped *)self)->file.len);
}

static PyObject *mapped_watched(PyObject *self, void *unused)
{
    (void)unused;
    return PyBool_FromLong(((mapped *)self)->slot >= 0);
}

static PyMethodDef mapped_methods[] = {
    { "result", mapped_result, METH_NOARGS, "The validation's result tuple (describe.h)." },
    { "plan", mapped_plan, METH_O, "plan(i) -> (typestr, shape, strides, offset, reason)." },
    { "read_into", mapped_read_into, METH_VARARGS, "read_into(i, out): decode array i into out." },
    { "check", mapped_check, METH_NOARGS, "Raise afmt.FileChanged if the file changed since it was opened." },
    { "close", mapped_close, METH_NOARGS, "No new arrays; the mapping goes with the last array." },
    { NULL, NULL, 0, NULL },
};

static PyGetSetDef mapped_getset[] = {
    { "path", mapped_path, NULL, "The file's path.", NULL },
    { "size", mapped_size, NULL, "Its length when opened.", NULL },
    { "watched", mapped_watched, NULL, "Whether a cut under a view is caught (guard.h).", NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

int afmt_py_mapped_ready(PyObject *module)
{
    mapped_type.tp_name = "afmt._afmt.Mapped";
    mapped_type.tp_basicsize = sizeof(mapped);
    mapped_type.tp_flags = Py_TPFLAGS_DEFAULT;
    mapped_type.tp_doc = "A validated file mapped read-only (made by open_mapped).";
    mapped_type.tp_dealloc = mapped_dealloc;
    mapped_type.tp_as_buffer = &mapped_buffer;
    mapped_type.tp_methods = mapped_methods;
    mapped_type.tp_getset = mapped_getset;
    if (PyType_Ready(&mapped_type) != 0)
        return -1;
    Py_INCREF(&mapped_type);
    if (PyModule_AddObject(module, "Mapped", (PyObject *)&mapped_type) != 0) {
        Py_DECREF(&mapped_type);
        return -1;
    }
    return 0;
}

/* A path argument (str, bytes path, os.PathLike) as the file system's
 * bytes (new reference), or NULL with an exception. */
static PyObject *fs_path(PyObject *obj)
{
    PyObject *out = NULL;

    if (!PyUnicode_FSConverter(obj, &out))
        return NULL;
    return out;
}

static int is_path(PyObject *obj)
{
    return PyUnicode_Check(obj) || PyObject_HasAttrString(obj, "__fspath__");
}

PyObject *afmt_py_open_mapped(PyObject *module, PyObject *args, PyObject *kw)
{
    static char *names[] = { "path", "format", "lenient", "limits", NULL };
    afmt_py_state *st = afmt_py_state_of(module);
    PyObject *path_obj, *format = Py_None, *limits = Py_None, *path;
    const afmt_format *forced;
    afmt_options opt;
    afmt_error err;
    int lenient = 0, rc;
    mapped *m;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OpO", names, &path_obj, &format, &lenient, &limits) ||
        afmt_py_format_arg(format, &forced) != 0 || afmt_py_options(&opt, lenient, limits) != 0)
        return NULL;
    if (!(path = fs_path(path_obj)))
        return NULL;
    m = PyObject_New(mapped, &mapped_type);
    if (!m) {
        Py_DECREF(path);
        return NULL;
    }
    m->module = module;
    Py_INCREF(module);
    m->slot = -1;
    m->closed = 0;
    afmt_py_run_init(&m->run);
    m->file.fd = -1;
    m->file.data = NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = afmt_file_open(&m->file, PyBytes_AS_STRING(path), &err);
    if (rc == 0)
        afmt_py_validate_file(&m->run, &m->file, forced, &opt);
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        afmt_py_raise(st->invalid_file, &err, PyBytes_AS_STRING(path));
        Py_DECREF(path);
        Py_DECREF(m);
        return NULL;
    }
    Py_DECREF(path);
    if (!m->run.valid) {
        afmt_py_raise(m->run.error.code == AFMT_E_IO ? st->file_changed : st->invalid_file,
                      &m->run.error, path_of(m));
        Py_DECREF(m);
        return NULL;
    }
    m->slot = afmt_py_guard_watch(m->file.data, m->file.len);
    return (PyObject *)m;
}

/* Files up to this size are read whole rather than mapped by
 * afmt.validate: a map costs mmap, a page fault and munmap, which for a
 * file of a few hundred bytes is most of the time (afmt-validate reads
 * small files with pread for the same reason). */
#define SMALL_FILE_BYTES ((off_t)1 << 20)

/* Validate path by reading it whole when it is a small regular file: 0
 * when done (the verdict in run), -1 when it is not (or cannot be read
 * so): the caller maps it, and afmt_file_open says why it cannot. */
static int validate_small(afmt_py_run *run, const char *path, const afmt_format *forced,
                          const afmt_options *opt)
{
    struct stat st;
    uint8_t stack[16384], *buf = stack;
    ssize_t got;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), done = -1;

    if (fd < 0)
        return -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= SMALL_FILE_BYTES &&
        ((size_t)st.st_size <= sizeof stack || (buf = malloc((size_t)st.st_size)) != NULL)) {
        got = st.st_size ? pread(fd, buf, (size_t)st.st_size, 0) : 0;
        if (got == (ssize_t)st.st_size) {
            afmt_py_validate_bytes(run, buf, (uint64_t)got, path, forced, opt);
            done = 0;
        }
        if (buf != stack)
            free(buf);
    }
    close(fd);
    return done;
}

PyObject *afmt_py_validate(PyObject *module, PyObject *args, PyObject *kw)
{
    static char *names[] = { "source", "format", "lenient", "limits", NULL };
    PyObject *source, *format = Py_None, *limits = Py_None, *path, *result;
    const afmt_format *forced;
    afmt_options opt;
    afmt_py_run run;
    afmt_file f;
    Py_buffer b;
    int lenient = 0, rc;

    (void)module; /* the result is plain values: no exception class needed */
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OpO", names, &source, &format, &lenient, &limits) ||
        afmt_py_format_arg(format, &forced) != 0 || afmt_py_options(&opt, lenient, limits) != 0)
        return NULL;
    afmt_py_run_init(&run);
    if (!is_path(source)) {
        if (PyObject_GetBuffer(source, &b, PyBUF_C_CONTIGUOUS) != 0)
            return NULL;
        Py_BEGIN_ALLOW_THREADS
        afmt_py_validate_bytes(&run, b.buf, (uint64_t)b.len, NULL, forced, &opt);
        Py_END_ALLOW_THREADS
        PyBuffer_Release(&b);
    } else {
        if (!(path = fs_path(source)))
            return NULL;
        Py_BEGIN_ALLOW_THREADS
        if (validate_small(&run, PyBytes_AS_STRING(path), forced, &opt) != 0) {
            rc = afmt_file_open(&f, PyBytes_AS_STRING(path), &run.error);
            if (rc == 0) {
                afmt_py_validate_file(&run, &f, forced, &opt);
                afmt_file_close(&f);
            }
        }
        Py_END_ALLOW_THREADS
        Py_DECREF(path);
    }
    result = afmt_py_run_result(&run);
    afmt_py_run_free(&run);
    return result;
}
