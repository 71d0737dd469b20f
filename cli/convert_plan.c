/* afmt CLI: afmt convert's plan (convert.h): each array of IN made into
 * the view the target's writer takes (plain, little-endian, contiguous,
 * in the target's order and element type), in the first of these ways
 * that applies:
 *   scale kept        a general scale (FITS BSCALE) the target keeps with
 *                     the stored elements, or refused (--apply-scale: the
 *                     f64 values, decoded below)
 *   kept as it is     already what the writer takes (written straight
 *                     from the mapped input), or a sparse matrix the
 *                     target holds sparse
 *   cast sparse       a cast (convert_cast.c) of a sparse matrix the target
 *                     holds sparse
 *   streamed          one array needing only a transpose or a byte swap:
 *                     made piece by piece as the sink writes it
 *   bools, then cast  --lenient bool bytes other than 0 or 1, cast
 *   cast              decoded, reordered and cast in one pass
 *   decoded           decoded and reordered into a buffer of its own
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "convert.h"

/* The array being planned. */
typedef struct one_array {
    afmt_cli_convert_plan *p;
    size_t i;
    const afmt_array *a;
    afmt_dtype dtype;  /* what it is cast to (convert_cast.c), or AFMT_DTYPE_INVALID */
    uint64_t size;  /* its plain size */
    uint64_t odd;   /* --lenient: its bool bytes other than 0 and 1 */
    int rc;         /* the exit status after a refusal */
} one_array;

void afmt_cli_convert_say_form_changes(const char *in, const afmt_cli_convert_input *c,
                                       const afmt_array *views, const afmt_format *target,
                                       int *compress)
{
    size_t i;
    int compressed_in = 0;

    for (i = 0; i < c->views.n; i++) {
        compressed_in |= c->views.v[i].encoding == AFMT_ENC_LZ4_BLOCK;
        if (views && c->views.v[i].encoding == AFMT_ENC_CSR && views[i].encoding != AFMT_ENC_CSR)
            fprintf(stderr, "afmt convert: %s: array [%zu] is sparse (%s); %s holds it only dense: written dense\n",
                    in, i, c->views.v[i].csc ? "CSC" : "CSR", target->name);
    }
    if (views)
        return; /* the second call, after decoding: sparse notes only */
    if (*compress < 0)
        *compress = compressed_in;
    if (*compress && !target->compresses) {
        fprintf(stderr, "afmt convert: %s: %s cannot store compressed data: written uncompressed\n",
                compressed_in ? in : "--compress", target->name);
        *compress = 0;
    }
}

/* Bool bytes other than 0 and 1 in a plain bool array: --lenient reads
 * them (with a warning), as the reference readers do. */
static uint64_t odd_bools(const afmt_array *a)
{
    uint64_t k, odd = 0;

    if (a->dtype != AFMT_BOOL || a->encoding != AFMT_ENC_PLAIN || !a->data || a->stride == 0)
        return 0;
    for (k = 0; k < a->count; k++)
        odd += a->data[k * a->stride] > 1;
    return odd;
}

/* Convert such an array as the reference readers read it: any nonzero
 * byte is true.  Said on stderr: the output holds 1 where IN held 2. */
static void read_bools_as_true(const char *in, size_t i, uint64_t odd, uint8_t *buf,
                               uint64_t size)
{
    uint64_t k;

    for (k = 0; k < size; k++)
        buf[k] = buf[k] != 0;
    fprintf(stderr, "afmt convert: %s: array [%zu]: %" PRIu64 " bool byte%s other than 0 or 1 "
                    "read as true and written as 1 (--lenient)\n", in, i, odd,
            odd == 1 ? "" : "s");
}

/* --dtype on a CSR matrix: cast its stored values and keep the row
 * offsets and column indices, when the target can hold the result (else
 * 0: it is decoded dense like any other array).  1 with *view and *buf
 * (the cast values, the caller's to free) set; -1 with *rc after a
 * refusal, printed. */
