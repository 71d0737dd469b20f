/* afmt-gen: the checker's diagnostics (diag.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "util.h"

void diag_error(diag *d, const char *jpath, const char *fmt, ...)
{
    va_list ap;
    char *msg, *all;
    d->errors++;
    if (d->quiet) return;
    va_start(ap, fmt);
    msg = xvprintf(fmt, ap);
    va_end(ap);
    all = xprintf("%s: %s: %s", d->path, jpath ? jpath : "/", msg);
    if (!d->last || strcmp(d->last, all) != 0) fprintf(stderr, "%s\n", all);
    free(d->last);
    d->last = all;
    free(msg);
}

void diag_free(diag *d)
{
    free(d->last);
    d->last = NULL;
}
