/* afmt CLI: filling an afmt_error (see fail.h). */
#include "fail.h"

#include <stdarg.h>
#include <stdio.h>

int afmt_cli_fail(afmt_error *err, afmt_code code, const char *field, uint64_t offset,
                  const char *fmt, ...)
{
    va_list ap;

    if (!err)
        return -1;
    err->code = code;
    err->offset = offset;
    snprintf(err->field, sizeof err->field, "%s", field ? field : "");
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return -1;
}

void afmt_cli_error_set_format(afmt_error *err, const char *name)
{
    if (err)
        snprintf(err->format, sizeof err->format, "%s", name ? name : "");
}
