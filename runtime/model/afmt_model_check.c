/* afmt runtime: what the shards of a model set hold, and the faults of
 * the set as a whole (afmt.h, "Model sets"; the state: afmt_model.h). */
#include "afmt_model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/afmt_bytes.h"
#include "../common/afmt_error.h"

/* Most bytes of a tensor name shown in a field: the field must still
 * hold its brackets, and a message the rest of what it says. */
#define NAME_SHOWN 120

/* tensor["NAME"], the name cut to NAME_SHOWN bytes. */
static void tensor_field(char *out, size_t cap, const char *kind, const char *name, uint64_t len)
{
    int shown = len > NAME_SHOWN ? NAME_SHOWN : (int)len;
    snprintf(out, cap, "%s[\"%.*s%s\"]", kind, shown, name, len > NAME_SHOWN ? "..." : "");
}

/* The tensor called name[0..len) of an index, or NULL: binary search of
 * the tensors, which the index sorted by name. */
static afmt_model_tensor *index_find(afmt_model *m, const char *name, uint64_t len)
{
    size_t lo = 0, hi = m->ntensors;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        afmt_model_tensor *t = &m->tensors[mid];
        uint64_t n = t->name_len < len ? t->name_len : len;
        int c = n ? memcmp(t->name, name, (size_t)n) : 0;
        if (!c)
            c = t->name_len < len ? -1 : t->name_len > len;
        if (c == 0)
            return t;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* A tensor that a shard of an index holds: where the index puts it. */
static int add_indexed(afmt_model *m, size_t s, const afmt_array *a, uint64_t len, afmt_error *err)
{
    afmt_model_tensor *t = index_find(m, a->name, len);
    char field[AFMT_FIELD_MAX], other[32];

    tensor_field(field, sizeof field, "tensor", a->name, len);
    m->shards[s].found++;
    if (!t) {
        afmt_fail(err, AFMT_E_CONSTRAINT, NULL, field, AFMT_NO_INDEX, a->offset,
                  "in no entry of the index's weight_map (a shard holds only what the index lists)");
        return afmt_model_fault(err);
    }
    if (t->found != AFMT_MODEL_NONE) {
        afmt_fail(err, AFMT_E_CONSTRAINT, NULL, field, AFMT_NO_INDEX, a->offset,
                  "also in %s: a tensor is in one shard only",
                  afmt_model_shard_label(m, t->found, other, sizeof other));
        return afmt_model_fault(err);
    }
    t->found = s;
    t->nbytes = a->nbytes;
    if (afmt_checked_add_u64(m->found_bytes, a->nbytes, &m->found_bytes))
        m->found_bytes_overflow = 1;
    if (t->listed != s) {
        afmt_fail(err, AFMT_E_CONSTRAINT, NULL, field, AFMT_NO_INDEX, a->offset,
                  "the index puts it in %s (its weight_map entry at offset %" PRIu64 " of the index)",
                  afmt_model_shard_label(m, t->listed, other, sizeof other), t->at);
        return afmt_model_fault(err);
    }
    return 0;
}

/* A tensor of a split file: kept, to look for its name in the others. */
static int add_split(afmt_model *m, size_t s, const afmt_array *a, uint64_t len, afmt_error *err)
{
    afmt_model_tensor *t;
    uint64_t at;

    if (m->sorted)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "afmt_model_add_array after afmt_model_next_fault");
    if (afmt_model_tensors_reserve(m) != 0 || afmt_model_names_add(m, a->name, len, &at) != 0)
        return afmt_fail(err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "out of memory for the names of %" PRIu64 " tensors", (uint64_t)m->ntensors + 1);
    t = &m->tensors[m->ntensors++];
    memset(t, 0, sizeof *t);
    t->name_at = at;
    t->name_len = len;
    t->at = a->offset;
    t->nbytes = a->nbytes;
    t->listed = s;
    t->found = s;
    m->shards[s].found++;
    if (afmt_checked_add_u64(m->found_bytes, a->nbytes, &m->found_bytes))
        m->found_bytes_overflow = 1;
    return 0;
}

int afmt_model_add_array(afmt_model *m, size_t s, const afmt_array *a, afmt_error *err)
{
    uint64_t len;
    char field[AFMT_FIELD_MAX];

    if (!m || !a || s >= m->nshards)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "afmt_model_add_array: no model, no array or shard %" PRIu64 " of %" PRIu64,
                         (uint64_t)s, (uint64_t)(m ? m->nshards : 0));
    len = strlen(a->name);
    if (a->name_len > len) {
        /* only the first bytes are in the view: any comparison would lie */
        tensor_field(field, sizeof field, "tensor", a->name, len);
        afmt_fail(err, AFMT_E_LIMIT, NULL, field, AFMT_NO_INDEX, a->offset,
                  "a name of %" PRIu64 " bytes: a view holds %u, too few to find it in the set",
                  a->name_len, (unsigned)(AFMT_NAME_MAX - 1));
        return afmt_model_fault(err);
    }
    if (m->kind == AFMT_MODEL_KIND_INDEX)
        return add_indexed(m, s, a, len, err);
    return add_split(m, s, a, len, err);
}