static int cast_csr(const char *in, size_t i, const afmt_array *a, const afmt_format *target,
                    afmt_dtype dtype, int allow_lossy, afmt_array *view, uint8_t **buf, int *rc)
{
    const afmt_dtype_info *ti = afmt_dtype_get(dtype);
    afmt_array cast;
    afmt_error err;
    uint64_t bytes;

    if (a->endian != AFMT_LITTLE || a->stride != a->elsize || !a->data || ti->dtype == AFMT_DTYPE_INVALID ||
        (ti->size && a->nnz > UINT64_MAX / ti->size))
        return 0;
    bytes = a->nnz * ti->size;
    if (bytes > (uint64_t)(SIZE_MAX / 2))
        return 0;
    cast = *a;
    cast.dtype = dtype;
    cast.elsize = ti->size;
    cast.stride = ti->size;
    cast.nbytes = bytes;
    afmt_error_clear(&err);
    if (target->can_write(&cast, &err) != 0)
        return 0;
    *buf = malloc(bytes ? (size_t)bytes : 1);
    if (!*buf) {
        fprintf(stderr, "afmt convert: %s: array [%zu]: cannot allocate %" PRIu64 " bytes\n", in, i, bytes);
        *rc = AFMT_EXIT_ERROR;
        return -1;
    }
    if (afmt_convert_elements(a->dtype, a->data, dtype, *buf, a->nnz, allow_lossy, &err) != 0) {
        char what[64];
        /* the index is among the stored values, not the matrix */
        if (strncmp(err.message, "element ", 8) == 0) {
            char rest[AFMT_MESSAGE_MAX];
            snprintf(rest, sizeof rest, "%s", err.message + 8);
            snprintf(err.message, sizeof err.message, "stored value %.*s", (int)sizeof err.message - 16, rest);
        }
        snprintf(what, sizeof what, "cannot cast to %s", afmt_dtype_name(dtype));
        *rc = afmt_cli_convert_refuse(in, i, a, what, &err);
        return -1;
    }
    cast.data = *buf;
    cast.order = target->order;
    *view = cast;
    return 1;
}

/* A buffer of n bytes for array o, or NULL said (o->rc set). */
static uint8_t *alloc_for(one_array *o, uint64_t n)
{
    uint8_t *buf = n <= (uint64_t)(SIZE_MAX / 2) ? malloc(n ? (size_t)n : 1) : NULL;

    if (!buf) {
        fprintf(stderr, "afmt convert: %s: array [%zu]: cannot allocate %" PRIu64 " bytes\n",
                o->p->args->in, o->i, n);
        o->rc = AFMT_EXIT_ERROR;
    }
    return buf;
}

/* Each way below: 1 when array o is planned so, 0 when this way does
 * not apply, -1 after a refusal said (o->rc). */
typedef int (*plan_way)(one_array *o);

static int casts(const one_array *o)
{
    return o->dtype != AFMT_DTYPE_INVALID && o->dtype != afmt_array_value_dtype(o->a);
}

/* A general scale (FITS BSCALE 0.5): kept with the stored elements where
 * the target can say it (FITS); else refused by name unless --apply-scale
 * asks for the f64 values, which the ways below then decode.  1 planned,
 * 0 not such an array (or --apply-scale), -1 refused. */
static int keep_scale(one_array *o)
{
    const afmt_cli_convert_args *a = o->p->args;
    afmt_array stored = *o->a, *view = &o->p->views[o->i];
    afmt_error err;
    uint64_t size;
    uint8_t *buf;

    if (!afmt_array_general_scale(o->a) || a->apply_scale)
        return 0;
    afmt_error_clear(&err);
    stored.logical = AFMT_DTYPE_INVALID;
    stored.scaled = 0;
    afmt_array_plain_view(&stored, a->target->order, NULL, view);
    view->logical = o->a->logical, view->scaled = 1, view->scale = o->a->scale, view->zero = o->a->zero;
    if (casts(o) || a->target->can_write(view, &err) != 0) {
        snprintf(err.message, sizeof err.message, "%s cannot store a scale with its %s elements "
                 "(--apply-scale writes the f64 values)", a->target->name, afmt_dtype_name(o->a->dtype));
        err.code = AFMT_E_TYPE;
        err.field[0] = '\0';
        o->rc = afmt_cli_convert_refuse(a->in, o->i, o->a, "cannot keep the scale", &err);
        return -1;
    }
    if (afmt_array_plain_size(&stored, &size, &err) != 0 || !(buf = o->p->bufs[o->i] = alloc_for(o, size)))
        return -1;
    if (afmt_array_to_plain(&stored, a->target->order, buf, size, &err) != 0) {
        o->rc = afmt_cli_convert_refuse(a->in, o->i, o->a, "cannot decode", &err);
        return -1;
    }
    view->data = buf;
    return 1;
}

