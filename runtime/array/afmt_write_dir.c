/* afmt runtime (internal): a spec's directory written (afmt_write_dir.h). */
#include "afmt_write_dir.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/afmt_bytes.h"
#include "../core/afmt_fields.h"
#include "../io/afmt_sink.h"
#include "../core/afmt_write_check.h"

const afmt_block_entry *afmt_block_of(const afmt_block_entry *tb, size_t n, const afmt_array *a)
{
    size_t i;
    if (a->dtype != AFMT_OPAQUE || a->block <= 1) return NULL;
    for (i = 0; i < n; i++)
        if (tb[i].block == a->block && tb[i].size == a->elsize && strcmp(tb[i].name, a->opaque_name) == 0) return &tb[i];
    return NULL;
}

int afmt_write_dir_nbytes(const afmt_array *a, const char *field, size_t index, uint64_t *out, afmt_error *err)
{
    uint64_t fastest;
    *out = 0;
    if (afmt_write_need_plain(a, AFMT_ROW_MAJOR, field, index, err) != 0) return -1;
    if (a->block <= 1) return afmt_payload_size(a, AFMT_ENC_PLAIN, out, err);
    /* a block type: whole blocks along the fastest dim, as afmt_dir_add counts them */
    fastest = a->rank ? a->dims[a->rank - 1] : 1;
    if (fastest % a->block != 0)
        return afmt_fail(err, AFMT_E_CONSTRAINT, NULL, field, index, AFMT_NO_OFFSET,
                         "array %zu: its last dim %" PRIu64 " is not a multiple of %" PRIu64 ", the block of %s", index,
                         fastest, a->block, a->opaque_name[0] ? a->opaque_name : "its type");
    if (afmt_checked_mul_u64(a->count / a->block, a->elsize, out))
        return afmt_fail(err, AFMT_E_OVERFLOW, NULL, field, index, AFMT_NO_OFFSET,
                         "%" PRIu64 " blocks of %" PRIu64 " bytes overflow 64 bits", a->count / a->block, a->elsize);
    return 0;
}

int afmt_write_dir_next(const afmt_array *a, const char *field, size_t index, uint64_t align, uint64_t *end,
                   uint64_t *at, afmt_error *err)
{
    uint64_t nbytes, stop;
    if (afmt_write_dir_nbytes(a, field, index, &nbytes, err) != 0) return -1;
    *at = *end;
    if (afmt_checked_add_u64(*at, nbytes, &stop) || afmt_checked_roundup_u64(stop, align ? align : 1, end))
        return afmt_fail(err, AFMT_E_OVERFLOW, NULL, field, index, AFMT_NO_OFFSET,
                         "array %zu of %" PRIu64 " bytes at data offset %" PRIu64 " ends past 2^64", index, nbytes, *at);
    return 0;
}

int afmt_write_dir_write(afmt_sink *sink, const afmt_array *arrays, size_t n, uint64_t align, afmt_endian endian,
                    const char *field, afmt_error *err)
{
    uint64_t done = 0, nbytes, next;
    size_t i;
    if (align == 0) align = 1;
    for (i = 0; i < n; i++) {
        const afmt_array *a = &arrays[i];
        if (afmt_write_dir_nbytes(a, field, i, &nbytes, err) != 0) return -1;
        if (a->block > 1 || a->dtype == AFMT_OPAQUE) {
            /* bytes kept as they are (a quantized tensor, copied byte for
             * byte): the view must hold them (afmt_sink_payload's rule) */
            if (!sink->counting && nbytes && (a->nbytes < nbytes || !a->data))
                return afmt_fail(err, AFMT_E_USAGE, NULL, field, i, AFMT_NO_OFFSET,
                                 "array %zu: its view holds %" PRIu64 " bytes, its %s blocks need %" PRIu64, i, a->nbytes,
                                 a->opaque_name[0] ? a->opaque_name : "opaque", nbytes);
            if (nbytes && afmt_sink_put(sink, a->data, nbytes, err) != 0) return -1;
        } else if (afmt_sink_payload(sink, a, endian, AFMT_ENC_PLAIN, err) != 0) {
            return -1;
        }
        if (afmt_checked_add_u64(done, nbytes, &done) || afmt_checked_roundup_u64(done, align, &next))
            return afmt_fail(err, AFMT_E_OVERFLOW, NULL, field, i, AFMT_NO_OFFSET, "the data area passes 2^64 bytes");
        if (afmt_sink_zeros(sink, next - done, err) != 0) return -1;
        done = next;
    }
    return 0;
}

const char *afmt_write_dir_prefix(const afmt_array *arrays, size_t n, const char *prefix)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (arrays[i].name[0] == '\0') return prefix;
    return NULL;
}

int afmt_write_dir_name(const afmt_array *a, size_t index, const char *prefix, char out[AFMT_NAME_MAX], afmt_error *err)
{
    if (afmt_name_whole(a, index, err) != 0) return -1;
    if (a->name[0] || !prefix) snprintf(out, AFMT_NAME_MAX, "%s", a->name);
    else snprintf(out, AFMT_NAME_MAX, "%.200s%zu", prefix, index);
    return 0;
}

typedef struct named_index {
    const char *name;
    size_t index;
} named_index;

/* By (name, index): equal names end side by side, the earlier array first. */
static int by_name(const void *x, const void *y)
{
    const named_index *a = x, *b = y;
    const int c = strcmp(a->name, b->name);
    if (c) return c;
    return (a->index > b->index) - (a->index < b->index);
}

int afmt_write_dir_unique_names(const afmt_array *arrays, size_t n, const char *prefix, const char *field, afmt_error *err)
{
    named_index *v;
    char *names;
    size_t i, dup = n, first = 0;
    if (n < 2) return 0;
    if (n > SIZE_MAX / AFMT_NAME_MAX || !(v = malloc(n * sizeof *v)))
        return afmt_fail(err, AFMT_E_NOMEM, NULL, field, AFMT_NO_INDEX, AFMT_NO_OFFSET, "no memory to compare %zu names", n);
    if (!(names = malloc(n * AFMT_NAME_MAX))) {
        free(v);
        return afmt_fail(err, AFMT_E_NOMEM, NULL, field, AFMT_NO_INDEX, AFMT_NO_OFFSET, "no memory to compare %zu names", n);
    }
    for (i = 0; i < n; i++) {
        if (afmt_write_dir_name(&arrays[i], i, prefix, names + i * AFMT_NAME_MAX, err) != 0) {
            free(v);
            free(names);
            return -1;
        }
        v[i].name = names + i * AFMT_NAME_MAX;
        v[i].index = i;
    }
    qsort(v, n, sizeof *v, by_name);
    /* the duplicate listed first: the one a validator reading in order meets first */
    for (i = 1; i < n; i++)
        if (strcmp(v[i].name, v[i - 1].name) == 0 && v[i].index < dup) {
            dup = v[i].index;
            first = v[i - 1].index;
        }
    free(v);
    if (dup < n)
        afmt_fail(err, AFMT_E_CONSTRAINT, NULL, field, dup, AFMT_NO_OFFSET,
                  "duplicate name \"%.63s\": array %zu has it too (names are distinct)", names + dup * AFMT_NAME_MAX,
                  first);
    free(names);
    return dup < n ? -1 : 0;
}
