/* afmt CLI: checking a sidecar beside the data (see sidecar.h). */
#include "sidecar.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fail.h"
#include "input.h"

void afmt_cli_sidecar_begin(afmt_cli_worker *w, const afmt_format *fmt, const char *path)
{
    static const size_t cap = AFMT_SIDECAR_MAX_BYTES + 1;
    char *text;
    size_t got;
    int fd, rc;

    w->meta_on = 0;
    w->meta_failed = 0;
    if (!afmt_sidecar_suffix(fmt) || !path)
        return;
    snprintf(w->meta_path, sizeof w->meta_path, "%s%s", path, afmt_sidecar_suffix(fmt));
    /* open and read, no stdio: a missing sidecar (the common case) costs
     * one failed open, a present one open, read, close */
    fd = open(w->meta_path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return; /* no sidecar: nothing to check */
    text = malloc(cap);
    if (!text) {
        close(fd);
        return;
    }
    rc = afmt_cli_read_full(fd, text, cap, -1, &got);
    close(fd);
    if (rc != 0)
        got = 0; /* unreadable (a directory): parsed as empty, reported */
    w->meta_on = 1;
    afmt_error_clear(&w->meta_err);
    afmt_sidecar_free(w->meta);
    /* A broken sidecar is reported after the data is validated. */
    w->meta = afmt_sidecar_parse(fmt, text, got, &w->meta_err);
    if (!w->meta)
        w->meta_failed = 1;
    free(text);
}

void afmt_cli_sidecar_check_array(afmt_cli_worker *w, const afmt_array *a, uint64_t index)
{
    if (w->meta_on && !w->meta_failed &&
        afmt_sidecar_check_array(w->meta, a, (size_t)index, &w->meta_err) != 0)
        w->meta_failed = 1;
}

int afmt_cli_sidecar_end(afmt_cli_worker *w, const afmt_format *fmt, int valid, afmt_error *err)
{
    const char *base;
    int rc = 0;

    if (!w->meta_on)
        return 0;
    if (valid && !w->meta_failed &&
        afmt_sidecar_check_end(w->meta, (size_t)w->narrays, &w->meta_err) != 0)
        w->meta_failed = 1;
    if (valid && w->meta_failed) {
        /* the data is fine, its sidecar disagrees: name the sidecar */
        base = strrchr(w->meta_path, '/');
        *err = w->meta_err;
        base = base ? base + 1 : w->meta_path;
        snprintf(err->field, sizeof err->field, "%.100s:%.50s", base, w->meta_err.field);
        afmt_cli_error_set_format(err, fmt->name);
        rc = -1;
    }
    w->meta_on = 0;
    afmt_sidecar_free(w->meta);
    w->meta = NULL;
    return rc;
}
