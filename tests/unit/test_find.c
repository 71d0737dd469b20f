/* afmt_find_array and the void * destinations (afmt.h): a safetensors
 * file of three tensors written in memory, each found by name and read
 * into a buffer of its element type with no cast (float *, int64_t *,
 * through afmt_array_to_plain, afmt_array_to_plain_as,
 * afmt_convert_elements and afmt_file_read_array); a table of refusals
 * (no such name, a prefix of a name, an invalid file, no format), each
 * with its code, field and offset. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "afmt.h"
#include "safetensors.h"
#include "check.h"

static float weight[6] = { 1, 2, 3, 4, 5, 6 };
static float bias[3] = { 0.5f, -1, 2 };
static int64_t steps[2] = { 7, -9 };

static void describe(afmt_array *a, afmt_dtype dtype, const char *name, uint32_t rank, const uint64_t *dims,
                     const void *data, uint64_t nbytes)
{
    uint32_t k;
    afmt_array_init(a, dtype);
    snprintf(a->name, sizeof a->name, "%s", name);
    a->rank = rank;
    a->count = 1;
    for (k = 0; k < rank; k++) {
        a->dims[k] = dims[k];
        a->count *= dims[k];
    }
    a->data = data;
    a->nbytes = nbytes;
}

/* The three tensors as a safetensors file in *buf (malloc'd). */
static int make_file(uint8_t **buf, uint64_t *len)
{
    static const uint64_t d_w[2] = { 2, 3 }, d_b[1] = { 3 }, d_s[1] = { 2 };
    afmt_array a[3];
    afmt_sink sink;
    afmt_error err;

    describe(&a[0], AFMT_F32, "weight", 2, d_w, weight, sizeof weight);
    describe(&a[1], AFMT_F32, "bias", 1, d_b, bias, sizeof bias);
    describe(&a[2], AFMT_I64, "steps", 1, d_s, steps, sizeof steps);
    if (afmt_safetensors_encoded_size(a, 3, NULL, len, &err) != 0 || !(*buf = malloc((size_t)*len)))
        return -1;
    afmt_sink_buffer(&sink, *buf, *len); /* void *: no cast */
    return afmt_safetensors_write(a, 3, NULL, &sink, &err);
}

typedef struct refusal {
    const char *test;
    const char *name;
    int corrupt;        /* cut the file to 8 bytes */
    int no_format;
    afmt_code code;
    const char *field;
    uint64_t offset;
    const char *words;
} refusal;

static const refusal refusals[] = {
    { "find: no such name", "beta", 0, 0, AFMT_E_USAGE, "name", AFMT_NO_OFFSET,
      "no array named \"beta\" among the 3 arrays of this safetensors file" },
    { "find: a prefix of a name is not it", "bia", 0, 0, AFMT_E_USAGE, "name", AFMT_NO_OFFSET, "no array named \"bia\"" },
    { "find: the empty name", "", 0, 0, AFMT_E_USAGE, "name", AFMT_NO_OFFSET, "no array named \"\"" },
    { "find: an invalid file gives its own error", "bias", 1, 0, AFMT_E_TRUNCATED, "header", 8, "" },
    { "find: no format", "bias", 0, 1, AFMT_E_USAGE, "name", AFMT_NO_OFFSET, "a format, a name" },
};

int main(void)
{
    uint8_t *buf = NULL;
    uint64_t len = 0, size = 0;
    afmt_array view;
    afmt_error err;
    float got_bias[3], got_weight[6], as_float[2];
    double wide[3];
    int64_t got_steps[2];
    size_t i;

    CHECK("write the file", make_file(&buf, &len) == 0);
    CHECK("find bias", afmt_find_array(buf, len, &afmt_safetensors_format, "bias", NULL, &view, &err) == 0 &&
                           strcmp(view.name, "bias") == 0 && view.rank == 1 && view.dims[0] == 3 &&
                           view.dtype == AFMT_F32);
    CHECK("bias into a float[3], no cast",
          afmt_array_plain_size(&view, &size, &err) == 0 && size == sizeof got_bias &&
          afmt_array_to_plain(&view, AFMT_ROW_MAJOR, got_bias, sizeof got_bias, &err) == 0 &&
          memcmp(got_bias, bias, sizeof bias) == 0);
    CHECK("bias cast into a double[3], no cast",
          afmt_array_to_plain_as(&view, AFMT_ROW_MAJOR, AFMT_F64, 0, wide, sizeof wide, &err) == 0 &&
          wide[0] == 0.5 && wide[1] == -1 && wide[2] == 2);
    CHECK("find weight", afmt_find_array(buf, len, &afmt_safetensors_format, "weight", NULL, &view, &err) == 0 &&
                             view.rank == 2 && view.dims[0] == 2 && view.dims[1] == 3);
    CHECK("weight into a float[6]", afmt_array_to_plain(&view, AFMT_ROW_MAJOR, got_weight, sizeof got_weight, &err) == 0 &&
                                        memcmp(got_weight, weight, sizeof weight) == 0);
    CHECK("find steps (i64)", afmt_find_array(buf, len, &afmt_safetensors_format, "steps", NULL, &view, &err) == 0 &&
                                  view.dtype == AFMT_I64 &&
                                  afmt_array_to_plain(&view, AFMT_ROW_MAJOR, got_steps, sizeof got_steps, &err) == 0 &&
                                  got_steps[0] == 7 && got_steps[1] == -9);
    CHECK("convert_elements int64_t * to float *",
          afmt_convert_elements(AFMT_I64, got_steps, AFMT_F32, as_float, 2, 0, &err) == 0 && as_float[0] == 7.0f &&
          as_float[1] == -9.0f);
    {
        /* the same through a file: afmt_file_read_array into a float[3] */
        char path[] = "/tmp/afmt_test_find_XXXXXX";
        int fd = mkstemp(path);
        afmt_file f;
        int ok = fd >= 0 && write(fd, buf, (size_t)len) == (ssize_t)len;
        if (fd >= 0)
            close(fd);
        memset(got_bias, 0, sizeof got_bias);
        ok = ok && afmt_file_open(&f, path, &err) == 0;
        CHECK("file: find bias and read it into a float[3]",
              ok && afmt_find_array(f.data, f.len, &afmt_safetensors_format, "bias", NULL, &view, &err) == 0 &&
                  afmt_file_read_array(&f, &view, AFMT_ROW_MAJOR, got_bias, sizeof got_bias, &err) == 0 &&
                  memcmp(got_bias, bias, sizeof bias) == 0);
        if (ok)
            afmt_file_close(&f);
        unlink(path);
    }
    for (i = 0; i < sizeof refusals / sizeof *refusals; i++) {
        const refusal *r = &refusals[i];
        afmt_array untouched;
        int rc;
        memset(&untouched, 0x5a, sizeof untouched);
        view = untouched;
        afmt_error_clear(&err);
        rc = afmt_find_array(buf, r->corrupt ? 8 : len, r->no_format ? NULL : &afmt_safetensors_format, r->name,
                             NULL, &view, &err);
        if (rc == -1 && err.code == r->code && strcmp(err.field, r->field) == 0 && err.offset == r->offset &&
            strstr(err.message, r->words) && memcmp(&view, &untouched, sizeof view) == 0) {
            printf("PASS %s\n", r->test);
        } else {
            printf("FAIL %s: rc %d code %s field '%s' offset %llu: %s\n", r->test, rc, afmt_code_name(err.code),
                   err.field, (unsigned long long)err.offset, err.message);
            check_failures++;
        }
    }
    free(buf);
    CHECK_DONE();
}
