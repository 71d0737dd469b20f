/* Model sets (afmt.h, "Model sets"): a table of safetensors indexes, each
 * with the tensors its shards hold and the faults that must come out, in
 * order, each with where (the index or a shard), code, field and offset;
 * a table of indexes refused when read; a table of GGUF splits (their
 * split.* key-values and tensors); gguf-split's file names. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "afmt.h"
#include "check.h"

#define INDEX (-1)
#define MAX_T 8
#define MAX_F 4

typedef struct tensor_in {
    int shard;
    const char *name;
    uint64_t nbytes, offset;
} tensor_in;

/* A fault: where (a shard, or INDEX), code, field, and its offset: in the
 * index, where `at` first occurs in its text (plus `plus`); in a shard,
 * the offset given. */
typedef struct fault_want {
    int where;
    afmt_code code;
    const char *field;
    const char *at;
    uint64_t offset;
    const char *words;
} fault_want;

typedef struct index_case {
    const char *name;
    const char *json;
    tensor_in t[MAX_T];
    unsigned unusable; /* bit s: shard s given as missing or invalid */
    fault_want f[MAX_F];
} index_case;

static const char J_GOOD[] =
    "{\"metadata\": {\"total_size\": 40},\n \"weight_map\": {\"a\": \"s1.safetensors\", "
    "\"b\": \"s2.safetensors\", \"c\": \"s1.safetensors\"}}\n";
static const char J_TOTAL41[] =
    "{\"metadata\": {\"total_size\": 41}, \"weight_map\": {\"a\": \"s1.safetensors\", "
    "\"b\": \"s2.safetensors\", \"c\": \"s1.safetensors\"}}";

#define GOOD_T { 0, "a", 16, 8 }, { 0, "c", 8, 24 }, { 1, "b", 16, 8 }

static const index_case index_cases[] = {
    { "index valid", J_GOOD, { GOOD_T }, 0, { { 0 } } },
    { "index total_size not the sum", J_TOTAL41, { GOOD_T }, 0,
      { { INDEX, AFMT_E_SIZE, "metadata.total_size", "41", 0, "expected 40 (the stored bytes of the 3 tensors found), found 41" } } },
    { "index tensor in no entry", J_GOOD, { GOOD_T, { 1, "d", 4, 24 } }, 0,
      { { 1, AFMT_E_CONSTRAINT, "tensor[\"d\"]", NULL, 24, "in no entry of the index's weight_map" } } },
    { "index tensor in the wrong shard", J_GOOD, { { 0, "a", 16, 8 }, { 1, "b", 16, 8 }, { 1, "c", 8, 24 } }, 0,
      { { 1, AFMT_E_CONSTRAINT, "tensor[\"c\"]", NULL, 24, "the index puts it in s1.safetensors" } } },
    { "index tensor twice", J_GOOD, { GOOD_T, { 1, "a", 16, 24 } }, 0,
      { { 1, AFMT_E_CONSTRAINT, "tensor[\"a\"]", NULL, 24, "also in s1.safetensors" } } },
    { "index tensor in no shard", J_GOOD, { { 0, "a", 16, 8 }, { 1, "b", 16, 8 } }, 0,
      { { INDEX, AFMT_E_CONSTRAINT, "weight_map[\"c\"]", "\"c\"", 0, "names s1.safetensors, which holds no tensor" },
        { INDEX, AFMT_E_SIZE, "metadata.total_size", "40", 0, "expected 32" } } },
    /* a missing shard was reported by the caller: not once per tensor */
    { "index missing shard blames nothing more", J_GOOD, { { 0, "a", 16, 8 }, { 0, "c", 8, 24 } }, 2u, { { 0 } } },
    { "index without total_size", "{\"weight_map\": {\"a\": \"x/s.safetensors\"}}", { { 0, "a", 3, 8 } }, 0, { { 0 } } },
};

typedef struct refusal {
    const char *name;
    const char *json;
    afmt_code code;
    const char *field;
    const char *at; /* NULL: offset 0 */
    const char *words;
} refusal;

