/* afmt runtime: a model stored as several files (afmt.h, "Model sets"):
 * making one, its file names, and what it holds.  What shards hold and the
 * faults of the set: afmt_model_check.c; reading a safetensors index:
 * afmt_model_index.c. */
#include "afmt_model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/afmt_bytes.h"
#include "../common/afmt_error.h"

/* split.count is a u16 in gguf-split's files. */
#define SPLIT_MAX_COUNT 65535u

int afmt_model_names_add(afmt_model *m, const void *p, uint64_t n, uint64_t *at)
{
    uint64_t need;

    if (afmt_checked_add_u64(m->names_len, n, &need) || afmt_checked_add_u64(need, 1, &need) || need > SIZE_MAX)
        return -1;
    if (need > m->names_cap) {
        uint64_t cap = m->names_cap ? m->names_cap : 256;
        char *grown;
        while (cap < need)
            cap = cap > (uint64_t)SIZE_MAX / 2 ? need : cap * 2;
        if (!(grown = realloc(m->names, (size_t)cap)))
            return -1;
        m->names = grown;
        m->names_cap = cap;
    }
    if (n && p) /* p NULL: room only, which the caller fills */
        memcpy(m->names + m->names_len, p, (size_t)n);
    m->names[m->names_len + n] = '\0';
    *at = m->names_len;
    m->names_len = need;
    return 0;
}

/* (afmt_model.h) */
int afmt_model_tensors_reserve(afmt_model *m)
{
    afmt_model_tensor *grown;
    size_t cap;

    if (m->ntensors < m->tensors_cap)
        return 0;
    cap = m->tensors_cap ? m->tensors_cap * 2 : 64;
    if (cap < m->tensors_cap || cap > SIZE_MAX / sizeof *grown)
        return -1;
    if (!(grown = realloc(m->tensors, cap * sizeof *grown)))
        return -1;
    m->tensors = grown;
    m->tensors_cap = cap;
    return 0;
}

/* Byte-wise order of two names of known lengths. */
static int name_cmp(const char *a, uint64_t alen, const char *b, uint64_t blen)
{
    uint64_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, (size_t)n) : 0;
    if (c)
        return c;
    return alen < blen ? -1 : alen > blen;
}

static int by_name_then_place(const void *pa, const void *pb)
{
    const afmt_model_tensor *a = pa, *b = pb;
    int c = name_cmp(a->name, a->name_len, b->name, b->name_len);
    if (c)
        return c;
    if (a->found != b->found)
        return a->found < b->found ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

void afmt_model_sort_tensors(afmt_model *m)
{
    size_t i;

    for (i = 0; i < m->ntensors; i++)
        m->tensors[i].name = m->names + m->tensors[i].name_at;
    if (m->ntensors > 1)
        qsort(m->tensors, m->ntensors, sizeof *m->tensors, by_name_then_place);
}

const char *afmt_model_shard_label(const afmt_model *m, size_t s, char *buf, size_t cap)
{
    if (m->kind == AFMT_MODEL_KIND_INDEX && s < m->nshards)
        return m->names + m->shards[s].name_at;
    snprintf(buf, cap, "split %" PRIu64 " of %" PRIu64, (uint64_t)s + 1, (uint64_t)m->nshards);
    return buf;
}

int afmt_model_fault(afmt_error *err)
{
    afmt_error_set_format(err, "model");
    return -1;
}

int afmt_model_split_open(afmt_model **out, uint64_t count, afmt_error *err)
{
    afmt_model *m;

    *out = NULL;
    if (count < 1 || count > SPLIT_MAX_COUNT)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "count", AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "a split has 1 to %u files, not %" PRIu64, SPLIT_MAX_COUNT, count);
    if (!(m = calloc(1, sizeof *m)) || !(m->shards = calloc((size_t)count, sizeof *m->shards))) {
        free(m);
        return afmt_fail(err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "out of memory for a split of %" PRIu64 " files", count);
    }
    m->kind = AFMT_MODEL_KIND_SPLIT;
    m->nshards = (size_t)count;
    m->split_total_shard = AFMT_MODEL_NONE;
    *out = m;
    return 0;
}

/* n decimal digits at p (at least 5, as gguf-split's %05d writes them):
 * 1 with *v, else 0. */
static int split_digits(const char *p, size_t n, uint64_t *v)
{
    size_t i;

    if (n < 5 || n > 9)
        return 0;
    *v = 0;
    for (i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return 0;
        *v = *v * 10 + (uint64_t)(p[i] - '0');
    }
    return 1;
}

int afmt_model_split_name(const char *name, size_t *prefix_len, uint64_t *number, uint64_t *count)
{
    static const char ext[] = ".gguf", of[] = "-of-";
    size_t n = name ? strlen(name) : 0, end, count_at, of_at, dash;

    if (n < sizeof ext - 1 || strcmp(name + n - (sizeof ext - 1), ext) != 0)
        return 0;
    end = n - (sizeof ext - 1);
    for (count_at = end; count_at > 0 && name[count_at - 1] >= '0' && name[count_at - 1] <= '9'; count_at--)
        ;
    if (count_at < sizeof of - 1 || memcmp(name + count_at - (sizeof of - 1), of, sizeof of - 1) != 0)
        return 0;
    of_at = count_at - (sizeof of - 1);
    for (dash = of_at; dash > 0 && name[dash - 1] >= '0' && name[dash - 1] <= '9'; dash--)
        ;
    if (dash == 0 || name[dash - 1] != '-' || !split_digits(name + dash, of_at - dash, number) ||
        !split_digits(name + count_at, end - count_at, count))
        return 0;
    if (*number < 1 || *number > *count || *count > SPLIT_MAX_COUNT)
        return 0;
    *prefix_len = dash - 1;
    return 1;
}

void afmt_model_free(afmt_model *m)
{
    if (!m)
        return;
    free(m->tensors);
    free(m->shards);
    free(m->names);
    free(m);
}

size_t afmt_model_shards(const afmt_model *m)
{
    return m ? m->nshards : 0;
}

const char *afmt_model_shard_name(const afmt_model *m, size_t s)
{
    if (!m || m->kind != AFMT_MODEL_KIND_INDEX || s >= m->nshards)
        return NULL;
    return m->names + m->shards[s].name_at;
}

uint64_t afmt_model_shard_offset(const afmt_model *m, size_t s)
{
    if (!m || m->kind != AFMT_MODEL_KIND_INDEX || s >= m->nshards)
        return AFMT_NO_OFFSET;
    return m->shards[s].at;
}

uint64_t afmt_model_tensors(const afmt_model *m)
{
    return m ? (uint64_t)m->ntensors : 0;
}

uint64_t afmt_model_found_bytes(const afmt_model *m)
{
    return m ? m->found_bytes : 0;
}
