/* afmt Python extension: conversion between formats (see convert.h). */
#include "convert.h"

#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "guard.h"
#include "job.h"
#include "out_format.h"
#include "run.h"
#include "state.h"
#include "writer.h"

/* Everything one conversion holds; freed by convert_free. */
typedef struct conversion {
    afmt_file in;
    afmt_py_run run;
    const afmt_format *target;
    afmt_array *out;        /* the arrays as the target is given them */
    uint8_t **plain;        /* their decoded bytes (NULL for blocks kept as they are) */
    afmt_kv *kv;            /* the run's key-values, side by side */
    size_t n;
    int stage;              /* 0 opened nothing, 1 input open */
    int invalid;            /* the input's verdict is the failure */
    afmt_py_refusal why;
} conversion;

static void convert_free(conversion *c)
{
    size_t i;

    for (i = 0; c->plain && i < c->n; i++)
        free(c->plain[i]);
    free(c->plain);
    free(c->out);
    free(c->kv);
    afmt_py_run_free(&c->run);
    if (c->stage)
        afmt_file_close(&c->in);
}

/* A general scale (FITS BSCALE 0.5) is never lost silently: kept with the
 * stored elements where the target can say it (FITS), else refused by
 * name, as afmt convert does without --apply-scale.  *v becomes the view
 * of the stored elements to decode; 0, or -1 with c->why. */
static int keep_scale(conversion *c, size_t i, afmt_array *v)
{
    afmt_array with;

    v->logical = AFMT_DTYPE_INVALID;
    v->scaled = 0;
    afmt_array_plain_view(v, c->target->order, NULL, &with);
    with.logical = c->run.views.v[i].logical, with.scaled = 1;
    with.scale = c->run.views.v[i].scale, with.zero = c->run.views.v[i].zero;
    if (c->target->can_write(&with, &c->why.err) == 0)
        return 0;
    c->why.array = i;
    return afmt_cli_fail(&c->why.err, AFMT_E_TYPE, NULL, AFMT_NO_OFFSET,
                         "%s values (%s stored, scale %.17g, zero %.17g): %s cannot store a scale with them",
                         afmt_dtype_name(afmt_array_value_dtype(&with)), afmt_dtype_name(v->dtype), with.scale,
                         with.zero, c->target->name);
}

/* Decode every view into the target's order (under the guard: reads the
 * mapping). */
static void decode_all(void *ctx)
{
    conversion *c = ctx;
    size_t i;

    for (i = 0; i < c->n; i++) {
        afmt_array stored = c->run.views.v[i];
        const afmt_array *v = &stored;
        const int scaled = afmt_array_general_scale(v);
        uint64_t size;
        if (scaled && keep_scale(c, i, &stored) != 0)
            return;
        if (v->block) {
            c->out[i] = *v; /* quantized: copied byte for byte by the writer */
            continue;
        }
        if (afmt_array_plain_size(v, &size, &c->why.err) != 0 || size >= SIZE_MAX) {
            c->why.array = i;
            return;
        }
        if (!(c->plain[i] = malloc(size ? (size_t)size : 1))) {
            afmt_cli_fail(&c->why.err, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET,
                          "no memory for %llu bytes", (unsigned long long)size);
            c->why.array = i;
            return;
        }
        if (afmt_array_to_plain(v, c->target->order, c->plain[i], size, &c->why.err) != 0) {
            c->why.array = i;
            return;
        }
        afmt_array_plain_view(v, c->target->order, c->plain[i], &c->out[i]);
        if (scaled) {
            /* the stored elements, with the scale the target keeps */
            const afmt_array *o = &c->run.views.v[i];
            c->out[i].logical = o->logical, c->out[i].scaled = 1, c->out[i].scale = o->scale, c->out[i].zero = o->zero;
        }
    }
    c->why.array = (size_t)-2; /* all decoded */
}

