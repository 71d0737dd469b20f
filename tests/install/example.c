/* Built by tests/install/run_install.sh against an installed afmt through
 * pkg-config, once linked dynamically and once statically.  For each FILE:
 * find its format, validate it, decode every array to plain memory, write
 * the arrays again with the same format, validate that output and compare
 * the values.  Prints one line per file; exit 0 if every file went through.
 * It includes a generated header (rawarray.h) beside afmt.h, both by their
 * namespaced names, to show that the shipped formats' headers are
 * installed too and reached as <afmt/...> through pkg-config's Cflags. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <afmt/afmt.h>
#include <afmt/rawarray.h>
#include <afmt/npy.h>

#define MAX_ARRAYS 16

typedef struct got {
    afmt_array a[MAX_ARRAYS];
    size_t n;
} got;

static int keep(void *ctx, const afmt_array *a)
{
    got *g = ctx;
    if (g->n == MAX_ARRAYS) return 1;
    g->a[g->n++] = *a;
    return 0;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    long n = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    uint8_t *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!buf || fseek(f, 0, SEEK_SET) != 0 || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (f) fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Decode every array of g to plain memory in `order`: plain[i], views[i]. */
static int decode(const got *g, afmt_order order, uint8_t **plain, uint64_t *sizes, afmt_array *views, afmt_error *err)
{
    size_t i;
    for (i = 0; i < g->n; i++) {
        if (afmt_array_plain_size(&g->a[i], &sizes[i], err) != 0) return -1;
        plain[i] = malloc(sizes[i] ? (size_t)sizes[i] : 1);
        if (!plain[i]) return -1;
        if (afmt_array_to_plain(&g->a[i], order, plain[i], sizes[i], err) != 0) return -1;
        afmt_array_plain_view(&g->a[i], order, plain[i], &views[i]);
    }
    return 0;
}

static int roundtrip(const char *path)
{
    size_t len = 0, i;
    uint8_t *buf = slurp(path, &len), *out = NULL;
    uint8_t *plain[MAX_ARRAYS] = {0}, *again[MAX_ARRAYS] = {0};
    uint64_t sizes[MAX_ARRAYS], sizes2[MAX_ARRAYS], size = 0;
    afmt_array views[MAX_ARRAYS], views2[MAX_ARRAYS];
    const afmt_format *fmt = buf ? afmt_format_detect(buf, len, path) : NULL;
    afmt_visitor vis = {0};
    afmt_error err;
    afmt_sink sink;
    got g1 = {{{0}}, 0}, g2 = {{{0}}, 0};
    char msg[512];
    const char *step = "read";
    int rc = 1;

    afmt_error_clear(&err);
    vis.on_array = keep;
    if (!buf) goto done;
    step = "detect";
    if (!fmt) goto done;
    step = "validate";
    vis.ctx = &g1;
    if (fmt->validate(buf, len, NULL, &vis, &err) != 0 || g1.n == 0) goto done;
    if (fmt->can_write(&g1.a[0], &err) != 0 && err.code == AFMT_E_UNSUPPORTED && strstr(err.message, " is read-only: ")) {
        /* a read-only format ("read_only" in its spec) is validated and read, not written */
        printf("%s: %s: %zu array(s) validated and read (the format is read-only)\n", path, fmt->name, g1.n);
        rc = 0;
        goto cleanup;
    }
    step = "decode";
    if (decode(&g1, fmt->order, plain, sizes, views, &err) != 0) goto done;
    step = "write";
    if (fmt->encoded_size(views, g1.n, NULL, &size, &err) != 0 || !(out = malloc(size ? (size_t)size : 1)))
        goto done;
    afmt_sink_buffer(&sink, out, size);
    if (fmt->write(views, g1.n, NULL, &sink, &err) != 0 || sink.written != size) goto done;
    step = "validate the written file";
    vis.ctx = &g2;
    if (fmt->validate(out, size, NULL, &vis, &err) != 0 || g2.n != g1.n) goto done;
    step = "compare";
    if (decode(&g2, fmt->order, again, sizes2, views2, &err) != 0) goto done;
    for (i = 0; i < g1.n; i++)
        if (sizes[i] != sizes2[i] || memcmp(plain[i], again[i], (size_t)sizes[i]) != 0) goto done;
    rc = 0;
done:
    if (rc == 0) {
        printf("%s: %s: %zu array(s) validated, read, written and read back equal\n", path, fmt->name, g1.n);
    } else {
        afmt_error_describe(&err, msg, sizeof msg);
        printf("%s: %s: failed at %s: %s\n", path, fmt ? fmt->name : "?", step, msg);
    }
cleanup:
    for (i = 0; i < MAX_ARRAYS; i++) {
        free(plain[i]);
        free(again[i]);
    }
    free(out);
    free(buf);
    return rc;
}

int main(int argc, char **argv)
{
    int i, failed = 0;
    /* a generated format's own entry points are there too */
    if (afmt_rawarray_format.validate != afmt_rawarray_validate) return 2;
    for (i = 1; i < argc; i++) failed |= roundtrip(argv[i]);
    return failed;
}
