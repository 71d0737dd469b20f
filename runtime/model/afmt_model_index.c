/* afmt runtime: reading a safetensors index (model.safetensors.index.json)
 * into a model set (afmt.h, "Model sets"; the state: afmt_model.h).
 *
 * The index is checked whole by the text-header parser (afmt_texthdr.h:
 * syntax, UTF-8, depth, entries, duplicate keys), in place, before
 * anything is allocated for its entries; then each weight_map entry
 * becomes a tensor, and each distinct file name a shard, numbered in the
 * order the map first names it.  Finding a name's shard sorts the
 * entries by file name once: O(n log n) however many shards there are. */
#include "afmt_model.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../common/afmt_bytes.h"
#include "../common/afmt_error.h"
#include "../text/afmt_texthdr.h"

/* One weight_map entry's file name, while shards are being numbered. */
typedef struct named_entry {
    const char *name;     /* in the model's names, once they stop growing */
    uint64_t name_at, name_len;
    uint64_t value_at;    /* absolute offset of the value (its quote) */
    size_t entry;         /* its place in the weight_map */
    size_t group;         /* which distinct name it is, in name order */
} named_entry;

/* A distinct file name: the first entry naming it, how many do, and its
 * number in name order. */
typedef struct name_group {
    size_t first;         /* entry */
    size_t file;          /* index into the sorted files */
    size_t id;
    uint64_t entries;
} name_group;

typedef struct index_read {
    afmt_model *m;
    afmt_texthdr hdr;
    named_entry *files;
    name_group *groups;
    afmt_error *err;
} index_read;

static int oom(index_read *r, const char *what)
{
    afmt_fail(r->err, AFMT_E_NOMEM, NULL, "index", AFMT_NO_INDEX, AFMT_NO_OFFSET, "out of memory for %s", what);
    return afmt_model_fault(r->err);
}

/* A string value decoded into the model's names: 0 with *at, *len. */
static int add_string(index_read *r, const afmt_texthdr_value *s, uint64_t *at, uint64_t *len)
{
    afmt_model *m = r->m;
    uint64_t encoded = s->end - s->begin, room;

    /* decoding never lengthens a JSON string: reserve its bytes, then copy */
    if (afmt_model_names_add(m, NULL, encoded, at) != 0)
        return oom(r, "the index's names");
    room = encoded + 1;
    *len = afmt_texthdr_str_copy(&r->hdr, s, m->names + *at, (size_t)room);
    m->names_len = *at + *len + 1;
    return 0;
}

/* Where a value's text starts: a string's begin excludes its quote. */
static uint64_t value_start(const afmt_texthdr_value *v)
{
    return v->kind == AFMT_TV_STRING && v->begin > 0 ? v->begin - 1 : v->begin;
}

static int fail_at(index_read *r, afmt_code code, const char *field, uint64_t at, const char *why)
{
    afmt_fail(r->err, code, NULL, field, AFMT_NO_INDEX, r->hdr.base + at, "%s", why);
    return afmt_model_fault(r->err);
}

/* A shard's file name: relative, inside the index's folder. */
static int file_name_ok(const char *p, uint64_t n)
{
    uint64_t i, start = 0;

    if (n == 0 || p[0] == '/' || strlen(p) != n)
        return 0;
    for (i = 0; i <= n; i++) {
        if (i < n && p[i] == '\\')
            return 0;
        if (i == n || p[i] == '/') {
            if (i - start == 2 && p[start] == '.' && p[start + 1] == '.')
                return 0;
            start = i + 1;
        }
    }
    return 1;
}

/* weight_map["name"] (cut to fit) for a message about an entry. */
static void entry_field(index_read *r, const afmt_texthdr_value *key, char *out, size_t cap)
{
    char name[128];
    uint64_t n = afmt_texthdr_str_copy(&r->hdr, key, name, sizeof name);
    snprintf(out, cap, "weight_map[\"%s%s\"]", name, n >= sizeof name ? "..." : "");
}

