/* A format described by JSON alone (toyfmt.json: big-endian header and
 * payload) works after afmt-gen with no C change: write -> validate ->
 * read -> equal values, and crafted files are rejected. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "afmt.h"
#include "check.h"

typedef struct got { afmt_array a; int n; } got;

static int keep(void *ctx, const afmt_array *a)
{
    got *g = ctx;
    g->a = *a;
    g->n++;
    return 0;
}

int main(void)
{
    const afmt_format *fmt = afmt_format_by_name("toyfmt");
    int32_t vals[6] = {1, -2, 3, 400000, -5, 2147483647};
    afmt_array in;
    uint8_t file[256], plain[64];
    afmt_sink sink;
    afmt_error err;
    afmt_visitor vis;
    got g;
    uint64_t size = 0;
    CHECK("newformat: toyfmt is registered", fmt != NULL);
    if (!fmt) CHECK_DONE();
    afmt_array_init(&in, AFMT_I32);
    in.elsize = 4;
    in.rank = 2;
    in.dims[0] = 2;
    in.dims[1] = 3;
    in.count = 6;
    in.data = (const uint8_t *)vals;
    in.nbytes = sizeof vals;
    in.stride = 4;
    CHECK("newformat: encoded_size", fmt->encoded_size(&in, 1, NULL, &size, &err) == 0 && size == 4 + 2 + 1 + 8 + 24);
    afmt_sink_buffer(&sink, file, sizeof file);
    CHECK("newformat: write", fmt->write(&in, 1, NULL, &sink, &err) == 0 && sink.written == size);
    CHECK("newformat: header is big-endian", file[4] == 0 && file[5] == 1 && file[6] == 2 && file[10] == 2 && file[14] == 3);
    CHECK("newformat: payload is big-endian", file[15] == 0 && file[18] == 1 && file[19] == 0xff && file[22] == 0xfe);
    CHECK("newformat: detected by magic", afmt_format_detect(file, size, NULL) == fmt);
    memset(&g, 0, sizeof g);
    memset(&vis, 0, sizeof vis);
    vis.ctx = &g;
    vis.on_array = keep;
    CHECK("newformat: validates", fmt->validate(file, size, NULL, &vis, &err) == 0 && g.n == 1);
    CHECK("newformat: view shape", g.a.dtype == AFMT_I32 && g.a.rank == 2 && g.a.dims[0] == 2 && g.a.dims[1] == 3 &&
                                       g.a.endian == AFMT_BIG);
    CHECK("newformat: values decode equal",
          afmt_array_to_plain(&g.a, AFMT_ROW_MAJOR, plain, sizeof plain, &err) == 0 && memcmp(plain, vals, sizeof vals) == 0);
    CHECK("newformat: truncated payload rejected", fmt->validate(file, size - 1, NULL, NULL, &err) != 0 &&
                                                     err.code == AFMT_E_TRUNCATED && !strcmp(err.field, "data"));
    file[5] = 9;
    CHECK("newformat: unknown type code rejected", fmt->validate(file, size, NULL, NULL, &err) != 0 &&
                                                     err.code == AFMT_E_UNKNOWN_TYPE && err.offset == 4);
    file[5] = 1;
    file[6] = 9;
    CHECK("newformat: rank constraint from the spec", fmt->validate(file, size, NULL, NULL, &err) != 0 &&
                                                        err.code == AFMT_E_CONSTRAINT && !strcmp(err.field, "rank"));
    file[6] = 2;
    file[size] = 0;
    CHECK("newformat: trailing byte rejected (strict)", fmt->validate(file, size + 1, NULL, NULL, &err) != 0 &&
                                                          err.code == AFMT_E_TRAILING && err.offset == size);
    in.dtype = AFMT_BOOL;
    CHECK("newformat: writer refuses a dtype the table lacks", fmt->can_write(&in, &err) != 0 && err.code == AFMT_E_TYPE);
    CHECK_DONE();
}