/* A split file's key-value as a count: 1 with *v, 0 when it is no
 * non-negative integer. */
static int kv_count(const afmt_kv *kv, uint64_t *v)
{
    if (kv->value.kind == AFMT_VALUE_UINT) {
        *v = kv->value.u;
        return 1;
    }
    if (kv->value.kind == AFMT_VALUE_INT && kv->value.i >= 0) {
        *v = (uint64_t)kv->value.i;
        return 1;
    }
    return 0;
}

static int key_is(const afmt_kv *kv, const char *name)
{
    size_t n = strlen(name);
    return kv->key_len == n && memcmp(kv->key, name, n) == 0;
}

/* split.tensors.count: every file says the same as the first that said it. */
static int split_total(afmt_model *m, size_t s, uint64_t v, uint64_t offset, afmt_error *err)
{
    char other[32];

    if (m->split_total_shard == AFMT_MODEL_NONE) {
        m->split_total_shard = s;
        m->split_total = v;
        m->split_total_at = offset;
        return 0;
    }
    if (v == m->split_total)
        return 0;
    afmt_fail(err, AFMT_E_CONSTRAINT, NULL, "split.tensors.count", AFMT_NO_INDEX, offset,
              "expected %" PRIu64 " (as %s says at offset %" PRIu64 "), found %" PRIu64, m->split_total,
              afmt_model_shard_label(m, m->split_total_shard, other, sizeof other), m->split_total_at, v);
    return afmt_model_fault(err);
}

int afmt_model_add_kv(afmt_model *m, size_t s, const afmt_kv *kv, uint64_t offset, afmt_error *err)
{
    static const char *const keys[3] = { "split.no", "split.count", "split.tensors.count" };
    afmt_model_split_key *slot[3];
    uint64_t v, want[3];
    int k;

    if (!m || !kv || s >= m->nshards)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "afmt_model_add_kv: no model, no key-value or shard %" PRIu64, (uint64_t)s);
    if (m->kind != AFMT_MODEL_KIND_SPLIT)
        return 0;
    slot[0] = &m->shards[s].no;
    slot[1] = &m->shards[s].count;
    slot[2] = &m->shards[s].total;
    want[0] = (uint64_t)s;
    want[1] = (uint64_t)m->nshards;
    want[2] = 0;
    for (k = 0; k < 3 && !key_is(kv, keys[k]); k++)
        ;
    if (k == 3)
        return 0;
    if (!kv_count(kv, &v)) {
        afmt_fail(err, AFMT_E_CONSTRAINT, NULL, keys[k], AFMT_NO_INDEX, offset,
                  "a count is a non-negative integer (gguf-split writes a u16 or i32)");
        return afmt_model_fault(err);
    }
    slot[k]->seen = 1;
    slot[k]->value = v;
    slot[k]->at = offset;
    if (k == 2)
        return split_total(m, s, v, offset, err);
    if (v == want[k])
        return 0;
    if (k == 0)
        afmt_fail(err, AFMT_E_CONSTRAINT, NULL, keys[k], AFMT_NO_INDEX, offset,
                  "expected %" PRIu64 " (split.no counts from 0: this is file %" PRIu64 " of %" PRIu64
                  " by its name), found %" PRIu64, want[k], want[k] + 1, want[1], v);
    else
        afmt_fail(err, AFMT_E_CONSTRAINT, NULL, keys[k], AFMT_NO_INDEX, offset,
                  "expected %" PRIu64 " (the files of the split, by their names), found %" PRIu64, want[k], v);
    return afmt_model_fault(err);
}

int afmt_model_shard_done(afmt_model *m, size_t s, int usable, afmt_error *err)
{
    afmt_model_shard *sh;
    char missing[64] = "";

    if (!m || s >= m->nshards)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "afmt_model_shard_done: no model or shard %" PRIu64, (uint64_t)s);
    sh = &m->shards[s];
    sh->done = 1;
    sh->usable = usable != 0;
    if (m->kind != AFMT_MODEL_KIND_SPLIT || !sh->usable)
        return 0;
    if (!sh->no.seen)
        strcat(missing, ", split.no");
    if (!sh->count.seen)
        strcat(missing, ", split.count");
    if (!sh->total.seen)
        strcat(missing, ", split.tensors.count");
    if (!missing[0] || m->nshards == 1)
        return 0; /* one file named -00001-of-00001 needs none of them */
    afmt_fail(err, AFMT_E_CONSTRAINT, NULL, missing + 2, AFMT_NO_INDEX, AFMT_NO_OFFSET,
              "file %" PRIu64 " of a split of %" PRIu64 " lacks %s (gguf-split writes them in every file)",
              (uint64_t)s + 1, (uint64_t)m->nshards, missing + 2);
    return afmt_model_fault(err);
}

