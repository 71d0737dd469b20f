/* afmt CLI: afmt convert's input (convert.h): IN loaded, validated, and
 * what its validator gives collected (arrays, trailer, metadata). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "convert.h"
#include "fail.h"

static int collect_array(void *ctx, const afmt_array *a)
{
    /* a transient view (a deflated archive member's) is copied by it */
    return afmt_views_add(&((afmt_cli_convert_input *)ctx)->views, a);
}

static void collect_trailer(void *ctx, const uint8_t *data, uint64_t len,
                            uint64_t offset)
{
    afmt_cli_convert_input *c = ctx;

    (void)offset;
    c->views.trailer = data;
    c->views.trailer_len = len;
}

/* The file's metadata (safetensors' __metadata__), written back by a
 * target that has metadata.  Bounded by the header it came from. */
static void collect_metadata(void *ctx, const uint8_t *json, uint64_t len, uint64_t offset)
{
    afmt_cli_convert_input *c = ctx;

    (void)offset;
    free(c->metadata);
    c->metadata = NULL;
    c->metadata_len = 0;
    if (len >= SIZE_MAX || !(c->metadata = malloc((size_t)len ? (size_t)len : 1))) {
        c->oom = 1;
        return;
    }
    memcpy(c->metadata, json, (size_t)len);
    c->metadata_len = len;
}

static void collect_warning(void *ctx, const afmt_error *warning)
{
    afmt_cli_print_warning(((afmt_cli_convert_input *)ctx)->path, warning);
}

/* Does the target hold as many arrays as IN has?  0, or an exit status
 * said. */
static int check_count(const afmt_cli_convert_input *c, const afmt_cli_convert_args *a)
{
    if (a->target->multi)
        return 0;
    if (c->views.n > 1) {
        fprintf(stderr, "afmt convert: %s holds %zu arrays, but %s holds one "
                        "array per file (choose a format that holds several: see "
                        "'afmt formats')\n", a->in, c->views.n, a->target->name);
        return AFMT_EXIT_INVALID;
    }
    if (c->views.n == 0) {
        fprintf(stderr, "afmt convert: %s holds no array; %s needs one\n", a->in,
                a->target->name);
        return AFMT_EXIT_INVALID;
    }
    return 0;
}

/* "x.npz:emb.npy": the member's one array, unnamed in its .npy, takes
 * the member's name without ".npy" ("emb"), as np.load's keys name it,
 * so that a conversion keeps it. */
static void name_from_member(afmt_cli_convert_input *c)
{
    const char *m = c->l.member;
    size_t n;

    if (!m || c->views.n != 1 || c->views.v[0].name[0])
        return;
    n = strlen(m);
    if (n > 4 && strcmp(m + n - 4, ".npy") == 0)
        n -= 4;
    if (n == 0 || n >= sizeof c->views.v[0].name)
        return; /* nothing to name it by, or more than a name holds */
    memcpy(c->views.v[0].name, m, n);
    c->views.v[0].name[n] = '\0';
    c->views.v[0].name_len = 0;
}

/* Views that share a payload (PyTorch's tied weights, a tensor and its
 * transpose): a strided view's payload ends where its storage ends, so
 * views of one storage have one end (a contiguous view of the whole
 * storage, which the reader may give as a plain view, too; of two views
 * at least one is strided, so that empty plain arrays at one offset are
 * not taken for a pair).  Every target writes each array as its own
 * copy, which the conversion says, naming the first few pairs.
 * Quadratic in the views, bounded by the first 4096. */
static void note_shared(const afmt_cli_convert_input *c, const afmt_cli_convert_args *a)
{
    size_t i, j, n = c->views.n < 4096 ? c->views.n : 4096, said = 0, pairs = 0;
    for (i = 0; i < n; i++) {
        const afmt_array *x = &c->views.v[i];
        if (!x->data || !x->nbytes) continue;
        for (j = i + 1; j < n; j++) {
            const afmt_array *y = &c->views.v[j];
            if (!(x->strided || y->strided) || !y->data || y->data + y->nbytes != x->data + x->nbytes) continue;
            if (pairs++ < 5)
                fprintf(stderr, "afmt convert: note: %s: '%s' and '%s' share one storage (tied weights or views of one "
                        "tensor): %s gets each as its own copy\n", a->in, x->name, y->name, a->target->name);
            said = 1;
            break;
        }
    }
    if (said && pairs > 5)
        fprintf(stderr, "afmt convert: note: %s: %zu more arrays share a storage with another\n", a->in, pairs - 5);
}

int afmt_cli_convert_read(afmt_cli_convert_input *c, const afmt_cli_convert_args *a)
{
    afmt_visitor vis;
    int rc;

    memset(c, 0, sizeof *c);
    afmt_views_init(&c->views, SIZE_MAX); /* every array: the target takes them all */
    c->path = a->in;
    rc = afmt_cli_load(&c->l, "afmt convert", a->in, a->from, "--from");
    if (rc != 0)
        return rc;
    c->loaded = 1;
    c->l.interp = a->spec;
    afmt_cli_visitor_init(&vis, c);
    vis.on_array = collect_array;
    vis.on_warning = collect_warning;
    vis.on_trailer = collect_trailer;
    vis.on_metadata = collect_metadata;
    vis.on_kv = afmt_cli_convert_collect_kv;
    if ((rc = afmt_cli_loaded_validate(&c->l, &a->opt, &vis)) != 0 || c->oom || c->views.oom) {
        if (c->oom || c->views.oom)
            fprintf(stderr, "afmt convert: out of memory\n");
        return c->oom || c->views.oom ? AFMT_EXIT_ERROR : rc;
    }
    rc = check_count(c, a);
    if (rc == 0)
        name_from_member(c);
    if (rc == 0)
        note_shared(c, a);
    return rc;
}

void afmt_cli_convert_input_free(afmt_cli_convert_input *c)
{
    afmt_views_free(&c->views);
    afmt_cli_convert_kv_free(c);
    free(c->metadata);
    if (c->loaded)
        afmt_cli_loaded_close(&c->l);
    memset(c, 0, sizeof *c);
}
