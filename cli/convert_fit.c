/* afmt CLI: afmt convert's checks against the target (convert.h): can
 * it hold each array, and all of them together; a name it cannot hold is
 * shortened to what fits, or dropped, unless --keep-names. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "convert.h"

/* The view target->can_write and target->write see for array a. */
void afmt_cli_convert_target_view(const afmt_array *a, const afmt_format *target,
                                  afmt_dtype dtype, const uint8_t *data, afmt_array *out)
{
    afmt_array tmp;

    if (dtype == AFMT_DTYPE_INVALID || dtype == a->dtype) {
        afmt_array_plain_view(a, target->order, data, out);
        return;
    }
    afmt_array_plain_view(a, target->order, NULL, &tmp);
    tmp.dtype = dtype;
    tmp.elsize = afmt_dtype_get(dtype)->size;
    afmt_array_plain_view(&tmp, target->order, data, out);
}

/* Does the target take this one array as it is? */
static int target_takes(const afmt_format *target, const afmt_array *v)
{
    afmt_error err;
    uint64_t size;

    afmt_error_clear(&err);
    return target->can_write(v, &err) == 0 && target->encoded_size(v, 1, NULL, &size, &err) == 0;
}

/* Names are labels, not values: a name the target cannot hold (tenbin's
 * 8 bytes of info, for a safetensors key such as "layer.0.weight") is
 * shortened to its longest prefix the target takes, or dropped, and
 * stderr says so.  Returns 1 when the view now fits, 0 when its name was
 * not what stood in the way (or keep_names forbids changing it). */
static int fit_name(const char *in, size_t i, const afmt_format *target, int keep_names,
                    afmt_array *view)
{
    afmt_array t;
    size_t k = strnlen(view->name, sizeof view->name);

    if (keep_names || (k == 0 && view->name_len == 0))
        return 0;
    t = *view;
    t.name_len = 0;
    for (;;) {
        t.name[k] = '\0';
        if (target_takes(target, &t))
            break;
        if (k == 0)
            return 0;
        k--;
    }
    if (k > 0)
        fprintf(stderr, "afmt convert: %s: array [%zu]: name \"%s\" shortened to \"%s\": %s "
                        "holds no longer name (--keep-names refuses instead)\n",
                in, i, view->name, t.name, target->name);
    else
        fprintf(stderr, "afmt convert: %s: array [%zu]: name \"%s\" dropped: %s cannot hold it "
                        "(--keep-names refuses instead)\n", in, i, view->name, target->name);
    *view = t;
    return 1;
}

/* Can the target hold this array (type, shape, and for bool the values)?
 * The writers check with the data at hand, so this runs after decoding. */
int afmt_cli_convert_check_target(const char *in, size_t i, const afmt_format *target,
                                  int keep_names, afmt_array *view, int *rc)
{
    afmt_error err;
    char what[64];

    afmt_error_clear(&err);
    if (target->can_write(view, &err) == 0) {
        /* a name the writer refuses: shortened (else refused when written) */
        if (!target_takes(target, view))
            fit_name(in, i, target, keep_names, view);
        return 0;
    }
    if (fit_name(in, i, target, keep_names, view))
        return 0;
    snprintf(what, sizeof what, "cannot be written as %s", target->name);
    *rc = afmt_cli_convert_refuse(in, i, view, what, &err);
    return -1;
}


/* Names the target refuses among several arrays: shortened or dropped,
 * each said; a name longer than afmt keeps is written as the bytes kept. */
static void fit_names(const afmt_cli_convert_plan *p)
{
    const afmt_cli_convert_args *a = p->args;
    size_t i;

    for (i = 0; i < p->n; i++) {
        afmt_array *v = &p->views[i];
        if (!target_takes(a->target, v))
            fit_name(a->in, i, a->target, a->keep_names, v);
        if (!a->keep_names && v->name_len > strnlen(v->name, sizeof v->name)) {
            fprintf(stderr, "afmt convert: %s: array [%zu]: a name of %" PRIu64 " bytes "
                            "shortened to the %zu afmt keeps (--keep-names refuses instead)\n",
                    a->in, i, v->name_len, strnlen(v->name, sizeof v->name));
            v->name_len = 0;
        }
    }
}

/* Several arrays may make one structure (a DAPHNE frame): the target
 * checks them together, after names are fitted where that is what it
 * refuses (an npz archive: two arrays of one member name). */
int afmt_cli_convert_check_all(afmt_cli_convert_plan *p)
{
    const afmt_cli_convert_args *a = p->args;
    afmt_error err;
    uint64_t size;
    char what[96];

    if (p->n <= 1)
        return 0;
    afmt_error_clear(&err);
    if (a->target->encoded_size(p->views, p->n, NULL, &size, &err) != 0) {
        fit_names(p);
        afmt_error_clear(&err);
    }
    if (a->target->encoded_size(p->views, p->n, NULL, &size, &err) == 0)
        return 0;
    snprintf(what, sizeof what, "these %zu arrays cannot be written as one %s file", p->n, a->target->name);
    /* the whole set is refused: err's field names the repetition (the
     * array) it failed in, so no single array is named here */
    return afmt_cli_convert_refuse(a->in, 0, NULL, what, &err);
}
