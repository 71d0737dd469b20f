/* A program with a format of its own: grid.json (docs/TUTORIAL.md's grid)
 * is compiled into grid.c and grid.h at build time, by afmt_generate
 * (CMakeLists.txt) or by meson.build's custom_target; this writes a 2x3
 * f32 grid with the generated writer, validates it and reads it back.
 *   grid_roundtrip [OUT.grd]: exit 0 when the values come back. */
#include <stdio.h>
#include <string.h>

#include "grid.h"

typedef struct found {
    afmt_array view;
    int n;
} found;

static int keep(void *ctx, const afmt_array *a)
{
    found *f = ctx;
    if (f->n++ == 0)
        f->view = *a;
    return 0;
}

int main(int argc, char **argv)
{
    static const float values[6] = { 1, 2, 3, 4, 5, 6.5f };
    static uint8_t file[256];
    float back[6];
    afmt_array a;
    afmt_sink sink;
    afmt_visitor vis;
    afmt_error err;
    found f;
    char why[512];

    afmt_array_init(&a, AFMT_F32);
    a.rank = 2;
    a.dims[0] = 2;
    a.dims[1] = 3;
    a.count = 6;
    a.nbytes = sizeof values;
    a.data = (const uint8_t *)values;
    afmt_sink_buffer(&sink, file, sizeof file);
    memset(&vis, 0, sizeof vis);
    memset(&f, 0, sizeof f);
    vis.ctx = &f;
    vis.on_array = keep;
    if (afmt_grid_write(&a, 1, NULL, &sink, &err) != 0 ||
        afmt_grid_validate(file, sink.written, NULL, &vis, &err) != 0 || f.n != 1 ||
        afmt_array_to_plain(&f.view, AFMT_ROW_MAJOR, back, sizeof back, &err) != 0) {
        afmt_error_describe(&err, why, sizeof why);
        fprintf(stderr, "grid_roundtrip: %s\n", why);
        return 1;
    }
    if (memcmp(back, values, sizeof values) != 0) {
        fprintf(stderr, "grid_roundtrip: the values read back differ\n");
        return 1;
    }
    if (argc > 1) {
        FILE *out = fopen(argv[1], "wb");
        if (!out || fwrite(file, 1, (size_t)sink.written, out) != sink.written || fclose(out) != 0)
            return 2;
    }
    printf("grid: wrote and read back f32[2,3] (%llu bytes)\n", (unsigned long long)sink.written);
    return 0;
}
