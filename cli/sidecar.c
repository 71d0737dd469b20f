/* afmt CLI: checking a sidecar beside the data (see sidecar.h). */
#include "sidecar.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input.h"

void afmt_cli_sidecar_begin(afmt_cli_worker *w, const afmt_format *fmt, const char *path)
{
    static const size_t cap = AFMT_META_MAX_BYTES + 1;
    char *text;
    size_t got;
    int fd, rc;

    w->meta_desc = NULL;
    w->meta_failed = 0;
    if (!fmt->sidecar || !path)
        return;
    snprintf(w->meta_path, sizeof w->meta_path, "%s%s", path, fmt->sidecar->suffix);
    /* open and read, no stdio: a missing sidecar (the common case) costs
     * one failed open, a present one open, read, close */
    fd = open(w->meta_path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return; /* no sidecar: nothing to check */
    text = malloc(cap);
    if (!w->meta_columns)
        w->meta_columns = malloc(sizeof *w->meta_columns * AFMT_META_MAX_COLUMNS);
    if (!text || !w->meta_columns) {
        free(text);
        close(fd);
        return;
    }
    rc = afmt_cli_read_full(fd, text, cap, -1, &got);
    close(fd);
    if (rc != 0)
        got = 0; /* unreadable (a directory): parsed as empty, reported */
    w->meta_desc = fmt->sidecar;
    afmt_error_clear(&w->meta_err);
    /* A broken sidecar is reported after the data is validated. */
    if (afmt_meta_parse(fmt->sidecar, text, got, &w->meta, w->meta_columns, &w->meta_err) != 0)
        w->meta_failed = 1;
    free(text);
}

void afmt_cli_sidecar_check_array(afmt_cli_worker *w, const afmt_array *a, uint64_t index)
{
    if (w->meta_desc && !w->meta_failed &&
        afmt_meta_check_array(w->meta_desc, &w->meta, a, (size_t)index, &w->meta_err) != 0)
        w->meta_failed = 1;
}

int afmt_cli_sidecar_end(afmt_cli_worker *w, const afmt_format *fmt, int valid, afmt_error *err)
{
    const char *base;
    int rc = 0;

    if (!w->meta_desc)
        return 0;
    if (valid && !w->meta_failed &&
        afmt_meta_check_end(w->meta_desc, &w->meta, (size_t)w->narrays, &w->meta_err) != 0)
        w->meta_failed = 1;
    if (valid && w->meta_failed) {
        /* the data is fine, its sidecar disagrees: name the sidecar */
        base = strrchr(w->meta_path, '/');
        *err = w->meta_err;
        base = base ? base + 1 : w->meta_path;
        snprintf(err->field, sizeof err->field, "%.100s:%.50s", base, w->meta_err.field);
        afmt_error_set_format(err, fmt->name);
        rc = -1;
    }
    w->meta_desc = NULL;
    return rc;
}
