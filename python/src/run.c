/* afmt Python extension: one validation of one input (see run.h). */
#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200809L
#undef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* stat, open, read */
#endif
#include "run.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The CLI's own rules for an input no magic names (compiled in from
 * cli/, see python/README): the same verdict from Python as from
 * afmt-validate. */
#include "closest.h"
#include "fail.h"
#include "identify.h"

void afmt_py_run_init(afmt_py_run *run)
{
    memset(run, 0, sizeof *run);
    afmt_views_init(&run->views, AFMT_PY_VIEWS_MAX);
    afmt_error_clear(&run->error);
    run->current_member = -1;
}

static void free_kept(afmt_py_run *run)
{
    size_t i;

    for (i = 0; i < run->n_members; i++)
        free(run->members[i]);
    for (i = 0; i < run->n_kvs; i++)
        free(run->kvs[i].kv);
    free(run->members);
    free(run->member_of);
    free(run->warnings);
    free(run->metadata);
    free(run->kvs);
}

void afmt_py_run_free(afmt_py_run *run)
{
    free_kept(run);
    afmt_views_free(&run->views);
    afmt_py_run_init(run);
    afmt_views_free(&run->views); /* init allocates nothing; keeps it so */
}

void afmt_py_run_reset(afmt_py_run *run)
{
    const afmt_format *fmt = run->fmt;

    afmt_py_run_free(run);
    run->fmt = fmt;
}

const char *afmt_py_run_member(const afmt_py_run *run, size_t i)
{
    if (i >= run->member_of_cap || run->member_of[i] < 0)
        return NULL;
    return run->members[run->member_of[i]];
}

/* Grow *p (of *cap elements of size) so that it holds need; 0 or -1. */
static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    size_t n = *cap ? *cap : 8;
    void *q;

    if (need <= *cap)
        return 0;
    while (n < need) {
        if (n > SIZE_MAX / 2 / size)
            return -1;
        n *= 2;
    }
    q = realloc(*p, n * size);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

static int on_array(void *ctx, const afmt_array *a)
{
    afmt_py_run *run = ctx;
    size_t at = run->views.n;

    afmt_views_add(&run->views, a);
    if (run->views.oom || run->views.n > run->views.max)
        return 0; /* reported after the run */
    if (grow((void **)&run->member_of, &run->member_of_cap, at + 1, sizeof *run->member_of) != 0) {
        run->out_of_memory = 1;
        return 1;
    }
    run->member_of[at] = run->current_member;
    return 0;
}

static void on_warning(void *ctx, const afmt_error *w)
{
    afmt_py_run *run = ctx;

    run->warnings_seen++;
    if (run->n_warnings >= AFMT_PY_WARNINGS_KEPT)
        return;
    if (!run->warnings) {
        run->warnings = malloc(AFMT_PY_WARNINGS_KEPT * sizeof *run->warnings);
        if (!run->warnings)
            return; /* a warning is not a verdict: losing it is no failure */
    }
    run->warnings[run->n_warnings++] = *w;
}

static void on_metadata(void *ctx, const uint8_t *json, uint64_t len, uint64_t offset)
{
    afmt_py_run *run = ctx;

    free(run->metadata);
    run->metadata = NULL;
    if (len >= SIZE_MAX || !(run->metadata = malloc((size_t)len + 1))) {
        run->out_of_memory = 1;
        return;
    }
    memcpy(run->metadata, json, (size_t)len);
    run->metadata[len] = '\0';
    run->metadata_len = len;
    run->metadata_offset = offset;
}

static int on_kv(void *ctx, const afmt_kv *kv, uint64_t offset)
{
    afmt_py_run *run = ctx;
    afmt_kv *copy;

    if (grow((void **)&run->kvs, &run->kvs_cap, run->n_kvs + 1, sizeof *run->kvs) != 0 ||
        afmt_kv_copy(kv, 1, &copy, NULL) != 0) {
        run->out_of_memory = 1;
        return 1;
    }
    run->kvs[run->n_kvs].kv = copy;
    run->kvs[run->n_kvs].offset = offset;
    run->n_kvs++;
    return 0;
}

static int on_member(void *ctx, const afmt_member *m)
{
    afmt_py_run *run = ctx;
    char *name;

    if (m->done) {
        run->current_member = -1;
        return m->error != NULL; /* the first bad member ends the run, as without on_member */
    }
    if (m->name_len >= SIZE_MAX ||
        grow((void **)&run->members, &run->members_cap, run->n_members + 1, sizeof *run->members) != 0 ||
        !(name = malloc((size_t)m->name_len + 1))) {
        run->out_of_memory = 1;
        return 1;
    }
    memcpy(name, m->name, (size_t)m->name_len);
    name[m->name_len] = '\0';
    run->members[run->n_members] = name;
    run->current_member = (int32_t)run->n_members++;
    return 0;
}

static void on_trailer(void *ctx, const uint8_t *data, uint64_t len, uint64_t offset)
{
    afmt_py_run *run = ctx;

    (void)offset;
    run->views.trailer = data; /* in the input: lives as long as it */
    run->views.trailer_len = len;
}

static void visitor(afmt_py_run *run, afmt_visitor *vis)
{
    memset(vis, 0, sizeof *vis);
    vis->ctx = run;
    vis->on_array = on_array;
    vis->on_warning = on_warning;
    vis->on_metadata = on_metadata;
    vis->on_kv = on_kv;
    vis->on_member = on_member;
    vis->on_trailer = on_trailer;
}