static const refusal refusals[] = {
    { "refuse no weight_map", "{\"metadata\": {}}", AFMT_E_VALUE, "weight_map", "{", "has a weight_map" },
    { "refuse weight_map not an object", "{\"weight_map\": [1]}", AFMT_E_VALUE, "weight_map", "[", "is an object" },
    { "refuse a file name not a string", "{\"weight_map\": {\"a\": 1}}", AFMT_E_VALUE, "weight_map[\"a\"]", "1",
      "is a string, found an integer" },
    { "refuse a file name with ..", "{\"weight_map\": {\"a\": \"../s.safetensors\"}}", AFMT_E_VALUE,
      "weight_map[\"a\"]", "\"../", "lies in the index's folder" },
    { "refuse an absolute file name", "{\"weight_map\": {\"a\": \"/etc/passwd\"}}", AFMT_E_VALUE,
      "weight_map[\"a\"]", "\"/etc", "found \"/etc/passwd\"" },
    { "refuse an empty file name", "{\"weight_map\": {\"a\": \"\"}}", AFMT_E_VALUE, "weight_map[\"a\"]", "\"\"",
      "found \"\"" },
    { "refuse a negative total_size", "{\"metadata\": {\"total_size\": -1}, \"weight_map\": {}}", AFMT_E_VALUE,
      "metadata.total_size", "-1", "non-negative integer" },
    { "refuse a total_size string", "{\"metadata\": {\"total_size\": \"9\"}, \"weight_map\": {}}", AFMT_E_VALUE,
      "metadata.total_size", "\"9\"", "non-negative integer" },
    { "refuse bytes after the object", "{\"weight_map\": {}} x", AFMT_E_TRAILING, "index", "x", "after the index" },
    { "refuse a list", "[1]", AFMT_E_VALUE, "index", NULL, "is a JSON object" },
    { "refuse an empty text", "", AFMT_E_TRUNCATED, "index", NULL, "empty index" },
};

/* Everything one run of a case produced. */
typedef struct faults_got {
    int n;
    int where[MAX_F + 4];
    afmt_error err[MAX_F + 4];
} faults_got;

static void keep(faults_got *g, int where, const afmt_error *err)
{
    if (g->n < MAX_F + 4) {
        g->where[g->n] = where;
        g->err[g->n] = *err;
    }
    g->n++;
}

static afmt_array view(const char *name, uint64_t nbytes, uint64_t offset)
{
    afmt_array a;
    afmt_array_init(&a, AFMT_U8);
    snprintf(a.name, sizeof a.name, "%s", name);
    a.nbytes = nbytes;
    a.offset = offset;
    return a;
}

/* Do the faults got match the wanted ones, in order?  Says why not. */
static int faults_match(const char *json, const fault_want *want, const faults_got *g, char *why, size_t cap)
{
    int k, nwant = 0;

    while (nwant < MAX_F && want[nwant].field)
        nwant++;
    if (g->n != nwant) {
        snprintf(why, cap, "%d faults, want %d (first: %s at %" PRIu64 ": %s)", g->n, nwant,
                 g->n ? g->err[0].field : "-", g->n ? g->err[0].offset : 0, g->n ? g->err[0].message : "-");
        return 0;
    }
    for (k = 0; k < nwant; k++) {
        const fault_want *w = &want[k];
        const afmt_error *e = &g->err[k];
        uint64_t off = w->at ? (uint64_t)(strstr(json, w->at) - json) : w->offset;
        if (g->where[k] != w->where || e->code != w->code || strcmp(e->field, w->field) != 0 ||
            e->offset != off || !strstr(e->message, w->words) || strcmp(e->format, "model") != 0) {
            snprintf(why, cap, "fault %d: where %d code %s field '%s' offset %" PRIu64 " format '%s': %s", k,
                     g->where[k], afmt_code_name(e->code), e->field, e->offset, e->format, e->message);
            return 0;
        }
    }
    return 1;
}

