/* afmt runtime: the public face of sidecars (afmt.h, "Sidecars") over
 * their reader and writer (afmt_meta.c), whose interface moves with the
 * spec language and stays internal. */
#include <stdlib.h>

#include "../afmt.h"
#include "../common/afmt_error.h"
#include "afmt_meta.h"

struct afmt_sidecar {
    const afmt_meta_desc *desc;
    afmt_meta meta;
    afmt_meta_column columns[AFMT_META_MAX_COLUMNS];
};

/* fmt's sidecar description, or NULL with err. */
static const afmt_meta_desc *desc_of(const afmt_format *fmt, afmt_error *err)
{
    if (fmt && fmt->sidecar)
        return fmt->sidecar;
    afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET, "%s has no sidecar",
              fmt ? fmt->name : "(no format)");
    return NULL;
}

const char *afmt_sidecar_suffix(const afmt_format *fmt)
{
    return fmt && fmt->sidecar ? fmt->sidecar->suffix : NULL;
}

int afmt_sidecar_json(const afmt_format *fmt, const afmt_array *arrays, size_t n, char *out,
                      size_t out_size, size_t *len, afmt_error *err)
{
    const afmt_meta_desc *d = desc_of(fmt, err);

    return d ? afmt_meta_write(d, arrays, n, out, out_size, len, err) : -1;
}

afmt_sidecar *afmt_sidecar_parse(const afmt_format *fmt, const char *json, size_t len,
                                 afmt_error *err)
{
    const afmt_meta_desc *d = desc_of(fmt, err);
    afmt_sidecar *sc;

    if (!d)
        return NULL;
    sc = malloc(sizeof *sc);
    if (!sc) {
        afmt_fail(err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                  "cannot allocate %zu bytes for a sidecar", sizeof *sc);
        return NULL;
    }
    sc->desc = d;
    if (afmt_meta_parse(d, json, len, &sc->meta, sc->columns, err) != 0) {
        free(sc);
        return NULL;
    }
    return sc;
}

int afmt_sidecar_check_array(const afmt_sidecar *sc, const afmt_array *a, size_t index,
                             afmt_error *err)
{
    return afmt_meta_check_array(sc->desc, &sc->meta, a, index, err);
}

int afmt_sidecar_check_end(const afmt_sidecar *sc, size_t n, afmt_error *err)
{
    return afmt_meta_check_end(sc->desc, &sc->meta, n, err);
}

void afmt_sidecar_free(afmt_sidecar *sc)
{
    free(sc);
}
