/* afmt runtime: default options and the strict/lenient decision.
 *
 * afmt_fail has no va_list twin in the public header, so the message is
 * formatted here first and passed through "%s"; both end up bounded by
 * AFMT_MESSAGE_MAX the same way.
 */
#include "afmt_options.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void afmt_options_default(afmt_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->mode = AFMT_STRICT;
    opt->limits.max_rank = 255;
    opt->limits.max_header_bytes = AFMT_DEFAULT_MAX_HEADER_BYTES;
    opt->limits.max_total_bytes = (uint64_t)1 << 62;
    opt->limits.max_items = (uint64_t)1 << 32;
    opt->limits.max_decoded_bytes = (uint64_t)64 << 30;
    opt->limits.max_depth = 32;
    opt->limits.max_held_bytes = UINT64_MAX;
    opt->limits.max_kept_bytes = AFMT_DEFAULT_MAX_KEPT_BYTES;
    opt->check_values = 1;
}

int afmt_toleratev(const afmt_options *opt, const afmt_visitor *vis, afmt_error *err,
                   afmt_code code, const afmt_path *path, const char *field, uint64_t index,
                   uint64_t offset, const char *fmt, va_list ap)
{
    afmt_error warning;

    /* No options means the safe default: strict. */
    if (!opt || opt->mode != AFMT_LENIENT)
        return afmt_failv(err, code, path, field, index, offset, fmt, ap);

    /* Lenient: err is left alone (the validation goes on); the warning
     * carries the format name the validator already recorded. */
    afmt_error_clear(&warning);
    if (err)
        memcpy(warning.format, err->format, sizeof warning.format);
    afmt_failv(&warning, code, path, field, index, offset, fmt, ap);
    if (vis && vis->on_warning)
        vis->on_warning(vis->ctx, &warning);
    return 0;
}

int afmt_tolerate(const afmt_options *opt, const afmt_visitor *vis,
                  afmt_error *err, afmt_code code, const afmt_path *path,
                  const char *field, uint64_t index, uint64_t offset,
                  const char *fmt, ...)
{
    va_list ap;
    int rc;
    va_start(ap, fmt);
    rc = afmt_toleratev(opt, vis, err, code, path, field, index, offset, fmt, ap);
    va_end(ap);
    return rc;
}

void afmt_warn(const afmt_visitor *vis, const afmt_path *path,
               const char *field, uint64_t index, uint64_t offset,
               const char *fmt, ...)
{
    char msg[AFMT_MESSAGE_MAX];
    afmt_error warning;
    va_list ap;

    if (!vis || !vis->on_warning)
        return;
    msg[0] = '\0';
    if (fmt) {
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
    }
    /* A plain note has no error code: it is reported as AFMT_OK. */
    afmt_error_clear(&warning);
    afmt_fail(&warning, AFMT_OK, path, field, index, offset, "%s", msg);
    vis->on_warning(vis->ctx, &warning);
}

void afmt_report_field(const afmt_options *opt, const afmt_path *path, const char *name,
                       afmt_field_kind kind, uint64_t offset, int is_array, uint64_t count,
                       unsigned width, int big_endian, const uint8_t *bytes, const char *doc,
                       const char *value_name)
{
    afmt_field_info f;
    char field[AFMT_FIELD_MAX];

    if (!opt || !opt->fields || !opt->fields->on_field)
        return;
    afmt_path_describe(path, name, AFMT_NO_INDEX, field, sizeof field);
    f.field = field;
    f.kind = kind;
    f.offset = offset;
    f.is_array = is_array;
    f.count = count;
    f.width = width;
    f.big_endian = big_endian;
    f.bytes = bytes;
    f.doc = doc;
    f.value_name = value_name;
    opt->fields->on_field(opt->fields->ctx, &f);
}