/* The sidecar beside path, parsed, or NULL (none there: nothing to check;
 * a broken one gives *broken its error).  As cli/sidecar.c reads it. */
static afmt_sidecar *sidecar_open(const afmt_format *fmt, const char *path, char *side_path,
                                  size_t side_size, int *present, afmt_error *broken)
{
    static const size_t cap = AFMT_SIDECAR_MAX_BYTES + 1;
    afmt_sidecar *sc;
    char *text;
    size_t got = 0;
    ssize_t n;
    int fd;

    *present = 0;
    if (!path || !afmt_sidecar_suffix(fmt))
        return NULL;
    snprintf(side_path, side_size, "%s%s", path, afmt_sidecar_suffix(fmt));
    fd = open(side_path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return NULL;
    *present = 1;
    text = malloc(cap);
    if (!text) {
        close(fd);
        afmt_cli_fail(broken, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET, "no memory for the sidecar");
        return NULL;
    }
    while (got < cap && (n = read(fd, text + got, cap - got)) > 0)
        got += (size_t)n;
    close(fd);
    sc = afmt_sidecar_parse(fmt, text, got, broken);
    free(text);
    return sc;
}

/* A valid data file whose sidecar disagrees is invalid, the error naming
 * the sidecar's file and key (cli/sidecar.c's rule). */
static void sidecar_check(afmt_py_run *run, const char *path)
{
    char side_path[4096 + 64];
    afmt_error why;
    afmt_sidecar *sc;
    const char *base;
    size_t i;
    int present, failed = 0;

    afmt_error_clear(&why);
    sc = sidecar_open(run->fmt, path, side_path, sizeof side_path, &present, &why);
    if (!present)
        return;
    if (!sc)
        failed = 1;
    for (i = 0; !failed && i < run->views.n && i < run->views.max; i++)
        failed = afmt_sidecar_check_array(sc, &run->views.v[i], i, &why) != 0;
    if (!failed)
        failed = afmt_sidecar_check_end(sc, run->views.n, &why) != 0;
    afmt_sidecar_free(sc);
    if (!failed)
        return;
    base = strrchr(side_path, '/');
    base = base ? base + 1 : side_path;
    run->error = why;
    snprintf(run->error.field, sizeof run->error.field, "%.100s:%.50s", base, why.field);
    afmt_cli_error_set_format(&run->error, run->fmt->name);
    run->valid = 0;
}

/* Validate with the format chosen, keeping what the visitor is told. */
static void validate_with(afmt_py_run *run, const afmt_py_input *in)
{
    afmt_visitor vis;

    visitor(run, &vis);
    afmt_error_clear(&run->error);
    run->valid = run->fmt->validate(in->data, in->len, in->opt, &vis, &run->error) == 0;
    if (run->valid && run->out_of_memory) {
        run->valid = 0;
        afmt_cli_fail(&run->error, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET,
                      "no memory to keep what the file holds");
    }
    if (run->valid && (run->views.oom || run->views.n > run->views.max)) {
        run->valid = 0;
        afmt_cli_fail(&run->error, run->views.oom ? AFMT_E_NOMEM : AFMT_E_LIMIT, NULL,
                      AFMT_NO_OFFSET, "%zu arrays: more than can be kept (%zu)", run->views.n,
                      run->views.max);
    }
    if (run->valid)
        sidecar_check(run, in->path);
}

/* A mapped file whose size is no longer the one mapped gets no verdict
 * (cli/check.c's changed_meanwhile): its bytes were not the ones read. */
static void changed_meanwhile(afmt_py_run *run, const afmt_py_input *in)
{
    struct stat st;
    uint64_t now;

    if (!in->mapped || stat(in->path, &st) != 0 || (uint64_t)st.st_size == in->mapped_size)
        return;
    now = (uint64_t)st.st_size;
    run->valid = 0;
    afmt_error_clear(&run->error);
    afmt_cli_fail(&run->error, AFMT_E_IO, NULL, now < in->mapped_size ? now : AFMT_NO_OFFSET,
                  "the file changed size while it was read (%" PRIu64 " bytes, now %" PRIu64
                  "): try again", in->mapped_size, now);
    if (run->fmt)
        afmt_cli_error_set_format(&run->error, run->fmt->name);
}

void afmt_py_run_validate(afmt_py_run *run, const afmt_py_input *in)
{
    afmt_cli_kind kind;
    int closest = 0;

    run->valid = 0;
    afmt_error_clear(&run->error);
    if (!in->forced && in->len == 0) {
        afmt_cli_empty_error(in->opt, "--format", &run->error);
        return;
    }
    run->fmt = in->forced ? in->forced : afmt_format_detect(in->data, in->len, in->path);
    if (!run->fmt) {
        run->fmt = afmt_cli_detect_text(in->data, in->len, 0, in->opt);
        if (run->fmt)
            validate_with(run, in);
        else
            run->fmt = afmt_cli_undetected(in->data, in->len, 0, in->opt, "--format", &run->error,
                                           &closest);
        run->closest = closest;
    } else if (!in->forced && !run->fmt->detect(in->data, in->len) &&
               (kind = afmt_cli_identify(in->data, in->len)) != AFMT_CLI_KIND_NONE) {
        /* chosen by its extension only, and the bytes are something else */
        afmt_cli_fail(&run->error, AFMT_E_DETECT, NULL, 0, "named like %s, but it is %s",
                      run->fmt->name, afmt_cli_kind_text(kind));
        run->fmt = NULL;
    } else {
        validate_with(run, in);
    }
    changed_meanwhile(run, in);
}