static void run_index_case(const index_case *c)
{
    afmt_model *m = NULL;
    afmt_error err;
    faults_got g;
    size_t s, where;
    char why[600] = "";
    int i, ok;

    memset(&g, 0, sizeof g);
    afmt_error_clear(&err);
    ok = afmt_model_index_open(&m, (const uint8_t *)c->json, strlen(c->json), NULL, &err) == 0;
    if (!ok) {
        printf("FAIL %s: open: %s: %s\n", c->name, err.field, err.message);
        check_failures++;
        return;
    }
    for (s = 0; s < afmt_model_shards(m); s++) {
        for (i = 0; i < MAX_T && c->t[i].name; i++) {
            afmt_array a = view(c->t[i].name, c->t[i].nbytes, c->t[i].offset);
            if ((size_t)c->t[i].shard == s && afmt_model_add_array(m, s, &a, &err) != 0)
                keep(&g, (int)s, &err);
        }
        if (afmt_model_shard_done(m, s, !(c->unusable >> s & 1u), &err) != 0)
            keep(&g, (int)s, &err);
    }
    while (afmt_model_next_fault(m, &where, &err))
        keep(&g, where == AFMT_MODEL_INDEX_FILE ? INDEX : (int)where, &err);
    ok = faults_match(c->json, c->f, &g, why, sizeof why);
    if (ok)
        printf("PASS %s\n", c->name);
    else {
        printf("FAIL %s: %s\n", c->name, why);
        check_failures++;
    }
    CHECK("next_fault stays 0 after the last", afmt_model_next_fault(m, &where, &err) == 0);
    afmt_model_free(m);
}

static void run_refusal(const refusal *r)
{
    afmt_model *m = (afmt_model *)&m; /* must become NULL */
    afmt_error err;
    uint64_t off = r->at ? (uint64_t)(strstr(r->json, r->at) - r->json) : 0;
    int rc = afmt_model_index_open(&m, (const uint8_t *)r->json, strlen(r->json), NULL, &err);

    if (rc == -1 && m == NULL && err.code == r->code && strcmp(err.field, r->field) == 0 && err.offset == off &&
        strstr(err.message, r->words)) {
        printf("PASS %s\n", r->name);
    } else {
        printf("FAIL %s: rc %d code %s field '%s' offset %" PRIu64 " (want %" PRIu64 "): %s\n", r->name, rc,
               afmt_code_name(err.code), err.field, err.offset, off, err.message);
        check_failures++;
        if (rc == 0)
            afmt_model_free(m);
    }
}

static void index_basics(void)
{
    afmt_model *m;
    afmt_error err;
    afmt_array a = view("b", 16, 8);
    afmt_options opt;

    CHECK("open good index", afmt_model_index_open(&m, (const uint8_t *)J_GOOD, strlen(J_GOOD), NULL, &err) == 0);
    CHECK("two shards, in the order first named", afmt_model_shards(m) == 2 &&
          strcmp(afmt_model_shard_name(m, 0), "s1.safetensors") == 0 &&
          strcmp(afmt_model_shard_name(m, 1), "s2.safetensors") == 0 && afmt_model_shard_name(m, 2) == NULL);
    CHECK("three tensors listed", afmt_model_tensors(m) == 3);
    CHECK("a shard is blamed at the first value naming it",
          afmt_model_shard_offset(m, 1) == (uint64_t)(strstr(J_GOOD, "\"s2.") - J_GOOD) &&
          afmt_model_shard_offset(m, 2) == AFMT_NO_OFFSET);
    CHECK("add b to its shard", afmt_model_add_array(m, 1, &a, &err) == 0 && afmt_model_found_bytes(m) == 16);
    CHECK("shard out of range is usage", afmt_model_add_array(m, 2, &a, &err) == -1 && err.code == AFMT_E_USAGE);
    a = view("x", 1, 40);
    a.name_len = 300; /* the view holds only the first bytes */
    CHECK("a name longer than a view: limit naming it",
          afmt_model_add_array(m, 0, &a, &err) == -1 && err.code == AFMT_E_LIMIT &&
          strcmp(err.field, "tensor[\"x\"]") == 0 && err.offset == 40);
    afmt_model_free(m);
    afmt_options_default(&opt);
    opt.limits.max_header_bytes = 10;
    CHECK("an index over max_header_bytes: limit",
          afmt_model_index_open(&m, (const uint8_t *)J_GOOD, strlen(J_GOOD), &opt, &err) == -1 &&
          err.code == AFMT_E_LIMIT && err.offset == 0 && strcmp(err.field, "index") == 0);
    CHECK("a duplicate key is refused",
          afmt_model_index_open(&m, (const uint8_t *)"{\"weight_map\": {\"a\": \"s\", \"a\": \"t\"}}", 36, NULL,
                                &err) == -1 && strstr(err.message, "duplicate") != NULL);
    afmt_model_free(NULL);
}