/* The work with the GIL released: 0, or -1 with c->why (or c->invalid). */
static int convert_run(conversion *c, const char *src, const char *dst, const afmt_format *forced,
                       const afmt_options *opt)
{
    afmt_write_options wopt;
    uintptr_t fault = 0;
    size_t i;

    if (afmt_file_open(&c->in, src, &c->why.err) != 0)
        return c->invalid = 1, -1;
    c->stage = 1;
    afmt_py_validate_file(&c->run, &c->in, forced, opt);
    if (!c->run.valid) {
        c->why.err = c->run.error;
        return c->invalid = 1, -1;
    }
    c->n = c->run.views.n;
    c->out = calloc(c->n ? c->n : 1, sizeof *c->out);
    c->plain = calloc(c->n ? c->n : 1, sizeof *c->plain);
    c->kv = calloc(c->run.n_kvs ? c->run.n_kvs : 1, sizeof *c->kv);
    if (!c->out || !c->plain || !c->kv)
        return afmt_cli_fail(&c->why.err, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET, "no memory");
    c->why.array = (size_t)-1;
    if (afmt_py_guard_run(decode_all, c, &fault) != 0) {
        afmt_py_fault_error(&c->why.err, fault, &c->in, c->run.fmt->name);
        c->why.array = (size_t)-1;
        return c->invalid = 1, -1;
    }
    if (c->why.array != (size_t)-2)
        return -1;
    memset(&wopt, 0, sizeof wopt);
    if (c->target == c->run.fmt && c->run.views.trailer_len) {
        wopt.trailer = c->run.views.trailer;
        wopt.trailer_len = c->run.views.trailer_len;
    }
    if (c->target->json_metadata && c->run.metadata) {
        wopt.metadata = c->run.metadata;
        wopt.metadata_len = c->run.metadata_len;
    }
    if (c->target->kv_metadata && c->run.fmt->kv_metadata) {
        /* typed key-values between formats that have them (GGUF to GGUF) */
        for (i = 0; i < c->run.n_kvs; i++)
            c->kv[i] = *c->run.kvs[i].kv;
        wopt.kv = c->kv;
        wopt.n_kv = c->run.n_kvs;
    }
    return afmt_py_write_file(c->target, c->out, c->n, &wopt, dst, &c->why);
}

PyObject *afmt_py_convert(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *names[] = { "src", "dst", "to", "format", "lenient", NULL };
    afmt_py_state *st = afmt_py_state_of(m);
    PyObject *src_obj, *dst_obj, *to = Py_None, *format = Py_None, *src = NULL, *dst = NULL;
    const afmt_format *asked, *forced;
    afmt_options opt;
    conversion c;
    char why[AFMT_CLI_OUT_FORMAT_WHY];
    int lenient = 0, rc;
    PyObject *result = NULL;

    memset(&c, 0, sizeof c);
    afmt_py_run_init(&c.run);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOp", names, &src_obj, &dst_obj, &to, &format,
                                     &lenient) ||
        afmt_py_format_arg(to, &asked) != 0 || afmt_py_format_arg(format, &forced) != 0 ||
        afmt_py_options(&opt, lenient, NULL) != 0)
        return NULL;
    if (!PyUnicode_FSConverter(src_obj, &src) || !PyUnicode_FSConverter(dst_obj, &dst))
        goto done;
    c.target = afmt_cli_output_format(PyBytes_AS_STRING(dst), asked, NULL, why, sizeof why);
    if (!c.target) {
        PyErr_SetString(PyExc_ValueError, why);
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    rc = convert_run(&c, PyBytes_AS_STRING(src), PyBytes_AS_STRING(dst), forced, &opt);
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        if (c.invalid)
            afmt_py_raise(c.why.err.code == AFMT_E_IO && c.stage ? st->file_changed : st->invalid_file,
                          &c.why.err, PyBytes_AS_STRING(src));
        else
            afmt_py_raise_refused(m, c.why.array < c.n ? c.run.views.v[c.why.array].name : NULL,
                                  &c.why.err);
        goto done;
    }
    result = PyUnicode_FromString(c.target->name);
done:
    convert_free(&c);
    Py_XDECREF(src);
    Py_XDECREF(dst);
    return result;
}

PyObject *afmt_py_output_format(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *names[] = { "path", "to", NULL };
    PyObject *path_obj, *path = NULL, *to = Py_None;
    const afmt_format *asked, *fmt;
    char why[AFMT_CLI_OUT_FORMAT_WHY];

    (void)m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", names, &path_obj, &to) ||
        afmt_py_format_arg(to, &asked) != 0 || !PyUnicode_FSConverter(path_obj, &path))
        return NULL;
    fmt = afmt_cli_output_format(PyBytes_AS_STRING(path), asked, NULL, why, sizeof why);
    Py_DECREF(path);
    if (!fmt) {
        PyErr_SetString(PyExc_ValueError, why);
        return NULL;
    }
    return PyUnicode_FromString(fmt->name);
}