/* Already what the writer takes: written straight from the mapped input
 * instead of copied into fresh memory first. */
static int keep_as_is(one_array *o)
{
    afmt_array dense;
    const afmt_array *a = afmt_array_dense_view(o->a, &dense) ? &dense : o->a;
    const afmt_format *target = o->p->args->target;
    afmt_error err;
    int plain = a->encoding == AFMT_ENC_PLAIN && !a->strided && a->endian == AFMT_LITTLE && a->stride == a->elsize &&
                a->nbytes >= o->size && a->data && (a->rank <= 1 || a->order == target->order);

    afmt_error_clear(&err);
    if (o->odd || casts(o) || afmt_array_has_transform(a))
        return 0;
    /* a sparse matrix stays sparse where the target can say so */
    if (!plain && !(a->encoding == AFMT_ENC_CSR && a->endian == AFMT_LITTLE && !a->csc &&
                    target->can_write(a, &err) == 0))
        return 0;
    o->p->views[o->i] = *a;
    o->p->views[o->i].order = target->order;
    return 1;
}

/* A sparse matrix cast keeps its form where the target can hold it. */
static int cast_sparse(one_array *o)
{
    const afmt_cli_convert_args *a = o->p->args;

    if (!casts(o) || o->a->encoding != AFMT_ENC_CSR || o->a->csc || afmt_array_has_transform(o->a))
        return 0;
    return cast_csr(a->in, o->i, o->a, a->target, o->dtype, a->allow_lossy, &o->p->views[o->i],
                    &o->p->bufs[o->i], &o->rc);
}

/* One array made piece by piece as the sink writes it (Futhark text
 * reads the values itself; compression and npz need them whole). */
static int stream(one_array *o)
{
    afmt_cli_convert_plan *p = o->p;
    const afmt_cli_convert_args *a = p->args;

    if (o->odd || p->n != 1 || a->text || p->compress ||
        !afmt_cli_convert_stream(&p->st, o->a, a->target, o->dtype, &p->views[o->i]))
        return 0;
    p->is_streamed = 1;
    return 1;
}

/* The bools as --lenient reads them (0 or 1), then the cast. */
static int cast_lenient_bools(one_array *o)
{
    const afmt_cli_convert_args *a = o->p->args;
    afmt_array plain, *view = &o->p->views[o->i];
    afmt_error err;
    uint8_t *norm, *buf;

    if (!o->odd || !casts(o))
        return 0;
    norm = alloc_for(o, o->size);
    if (!norm)
        return -1;
    afmt_error_clear(&err);
    if (afmt_array_to_plain(o->a, o->a->order, norm, o->size, &err) != 0) {
        free(norm);
        o->rc = afmt_cli_convert_refuse(a->in, o->i, o->a, "cannot decode", &err);
        return -1;
    }
    read_bools_as_true(a->in, o->i, o->odd, norm, o->size);
    afmt_array_plain_view(o->a, o->a->order, norm, &plain);
    afmt_cli_convert_target_view(&plain, a->target, o->dtype, NULL, view);
    buf = o->p->bufs[o->i] = alloc_for(o, view->nbytes);
    if (buf && afmt_array_to_plain_as(&plain, a->target->order, o->dtype, a->allow_lossy, buf,
                                      view->nbytes, &err) != 0)
        o->rc = afmt_cli_convert_refuse(a->in, o->i, o->a, "cannot cast", &err);
    free(norm);
    view->data = buf;
    return o->rc ? -1 : 1;
}

/* Decoded, reordered and cast in one pass, into the one buffer. */
static int cast(one_array *o)
{
    const afmt_cli_convert_args *a = o->p->args;
    afmt_array *view = &o->p->views[o->i];
    afmt_error err;
    char what[64];
    uint8_t *buf;

    if (!casts(o))
        return 0;
    afmt_cli_convert_target_view(o->a, a->target, o->dtype, NULL, view);
    buf = o->p->bufs[o->i] = alloc_for(o, view->nbytes);
    if (!buf)
        return -1;
    afmt_error_clear(&err);
    if (afmt_array_to_plain_as(o->a, a->target->order, o->dtype, a->allow_lossy, buf, view->nbytes,
                               &err) != 0) {
        snprintf(what, sizeof what, "cannot decode");
        if (err.code == AFMT_E_LOSSY || err.code == AFMT_E_TYPE) {
            afmt_cli_convert_name_element(&err, o->a, a->target->order);
            snprintf(what, sizeof what, "cannot cast to %s", afmt_dtype_name(o->dtype));
        }
        o->rc = afmt_cli_convert_refuse(a->in, o->i, o->a, what, &err);
        return -1;
    }
    view->data = buf;
    return 1;
}