/* Each entry: its tensor, and its file name kept aside for numbering. */
static int read_entries(index_read *r, const afmt_texthdr_value *map)
{
    afmt_model *m = r->m;
    afmt_texthdr_iter it;
    afmt_texthdr_value key, value;
    char field[AFMT_FIELD_MAX];

    afmt_texthdr_iter_begin(&r->hdr, map, &it);
    while (afmt_texthdr_next(&r->hdr, &it, &key, &value)) {
        afmt_model_tensor *t = &m->tensors[m->ntensors];
        named_entry *f = &r->files[m->ntensors];

        if (value.kind != AFMT_TV_STRING) {
            entry_field(r, &key, field, sizeof field);
            afmt_fail(r->err, AFMT_E_VALUE, NULL, field, AFMT_NO_INDEX, r->hdr.base + value_start(&value),
                      "a shard's file name is a string, found %s", afmt_tv_kind_name(value.kind));
            return afmt_model_fault(r->err);
        }
        memset(t, 0, sizeof *t);
        t->found = AFMT_MODEL_NONE;
        t->at = r->hdr.base + key.begin - 1; /* the key's opening quote */
        if (add_string(r, &key, &t->name_at, &t->name_len) != 0 ||
            add_string(r, &value, &f->name_at, &f->name_len) != 0)
            return -1;
        if (!file_name_ok(m->names + f->name_at, f->name_len)) {
            entry_field(r, &key, field, sizeof field);
            afmt_fail(r->err, AFMT_E_VALUE, NULL, field, AFMT_NO_INDEX, r->hdr.base + value.begin - 1,
                      "a shard's file name lies in the index's folder (relative, no '..', no '\\', "
                      "no NUL), found \"%.100s\"", m->names + f->name_at);
            return afmt_model_fault(r->err);
        }
        f->entry = m->ntensors;
        /* where the entry's value starts: a missing shard is blamed there */
        f->value_at = r->hdr.base + value.begin - 1;
        m->ntensors++;
    }
    return 0;
}

static int by_file_name(const void *pa, const void *pb)
{
    const named_entry *a = pa, *b = pb;
    uint64_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
    int c = memcmp(a->name, b->name, (size_t)n);
    if (c)
        return c;
    if (a->name_len != b->name_len)
        return a->name_len < b->name_len ? -1 : 1;
    return a->entry < b->entry ? -1 : a->entry > b->entry;
}