/* ---- splits */

typedef struct kv_in {
    int shard;
    const char *key;
    afmt_value_kind kind;
    int64_t value;
    uint64_t offset;
} kv_in;

typedef struct split_case {
    const char *name;
    unsigned count;
    kv_in kv[12];
    tensor_in t[MAX_T];
    fault_want f[MAX_F];
} split_case;

#define KV3(s, no, count, total)                                                             \
    { s, "split.no", AFMT_VALUE_UINT, no, 24 }, { s, "split.count", AFMT_VALUE_UINT, count, 56 }, \
    { s, "split.tensors.count", AFMT_VALUE_INT, total, 91 }
#define SPLIT_T { 0, "a", 32, 640 }, { 1, "b", 32, 320 }, { 2, "c", 64, 320 }

static const split_case split_cases[] = {
    { "split valid", 3, { KV3(0, 0, 3, 3), KV3(1, 1, 3, 3), KV3(2, 2, 3, 3) }, { SPLIT_T }, { { 0 } } },
    { "split.no not the file's number", 3, { KV3(0, 0, 3, 3), KV3(1, 0, 3, 3), KV3(2, 2, 3, 3) }, { SPLIT_T },
      { { 1, AFMT_E_CONSTRAINT, "split.no", NULL, 24, "expected 1 (split.no counts from 0: this is file 2 of 3" } } },
    { "split.count not the files'", 3, { KV3(0, 0, 3, 3), KV3(1, 1, 3, 3), KV3(2, 2, 2, 3) }, { SPLIT_T },
      { { 2, AFMT_E_CONSTRAINT, "split.count", NULL, 56, "expected 3 (the files of the split" } } },
    { "split.tensors.count disagrees", 3, { KV3(0, 0, 3, 3), KV3(1, 1, 3, 3), KV3(2, 2, 3, 4) }, { SPLIT_T },
      { { 2, AFMT_E_CONSTRAINT, "split.tensors.count", NULL, 91, "expected 3 (as split 1 of 3 says at offset 91)" } } },
    { "split tensor in two files", 3, { KV3(0, 0, 3, 4), KV3(1, 1, 3, 4), KV3(2, 2, 3, 4) },
      { SPLIT_T, { 2, "b", 32, 384 } },
      { { 2, AFMT_E_CONSTRAINT, "tensor[\"b\"]", NULL, 384, "also in split 2 of 3 (its data at offset 320 there)" } } },
    { "split.tensors.count not the tensors found", 3, { KV3(0, 0, 3, 5), KV3(1, 1, 3, 5), KV3(2, 2, 3, 5) },
      { SPLIT_T },
      { { 0, AFMT_E_SIZE, "split.tensors.count", NULL, 91, "expected 3 (the tensors the 3 files hold), found 5" } } },
    { "split file lacks its keys", 2, { KV3(0, 0, 2, 2), { 1, "split.no", AFMT_VALUE_UINT, 1, 24 } },
      { { 0, "a", 32, 640 }, { 1, "b", 32, 320 } },
      { { 1, AFMT_E_CONSTRAINT, "split.count, split.tensors.count", NULL, AFMT_NO_OFFSET, "file 2 of a split of 2 lacks" } } },
    { "split negative count", 1, { { 0, "split.count", AFMT_VALUE_INT, -1, 56 } }, { { 0, "a", 32, 640 } },
      { { 0, AFMT_E_CONSTRAINT, "split.count", NULL, 56, "non-negative integer" } } },
};

