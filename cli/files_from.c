/* afmt CLI: reading a list of inputs (see files_from.h). */
#include "files_from.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Hand one finished entry (len bytes in buf) to each. */
static void finish(char *buf, size_t len, int delim, int too_long,
                   afmt_cli_each_path_fn *each, void *ctx)
{
    if (delim == '\n' && len > 0 && buf[len - 1] == '\r' && !too_long)
        len--;
    buf[len] = '\0';
    if (len > 0)
        each(ctx, buf, too_long);
}

static int read_list(FILE *f, int delim, char *buf, size_t size,
                     afmt_cli_each_path_fn *each, void *ctx)
{
    size_t len = 0;
    int c, too_long = 0;

    while ((c = getc(f)) != EOF) {
        if (c == delim) {
            finish(buf, len, delim, too_long, each, ctx);
            len = 0;
            too_long = 0;
        } else if (len + 1 < size) {
            buf[len++] = (char)c;
        } else {
            too_long = 1; /* keep reading to the end of this entry */
        }
    }
    if (ferror(f))
        return -1;
    finish(buf, len, delim, too_long, each, ctx); /* a last entry without delim */
    return 0;
}

int afmt_cli_files_from(const char *list_path, int delim, char *buf, size_t size,
                        afmt_cli_each_path_fn *each, void *ctx)
{
    FILE *f;
    int rc, e;

    if (strcmp(list_path, "-") == 0)
        return read_list(stdin, delim, buf, size, each, ctx);
    f = fopen(list_path, "r");
    if (!f)
        return -1;
    rc = read_list(f, delim, buf, size, each, ctx);
    e = errno;
    fclose(f);
    errno = e;
    return rc;
}