/* Decoded and reordered into a buffer of its own (--lenient bools as
 * true); the last way, which always applies. */
static int decode(one_array *o)
{
    const afmt_cli_convert_args *a = o->p->args;
    afmt_error err;
    uint8_t *buf = o->p->bufs[o->i] = alloc_for(o, o->size);

    if (!buf)
        return -1;
    afmt_error_clear(&err);
    if (afmt_array_to_plain(o->a, a->target->order, buf, o->size, &err) != 0) {
        o->rc = afmt_cli_convert_refuse(a->in, o->i, o->a, "cannot decode", &err);
        return -1;
    }
    if (o->odd)
        read_bools_as_true(a->in, o->i, o->odd, buf, o->size);
    afmt_array_plain_view(o->a, a->target->order, buf, &o->p->views[o->i]);
    return 1;
}

/* Array i planned the first way that applies, and checked against the
 * target when it is the only one (several are checked together, by
 * afmt_cli_convert_check_all: they may make one structure, a DAPHNE
 * frame).  0, or an exit status said. */
static int plan_one(afmt_cli_convert_plan *p, size_t i)
{
    static const plan_way ways[] = { keep_scale, keep_as_is, cast_sparse, stream, cast_lenient_bools, cast, decode };
    const afmt_cli_convert_args *a = p->args;
    one_array o;
    afmt_error err;
    size_t w;
    int r = 0;

    memset(&o, 0, sizeof o);
    o.p = p;
    o.i = i;
    o.a = &p->input->views.v[i];
    o.dtype = p->casts[i];
    o.odd = a->opt.mode == AFMT_LENIENT ? odd_bools(o.a) : 0;
    afmt_error_clear(&err);
    if (afmt_array_plain_size(o.a, &o.size, &err) != 0)
        return afmt_cli_convert_refuse(a->in, i, o.a, "cannot decode", &err);
    for (w = 0; r == 0 && w < sizeof ways / sizeof ways[0]; w++)
        r = ways[w](&o);
    if (r < 0)
        return o.rc;
    if (p->n == 1 && afmt_cli_convert_check_target(a->in, i, a->target, a->keep_names, &p->views[i],
                                                   &o.rc) != 0)
        return o.rc;
    return 0;
}

int afmt_cli_convert_plan_all(afmt_cli_convert_plan *p, const afmt_cli_convert_input *in,
                              const afmt_cli_convert_args *a)
{
    size_t i;
    int rc;

    p->args = a;
    p->input = in;
    p->n = in->views.n;
    p->compress = a->compress;
    p->views = calloc(p->n ? p->n : 1, sizeof *p->views);
    p->bufs = calloc(p->n ? p->n : 1, sizeof *p->bufs);
    p->casts = calloc(p->n ? p->n : 1, sizeof *p->casts);
    if (!p->views || !p->bufs || !p->casts) {
        fprintf(stderr, "afmt convert: out of memory\n");
        return AFMT_EXIT_ERROR;
    }
    if ((rc = afmt_cli_convert_choose_casts(in, a, p->casts)) != 0)
        return rc;
    afmt_cli_convert_say_form_changes(a->in, in, NULL, a->target, &p->compress);
    for (i = 0; i < p->n; i++)
        if ((rc = plan_one(p, i)) != 0)
            return rc;
    if ((rc = afmt_cli_convert_check_all(p)) != 0)
        return rc;
    afmt_cli_convert_say_form_changes(a->in, in, p->views, a->target, &p->compress);
    return 0;
}

void afmt_cli_convert_plan_free(afmt_cli_convert_plan *p)
{
    size_t i;

    for (i = 0; p->bufs && i < p->n; i++)
        free(p->bufs[i]);
    free(p->bufs);
    free(p->casts);
    free(p->views);
    memset(p, 0, sizeof *p);
}
