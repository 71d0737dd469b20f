/* afmt CLI: the element type each array of afmt convert's IN is written
 * with (convert.h).
 *
 * A model holds arrays of several kinds: float weights, integer position
 * ids, bool masks.  `--dtype f16 --allow-lossy` means "make the weights
 * half precision", not "round the ids": so --dtype casts the arrays of
 * its own class (bool; integers, signed or not; floats; complex) and keeps
 * the others, saying which.  A file with no array of that class is cast
 * whole, as asked (a lone i32 array --dtype f32).  --dtype-of NAME=TYPE
 * says it for one array, any class, after --dtype.
 */
#include <stdio.h>
#include <string.h>

#include "afmt.h"
#include "array_out.h"
#include "cli.h"
#include "convert.h"
#include "fail.h"

/* Kept arrays listed in the note, at most. */
#define KEPT_LISTED 4

/* The class --dtype casts within: integers are one class, signed or not. */
static afmt_dtype_kind class_of(afmt_dtype t)
{
    afmt_dtype_kind k = afmt_dtype_get(t)->kind;
    return k == AFMT_KIND_UNSIGNED ? AFMT_KIND_SIGNED : k;
}

static const char *class_name(afmt_dtype_kind k)
{
    switch (k) {
    case AFMT_KIND_BOOL:    return "bool";
    case AFMT_KIND_SIGNED:  return "integer";
    case AFMT_KIND_FLOAT:   return "float";
    case AFMT_KIND_COMPLEX: return "complex";
    default:                return "opaque";
    }
}

/* --dtype: every array of its class, or all when none is. */
static void by_class(const afmt_views *v, afmt_dtype dtype, afmt_dtype *casts)
{
    size_t i, of_class = 0;

    for (i = 0; i < v->n; i++)
        of_class += class_of(afmt_array_value_dtype(&v->v[i])) == class_of(dtype);
    for (i = 0; i < v->n; i++)
        casts[i] = dtype == AFMT_DTYPE_INVALID || (of_class && class_of(afmt_array_value_dtype(&v->v[i])) != class_of(dtype))
                       ? AFMT_DTYPE_INVALID : dtype;
}

/* Is array i called d->name (its key: the name, or arr_I)? */
static int named(const afmt_array *a, size_t i, const afmt_cli_dtype_of *d)
{
    char unnamed[32];
    const char *key = afmt_array_key(a, i, unnamed, sizeof unnamed);
    return strlen(key) == d->name_len && memcmp(key, d->name, d->name_len) == 0;
}

/* "weight, bias, ..." (the first few keys) for a message. */
static void list_keys(const afmt_views *v, char *out, size_t size)
{
    size_t i, used = 0;

    out[0] = '\0';
    for (i = 0; i < v->n && i < 8 && used < size; i++) {
        char unnamed[32];
        int n = snprintf(out + used, size - used, "%s%.64s", i ? ", " : "",
                         afmt_array_key(&v->v[i], i, unnamed, sizeof unnamed));
        if (n < 0)
            return;
        used += (size_t)n;
    }
    if (i < v->n && used < size)
        snprintf(out + used, size - used, ", ... (%zu in all)", v->n);
}

/* --dtype-of, each matching an array: 0, or exit status 2 said. */
static int by_name(const afmt_views *v, const afmt_cli_convert_args *a, afmt_dtype *casts)
{
    char keys[640];
    size_t k, i;

    for (k = 0; k < a->n_dtype_of; k++) {
        int found = 0;
        for (i = 0; i < v->n; i++)
            if (named(&v->v[i], i, &a->dtype_of[k])) {
                casts[i] = a->dtype_of[k].dtype;
                found = 1;
            }
        if (found)
            continue;
        list_keys(v, keys, sizeof keys);
        fprintf(stderr, "afmt convert: --dtype-of %s: %s has no array named '%.*s' (its arrays: %s; "
                        "an unnamed one is arr_I)\n", a->dtype_of[k].arg, a->in,
                (int)a->dtype_of[k].name_len, a->dtype_of[k].name, v->n ? keys : "none");
        return AFMT_EXIT_ERROR;
    }
    return 0;
}

/* Opaque elements have no values to cast.  0, or exit status 1 said. */
static int castable(const afmt_views *v, const afmt_cli_convert_args *a, const afmt_dtype *casts)
{
    afmt_error err;
    size_t i;

    for (i = 0; i < v->n; i++) {
        if (casts[i] == AFMT_DTYPE_INVALID || casts[i] == v->v[i].dtype || v->v[i].dtype != AFMT_OPAQUE)
            continue;
        afmt_error_clear(&err);
        afmt_cli_fail(&err, AFMT_E_TYPE, NULL, v->v[i].offset, "opaque elements cannot be cast to %s",
                      afmt_dtype_name(casts[i]));
        return afmt_cli_convert_refuse(a->in, i, &v->v[i], "cannot convert", &err);
    }
    return 0;
}

/* Does a --dtype-of name array i? */
static int named_by_option(const afmt_views *v, size_t i, const afmt_cli_convert_args *a)
{
    size_t k;

    for (k = 0; k < a->n_dtype_of; k++)
        if (named(&v->v[i], i, &a->dtype_of[k]))
            return 1;
    return 0;
}

/* One line on stderr naming the arrays --dtype kept for their class
 * (not those a --dtype-of said), when it kept any. */
static void say_kept(const afmt_views *v, const afmt_cli_convert_args *a, const afmt_dtype *casts)
{
    char label[640], list[4 * 660 + 64];
    size_t i, kept = 0, used = 0;

    if (a->dtype == AFMT_DTYPE_INVALID)
        return;
    list[0] = '\0';
    for (i = 0; i < v->n; i++) {
        if (casts[i] != AFMT_DTYPE_INVALID || v->v[i].dtype == a->dtype ||
            class_of(v->v[i].dtype) == class_of(a->dtype) || named_by_option(v, i, a))
            continue;
        if (kept++ < KEPT_LISTED && used < sizeof list) {
            int n;
            afmt_cli_array_text_label(label, sizeof label, i, &v->v[i]);
            n = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", label);
            used += n > 0 ? (size_t)n : 0;
        }
    }
    if (kept == 0)
        return;
    fprintf(stderr, "afmt convert: %s: --dtype %s casts the %s arrays: %zu other%s kept as %s: %s%s "
                    "(--dtype-of NAME=%s casts one)\n", a->in, afmt_dtype_name(a->dtype),
            class_name(class_of(a->dtype)), kept, kept == 1 ? "" : "s", kept == 1 ? "it is" : "they are",
            list, kept > KEPT_LISTED ? ", ..." : "", afmt_dtype_name(a->dtype));
}

int afmt_cli_convert_choose_casts(const afmt_cli_convert_input *in, const afmt_cli_convert_args *a,
                                  afmt_dtype *casts)
{
    const afmt_views *v = &in->views;
    int rc;

    by_class(v, a->dtype, casts);
    if ((rc = by_name(v, a, casts)) != 0 || (rc = castable(v, a, casts)) != 0)
        return rc;
    say_kept(v, a, casts);
    return 0;
}
