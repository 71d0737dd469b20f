/* afmt runtime: finding an array of a file by its name (afmt.h,
 * afmt_find_array): a visitor that keeps the first view of that name. */
#include <inttypes.h>
#include <string.h>

#include "../afmt.h"
#include "../common/afmt_error.h"

typedef struct find_ctx {
    const char *name;
    size_t name_len;
    afmt_array kept; /* given to the caller only once the file is valid */
    int found;
    uint64_t seen;
} find_ctx;

static int keep_named(void *ctx, const afmt_array *a)
{
    find_ctx *f = ctx;
    size_t held = strlen(a->name);

    f->seen++;
    /* a name longer than the view holds (name_len) is never taken for a
     * shorter one that shares its first bytes */
    if (!f->found && held == f->name_len && a->name_len <= held && memcmp(a->name, f->name, held) == 0) {
        f->kept = *a;
        f->found = 1;
    }
    return 0;
}

int afmt_find_array(const void *buf, uint64_t len, const afmt_format *fmt, const char *name,
                    const afmt_options *opt, afmt_array *out, afmt_error *err)
{
    afmt_visitor vis;
    find_ctx f;

    if (!fmt || !fmt->validate || !name || !out || (!buf && len))
        return afmt_fail(err, AFMT_E_USAGE, NULL, "name", AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "afmt_find_array: a format, a name, a view to fill and the bytes are needed");
    memset(&vis, 0, sizeof vis);
    memset(&f, 0, sizeof f);
    f.name = name;
    f.name_len = strlen(name);
    vis.ctx = &f;
    vis.on_array = keep_named;
    if (fmt->validate((const uint8_t *)buf, len, opt, &vis, err) != 0)
        return -1; /* a view of an invalid file is not handed out */
    if (f.found) {
        *out = f.kept;
        return 0;
    }
    afmt_fail(err, AFMT_E_USAGE, NULL, "name", AFMT_NO_INDEX, AFMT_NO_OFFSET,
              "no array named \"%.200s\" among the %" PRIu64 " arrays of this %s file", name, f.seen,
              fmt->name);
    afmt_error_set_format(err, fmt->name);
    return -1;
}
