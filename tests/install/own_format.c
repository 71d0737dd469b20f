/* Built by tests/install/run_install.sh with the code the installed
 * afmt-gen generates for tests/specs/newformat/toyfmt.json, linked against
 * the installed libafmt.so: a format generated out of tree reaches what
 * generated code calls (the AFMT_GEN_API functions).  Writes a 2x3 i32
 * array into memory, validates it and checks the values read back. */
#include <stdio.h>
#include <string.h>
#include "toyfmt.h"

static int keep(void *ctx, const afmt_array *a)
{
    *(afmt_array *)ctx = *a;
    return 0;
}

int main(void)
{
    const int32_t vals[6] = {1, -2, 3, 400000, -5, 2147483647};
    int32_t back[6];
    uint8_t file[256];
    afmt_array in, got;
    afmt_sink sink;
    afmt_visitor vis = {0};
    afmt_error err;
    char msg[512];

    afmt_array_init(&in, AFMT_I32);
    in.rank = 2; in.dims[0] = 2; in.dims[1] = 3; in.count = 6;
    in.data = (const uint8_t *)vals; in.nbytes = sizeof vals;
    afmt_sink_buffer(&sink, file, sizeof file);
    vis.ctx = &got;
    vis.on_array = keep;
    if (afmt_toyfmt_write(&in, 1, NULL, &sink, &err) != 0 ||
        afmt_toyfmt_validate(file, sink.written, NULL, &vis, &err) != 0 ||
        afmt_array_to_plain(&got, AFMT_ROW_MAJOR, (uint8_t *)back, sizeof back, &err) != 0) {
        afmt_error_describe(&err, msg, sizeof msg);
        fprintf(stderr, "toyfmt: %s\n", msg);
        return 1;
    }
    if (memcmp(back, vals, sizeof vals) != 0) {
        fprintf(stderr, "toyfmt: values differ after write and read\n");
        return 1;
    }
    printf("toyfmt: %llu bytes written, validated, read back\n", (unsigned long long)sink.written);
    return 0;
}