/* 1 when every shard was done and usable: only then do counts and sizes
 * of the whole set mean anything. */
static int all_usable(const afmt_model *m)
{
    size_t s;
    for (s = 0; s < m->nshards; s++)
        if (!m->shards[s].done || !m->shards[s].usable)
            return 0;
    return 1;
}

/* The next tensor of the index that no shard held, its shard being one
 * that was read whole (a missing or invalid shard was reported already). */
static int index_unfound(afmt_model *m, size_t *where, afmt_error *err)
{
    char field[AFMT_FIELD_MAX];

    while (m->cursor < m->ntensors) {
        const afmt_model_tensor *t = &m->tensors[m->cursor++];
        const afmt_model_shard *sh = &m->shards[t->listed];
        if (t->found != AFMT_MODEL_NONE || !sh->done || !sh->usable)
            continue;
        tensor_field(field, sizeof field, "weight_map", t->name, t->name_len);
        afmt_fail(err, AFMT_E_CONSTRAINT, NULL, field, AFMT_NO_INDEX, t->at,
                  "names %s, which holds no tensor of that name", m->names + sh->name_at);
        *where = AFMT_MODEL_INDEX_FILE;
        return afmt_model_fault(err) != 0;
    }
    return 0;
}

static int index_total_size(afmt_model *m, size_t *where, afmt_error *err)
{
    if (!m->has_total_size || !all_usable(m))
        return 0;
    if (!m->found_bytes_overflow && m->found_bytes == m->total_size)
        return 0;
    if (m->found_bytes_overflow)
        afmt_fail(err, AFMT_E_OVERFLOW, NULL, "metadata.total_size", AFMT_NO_INDEX, m->total_size_at,
                  "the stored bytes of the %" PRIu64 " tensors overflow 64 bits", (uint64_t)m->ntensors);
    else
        afmt_fail(err, AFMT_E_SIZE, NULL, "metadata.total_size", AFMT_NO_INDEX, m->total_size_at,
                  "expected %" PRIu64 " (the stored bytes of the %" PRIu64 " tensors found), found %" PRIu64,
                  m->found_bytes, (uint64_t)m->ntensors, m->total_size);
    *where = AFMT_MODEL_INDEX_FILE;
    return afmt_model_fault(err) != 0;
}

static int same_name(const afmt_model_tensor *a, const afmt_model_tensor *b)
{
    return a->name_len == b->name_len && (a->name_len == 0 || memcmp(a->name, b->name, (size_t)a->name_len) == 0);
}

/* The next tensor name a split holds twice: blamed on the later file,
 * naming the first (m->run: where the current run of one name began). */
static int split_duplicate(afmt_model *m, size_t *where, afmt_error *err)
{
    char field[AFMT_FIELD_MAX], other[32];

    if (m->cursor == 0) {
        m->cursor = 1;
        m->run = 0;
    }
    while (m->cursor < m->ntensors) {
        size_t i = m->cursor++;
        const afmt_model_tensor *t = &m->tensors[i], *first = &m->tensors[m->run];
        if (!same_name(first, t)) {
            m->run = i;
            continue;
        }
        tensor_field(field, sizeof field, "tensor", t->name, t->name_len);
        afmt_fail(err, AFMT_E_CONSTRAINT, NULL, field, AFMT_NO_INDEX, t->at,
                  "also in %s (its data at offset %" PRIu64 " there): a tensor is in one file only",
                  afmt_model_shard_label(m, first->found, other, sizeof other), first->at);
        *where = t->found;
        return afmt_model_fault(err) != 0;
    }
    return 0;
}

static int split_count(afmt_model *m, size_t *where, afmt_error *err)
{
    if (m->split_total_shard == AFMT_MODEL_NONE || !all_usable(m) || m->split_total == m->ntensors)
        return 0;
    afmt_fail(err, AFMT_E_SIZE, NULL, "split.tensors.count", AFMT_NO_INDEX, m->split_total_at,
              "expected %" PRIu64 " (the tensors the %" PRIu64 " files hold), found %" PRIu64,
              (uint64_t)m->ntensors, (uint64_t)m->nshards, m->split_total);
    *where = m->split_total_shard;
    return afmt_model_fault(err) != 0;
}

int afmt_model_next_fault(afmt_model *m, size_t *where, afmt_error *err)
{
    if (!m)
        return 0;
    if (m->kind == AFMT_MODEL_KIND_SPLIT && !m->sorted) {
        afmt_model_sort_tensors(m);
        m->sorted = 1;
    }
    while (m->phase < 2) {
        int found;
        if (m->kind == AFMT_MODEL_KIND_INDEX)
            found = m->phase == 0 ? index_unfound(m, where, err) : index_total_size(m, where, err);
        else
            found = m->phase == 0 ? split_duplicate(m, where, err) : split_count(m, where, err);
        if (found) {
            if (m->phase == 1)
                m->phase = 2;
            return 1;
        }
        m->phase++;
        m->cursor = 0;
    }
    return 0;
}