static int by_first_entry(const void *pa, const void *pb)
{
    const name_group *a = pa, *b = pb;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* The distinct file names, in name order: r->groups[0..*n). */
static void group_files(index_read *r, size_t *n)
{
    afmt_model *m = r->m;
    size_t i, g = 0;

    for (i = 0; i < m->ntensors; i++)
        r->files[i].name = m->names + r->files[i].name_at;
    qsort(r->files, m->ntensors, sizeof *r->files, by_file_name);
    for (i = 0; i < m->ntensors; i++) {
        named_entry *f = &r->files[i];
        if (i == 0 || f[-1].name_len != f->name_len ||
            memcmp(f[-1].name, f->name, (size_t)f->name_len) != 0) {
            r->groups[g].first = f->entry; /* the least entry: ties sort by entry */
            r->groups[g].file = i;
            r->groups[g].id = g;
            r->groups[g].entries = 0;
            g++;
        }
        f->group = g - 1;
        r->groups[g - 1].entries++;
    }
    *n = g;
}

/* Shards numbered by the entry that first names them; each tensor told
 * its shard.  shard_of: room for a number per group (temporary). */
static int number_shards(index_read *r, size_t *shard_of)
{
    afmt_model *m = r->m;
    size_t n, i;

    group_files(r, &n);
    qsort(r->groups, n, sizeof *r->groups, by_first_entry);
    if (!(m->shards = calloc(n ? n : 1, sizeof *m->shards)))
        return oom(r, "the shards");
    m->nshards = n;
    for (i = 0; i < n; i++) {
        const named_entry *f = &r->files[r->groups[i].file];
        afmt_model_shard *sh = &m->shards[i];
        shard_of[r->groups[i].id] = i;
        sh->name_at = f->name_at;
        sh->name_len = f->name_len;
        sh->at = f->value_at;
        sh->listed = r->groups[i].entries;
    }
    for (i = 0; i < m->ntensors; i++)
        m->tensors[r->files[i].entry].listed = shard_of[r->files[i].group];
    return 0;
}

/* metadata.total_size, when the index has one. */
static int read_metadata(index_read *r, const afmt_texthdr_value *root)
{
    afmt_model *m = r->m;
    afmt_texthdr_value meta, total;

    if (!afmt_texthdr_get(&r->hdr, root, "metadata", &meta))
        return 0;
    if (meta.kind != AFMT_TV_OBJECT)
        return fail_at(r, AFMT_E_VALUE, "metadata", value_start(&meta), "an index's metadata is an object");
    if (!afmt_texthdr_get(&r->hdr, &meta, "total_size", &total))
        return 0;
    if (total.kind != AFMT_TV_INT || total.negative)
        return fail_at(r, AFMT_E_VALUE, "metadata.total_size", value_start(&total),
                       "the tensors' stored bytes: a non-negative integer");
    m->has_total_size = 1;
    m->total_size = total.u;
    m->total_size_at = r->hdr.base + total.begin;
    return 0;
}

/* The whole text: one object and nothing after it but white space. */
static int parse_root(index_read *r, afmt_texthdr_value *root, afmt_texthdr_value *map)
{
    uint64_t work_size = afmt_texthdr_work_size(r->hdr.text, r->hdr.len), p;
    void *work = work_size <= SIZE_MAX ? malloc((size_t)work_size) : NULL;
    int rc;

    /* without the work area duplicate keys are found in passes: slower */
    r->hdr.work = work;
    r->hdr.work_size = work ? work_size : 0;
    rc = afmt_texthdr_parse(&r->hdr, 0, root, NULL, r->err);
    r->hdr.work = NULL;
    r->hdr.work_size = 0;
    free(work);
    if (rc != 0)
        return afmt_model_fault(r->err);
    if (root->kind != AFMT_TV_OBJECT)
        return fail_at(r, AFMT_E_VALUE, "index", root->begin, "an index is a JSON object");
    for (p = root->end; p < r->hdr.len; p++) {
        uint8_t c = r->hdr.text[p];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return fail_at(r, AFMT_E_TRAILING, "index", p, "bytes after the index's object");
    }
    if (!afmt_texthdr_get(&r->hdr, root, "weight_map", map))
        return fail_at(r, AFMT_E_VALUE, "weight_map", root->begin,
                       "an index has a weight_map (each tensor's shard file); found none");
    if (map->kind != AFMT_TV_OBJECT)
        return fail_at(r, AFMT_E_VALUE, "weight_map", value_start(map), "the weight_map is an object");
    return 0;
}

/* Room for the entries of a map of n: tensors, and the temporary lists. */
static int reserve(index_read *r, uint64_t n, size_t **shard_of)
{
    afmt_model *m = r->m;
    size_t k = (size_t)(n ? n : 1);

    if (n >= SIZE_MAX / sizeof(named_entry))
        return oom(r, "the index's entries");
    m->tensors = calloc(k, sizeof *m->tensors);
    r->files = calloc(k, sizeof *r->files);
    r->groups = calloc(k, sizeof *r->groups);
    *shard_of = calloc(k, sizeof **shard_of);
    if (!m->tensors || !r->files || !r->groups || !*shard_of)
        return oom(r, "the index's entries");
    m->tensors_cap = k;
    return 0;
}

static int read_index(index_read *r, const afmt_options *opt)
{
    afmt_texthdr_value root, map;
    size_t *shard_of = NULL;
    int rc;

    r->hdr.max_depth = opt->limits.max_depth < AFMT_TEXTHDR_DEPTH_CAP ? (unsigned)opt->limits.max_depth : AFMT_TEXTHDR_DEPTH_CAP;
    r->hdr.max_entries = opt->limits.max_items;
    if (parse_root(r, &root, &map) != 0 || read_metadata(r, &root) != 0)
        return -1;
    rc = reserve(r, map.count, &shard_of);
    if (rc == 0)
        rc = read_entries(r, &map);
    if (rc == 0)
        rc = number_shards(r, shard_of);
    free(shard_of);
    if (rc == 0)
        afmt_model_sort_tensors(r->m);
    return rc;
}

int afmt_model_index_open(afmt_model **out, const uint8_t *json, uint64_t len, const afmt_options *opt,
                          afmt_error *err)
{
    afmt_options defaults;
    index_read r;
    int rc;

    if (!out)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "afmt_model_index_open: out is NULL");
    *out = NULL;
    if (!opt) {
        afmt_options_default(&defaults);
        opt = &defaults;
    }
    if (!json && len)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "afmt_model_index_open: no text");
    if (len > opt->limits.max_header_bytes) {
        afmt_fail(err, AFMT_E_LIMIT, NULL, "index", AFMT_NO_INDEX, 0,
                  "an index of %" PRIu64 " bytes exceeds the limit of %" PRIu64 " (limits.max_header_bytes)",
                  len, opt->limits.max_header_bytes);
        return afmt_model_fault(err);
    }
    memset(&r, 0, sizeof r);
    r.err = err;
    r.hdr.text = json;
    r.hdr.len = len;
    r.hdr.syntax = AFMT_TEXTHDR_JSON;
    r.hdr.root = "index";
    r.hdr.map_depths = 1u << 1; /* weight_map's keys are tensor names */
    if (!(r.m = calloc(1, sizeof *r.m)))
        return oom(&r, "a model");
    r.m->kind = AFMT_MODEL_KIND_INDEX;
    r.m->split_total_shard = AFMT_MODEL_NONE;
    rc = len == 0 ? fail_at(&r, AFMT_E_TRUNCATED, "index", 0, "an empty index: a JSON object was expected")
                  : read_index(&r, opt);
    free(r.files);
    free(r.groups);
    if (rc != 0) {
        afmt_model_free(r.m);
        return -1;
    }
    *out = r.m;
    return 0;
}