static void run_split_case(const split_case *c)
{
    afmt_model *m = NULL;
    afmt_error err;
    faults_got g;
    size_t s, where;
    char why[600] = "";
    int i;

    memset(&g, 0, sizeof g);
    if (afmt_model_split_open(&m, c->count, &err) != 0) {
        printf("FAIL %s: open: %s\n", c->name, err.message);
        check_failures++;
        return;
    }
    for (s = 0; s < c->count; s++) {
        for (i = 0; i < 12 && c->kv[i].key; i++) {
            afmt_kv kv;
            memset(&kv, 0, sizeof kv);
            kv.key = (const uint8_t *)c->kv[i].key;
            kv.key_len = strlen(c->kv[i].key);
            kv.value.kind = c->kv[i].kind;
            kv.value.width = c->kv[i].kind == AFMT_VALUE_UINT ? 2 : 4;
            kv.value.u = (uint64_t)c->kv[i].value;
            kv.value.i = c->kv[i].value;
            if ((size_t)c->kv[i].shard == s && afmt_model_add_kv(m, s, &kv, c->kv[i].offset, &err) != 0)
                keep(&g, (int)s, &err);
        }
        for (i = 0; i < MAX_T && c->t[i].name; i++) {
            afmt_array a = view(c->t[i].name, c->t[i].nbytes, c->t[i].offset);
            if ((size_t)c->t[i].shard == s && afmt_model_add_array(m, s, &a, &err) != 0)
                keep(&g, (int)s, &err);
        }
        if (afmt_model_shard_done(m, s, 1, &err) != 0)
            keep(&g, (int)s, &err);
    }
    while (afmt_model_next_fault(m, &where, &err))
        keep(&g, (int)where, &err);
    if (faults_match("", c->f, &g, why, sizeof why))
        printf("PASS %s\n", c->name);
    else {
        printf("FAIL %s: %s\n", c->name, why);
        check_failures++;
    }
    afmt_model_free(m);
}

typedef struct split_name_case {
    const char *name;
    int ok;
    size_t prefix;
    uint64_t number, count;
} split_name_case;

static const split_name_case split_names[] = {
    { "Llama-3-8B-Q4_K_M-00001-of-00003.gguf", 1, 17, 1, 3 },
    { "m-00003-of-00003.gguf", 1, 1, 3, 3 },
    { "m-000012-of-000020.gguf", 1, 1, 12, 20 },
    { "m-00004-of-00003.gguf", 0, 0, 0, 0 },
    { "m-00000-of-00003.gguf", 0, 0, 0, 0 },
    { "m-1-of-3.gguf", 0, 0, 0, 0 },
    { "m-00001-of-00003.safetensors", 0, 0, 0, 0 },
    { "m00001-of-00003.gguf", 0, 0, 0, 0 },
    { "m-00001-of-99999.gguf", 0, 0, 0, 0 },
    { "model.gguf", 0, 0, 0, 0 },
};

int main(void)
{
    size_t i;
    afmt_model *m;
    afmt_error err;

    index_basics();
    for (i = 0; i < sizeof index_cases / sizeof *index_cases; i++)
        run_index_case(&index_cases[i]);
    for (i = 0; i < sizeof refusals / sizeof *refusals; i++)
        run_refusal(&refusals[i]);
    for (i = 0; i < sizeof split_cases / sizeof *split_cases; i++)
        run_split_case(&split_cases[i]);
    for (i = 0; i < sizeof split_names / sizeof *split_names; i++) {
        const split_name_case *c = &split_names[i];
        size_t prefix = 0;
        uint64_t number = 0, count = 0;
        int ok = afmt_model_split_name(c->name, &prefix, &number, &count);
        char name[160];
        snprintf(name, sizeof name, "split name %s", c->name);
        CHECK(name, ok == c->ok && (!ok || (prefix == c->prefix && number == c->number && count == c->count)));
    }
    CHECK("split of 0 files is usage", afmt_model_split_open(&m, 0, &err) == -1 && err.code == AFMT_E_USAGE);
    CHECK("split of 65536 files is usage", afmt_model_split_open(&m, 65536, &err) == -1 && err.code == AFMT_E_USAGE);
    CHECK_DONE();
}
