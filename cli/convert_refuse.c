/* afmt CLI: how afmt convert says a refusal (convert.h): the array, what
 * was refused, and why, with a cast's element named by its logical index. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "array_out.h"
#include "cli.h"
#include "convert.h"

/* A refused cast names element k of the plain data it was casting, which
 * is in `order` (the target's storage order): say it as the logical index
 * afmt dump shows, "[0,1]", so the user finds the value there. */
void afmt_cli_convert_name_element(afmt_error *err, const afmt_array *a, afmt_order order)
{
    char idx[AFMT_RANK_CAP * 21 + 3], rest[AFMT_MESSAGE_MAX], out[sizeof idx + AFMT_MESSAGE_MAX + 16];
    uint64_t k, sub[AFMT_RANK_CAP];
    unsigned long long kk;
    size_t len = 0;
    uint32_t d;
    int off = -1;

    if (err->code != AFMT_E_LOSSY || sscanf(err->message, "element %llu: %n", &kk, &off) != 1 || off < 0 ||
        a->rank > AFMT_RANK_CAP || kk >= a->count)
        return;
    k = kk;
    /* row-major: the last index varies fastest; column-major: the first */
    for (d = 0; d < a->rank; d++) {
        uint32_t axis = order == AFMT_COL_MAJOR ? d : a->rank - 1 - d;
        sub[axis] = a->dims[axis] ? k % a->dims[axis] : 0;
        k = a->dims[axis] ? k / a->dims[axis] : 0;
    }
    idx[len++] = '[';
    for (d = 0; d < a->rank; d++)
        len += (size_t)snprintf(idx + len, sizeof idx - len, "%s%" PRIu64, d ? "," : "", sub[d]);
    snprintf(idx + len, sizeof idx - len, "]");
    snprintf(rest, sizeof rest, "%s", err->message + off);
    snprintf(out, sizeof out, "element %s: %s", idx, rest);
    memcpy(err->message, out, sizeof err->message - 1); /* cut if it must be */
    err->message[sizeof err->message - 1] = '\0';
}

int afmt_cli_convert_refuse(const char *in, size_t i, const afmt_array *a, const char *what,
                            const afmt_error *err)
{
    char d[8192], e[AFMT_FIELD_MAX + AFMT_MESSAGE_MAX + 64], which[sizeof d + 32] = "";

    afmt_error_describe(err, e, sizeof e);
    if (a) { /* NULL: the refusal is of the whole set */
        afmt_cli_array_text_label(d, sizeof d, i, a);
        snprintf(which, sizeof which, "array %s: ", d);
    }
    fprintf(stderr, "afmt convert: %s: %s%s: %s%s\n", in, which, what, err->field[0] ? e : err->message,
            err->code == AFMT_E_LOSSY ? " (use --allow-lossy to accept)" : "");
    if (err->code == AFMT_E_NOMEM || err->code == AFMT_E_IO)
        return AFMT_EXIT_ERROR;
    return AFMT_EXIT_INVALID;
}

