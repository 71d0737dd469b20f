/* A spec marked "read_only" (rofmt.json) still gives a validator and a
 * reader; its writer refuses, and can_write, encoded_size and write all
 * say why with the spec's own words. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "afmt.h"
#include "rofmt.h"
#include "check.h"

static int keep(void *ctx, const afmt_array *a)
{
    *(afmt_array *)ctx = *a;
    return 0;
}

static int refuses(int rc, const afmt_error *err)
{
    return rc != 0 && err->code == AFMT_E_UNSUPPORTED &&
           strstr(err->message, "rofmt is read-only: the capture time comes from the instrument") != NULL;
}

int main(void)
{
    /* "ROF1", captured (u64), type 1 = f32, n = 2, then 1.5f and -2.0f */
    static const uint8_t file[] = {'R', 'O', 'F', '1', 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 0, 0, 0,
                                   0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0xc0};
    const float want[2] = {1.5f, -2.0f};
    float plain[2];
    uint8_t out[64];
    afmt_array got, in;
    afmt_visitor vis;
    afmt_error err;
    afmt_sink sink;
    uint64_t size = 0;
    memset(&vis, 0, sizeof vis);
    memset(&got, 0, sizeof got);
    vis.ctx = &got;
    vis.on_array = keep;
    CHECK("readonly: validates", afmt_rofmt_validate(file, sizeof file, NULL, &vis, &err) == 0);
    CHECK("readonly: view", got.dtype == AFMT_F32 && got.rank == 1 && got.dims[0] == 2);
    CHECK("readonly: values", afmt_array_to_plain(&got, AFMT_ROW_MAJOR, (uint8_t *)plain, sizeof plain, &err) == 0 &&
                                  memcmp(plain, want, sizeof want) == 0);
    CHECK("readonly: truncated rejected", afmt_rofmt_validate(file, sizeof file - 1, NULL, NULL, &err) != 0 &&
                                              err.code == AFMT_E_TRUNCATED);
    CHECK("readonly: registered", afmt_format_by_name("rofmt") == &afmt_rofmt_format);
    in = got;
    CHECK("readonly: can_write refuses, saying why", refuses(afmt_rofmt_can_write(&in, &err), &err));
    CHECK("readonly: encoded_size refuses", refuses(afmt_rofmt_encoded_size(&in, 1, NULL, &size, &err), &err));
    afmt_sink_buffer(&sink, out, sizeof out);
    CHECK("readonly: write refuses and writes nothing",
          refuses(afmt_rofmt_write(&in, 1, NULL, &sink, &err), &err) && sink.written == 0);
    CHECK_DONE();
}
