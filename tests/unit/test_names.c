/* The one naming rule for arrays without a name (docs/FORMATS.md, issue
 * 36 point 4): every writer whose arrays are keys (safetensors, GGUF,
 * npz, torch) writes an unnamed array as arr_<index>, a lone one too;
 * tenbin, whose names are optional, keeps it unnamed; an unnamed array
 * whose arr_<index> another array is called already is refused, naming
 * the array, never renamed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afmt.h"
#include "core/afmt_fields.h"
#include "check.h"

#define MAX_ARRAYS 4
#define OUT_CAP (1 << 16)

typedef struct read_back {
    char names[MAX_ARRAYS][AFMT_NAME_MAX];
    int n;
} read_back;

static int on_array(void *ctx, const afmt_array *a)
{
    read_back *r = ctx;
    if (r->n < MAX_ARRAYS)
        snprintf(r->names[r->n], sizeof r->names[0], "%s", a->name);
    r->n++;
    return 0;
}

/* "" ends a list of names; NULL: an unnamed array. */
typedef struct names_case {
    const char *format;
    const char *what;
    const char *given[MAX_ARRAYS + 1]; /* names given, "-" for none, ends at NULL */
    const char *want;                  /* the names read back, sorted, comma-separated;
                                          NULL: refused */
    afmt_code code;                    /* refused: the code, */
    const char *field;                 /* and the field, naming the array */
} names_case;

static const names_case cases[] = {
    { "safetensors", "a lone unnamed array", { "-", NULL }, "arr_0", AFMT_OK, NULL },
    { "gguf", "a lone unnamed array", { "-", NULL }, "arr_0", AFMT_OK, NULL },
    { "npz", "a lone unnamed array", { "-", NULL }, "arr_0", AFMT_OK, NULL },
    { "torch", "a lone unnamed array", { "-", NULL }, "arr_0", AFMT_OK, NULL },
    { "tenbin", "a lone unnamed array stays unnamed", { "-", NULL }, "", AFMT_OK, NULL },
    { "safetensors", "two unnamed", { "-", "-", NULL }, "arr_0,arr_1", AFMT_OK, NULL },
    { "gguf", "two unnamed", { "-", "-", NULL }, "arr_0,arr_1", AFMT_OK, NULL },
    { "npz", "two unnamed", { "-", "-", NULL }, "arr_0,arr_1", AFMT_OK, NULL },
    { "torch", "two unnamed", { "-", "-", NULL }, "arr_0,arr_1", AFMT_OK, NULL },
    { "safetensors", "a named one keeps its name, the unnamed is arr_1", { "w", "-", NULL }, "arr_1,w", AFMT_OK, NULL },
    { "gguf", "a named one keeps its name, the unnamed is arr_1", { "w", "-", NULL }, "arr_1,w", AFMT_OK, NULL },
    { "npz", "a named one keeps its name, the unnamed is arr_1", { "w", "-", NULL }, "arr_1,w", AFMT_OK, NULL },
    { "torch", "a named one keeps its name, the unnamed is arr_1", { "w", "-", NULL }, "arr_1,w", AFMT_OK, NULL },
    { "safetensors", "arr_0 beside an unnamed array 0", { "-", "arr_0", NULL }, NULL, AFMT_E_CONSTRAINT, "name[1]" },
    { "gguf", "arr_0 beside an unnamed array 0", { "-", "arr_0", NULL }, NULL, AFMT_E_CONSTRAINT, "name[1]" },
    { "npz", "arr_0 beside an unnamed array 0", { "-", "arr_0", NULL }, NULL, AFMT_E_CONSTRAINT, "name[1]" },
    { "torch", "arr_0 beside an unnamed array 0", { "-", "arr_0", NULL }, NULL, AFMT_E_CONSTRAINT, "name[1]" },
};

/* "a,b": the names read back, sorted (safetensors writes in its own
 * order), into out. */
static void sorted_names(read_back *r, char *out, size_t size)
{
    int i, j, n = r->n < MAX_ARRAYS ? r->n : MAX_ARRAYS;
    size_t used = 0;
    char tmp[AFMT_NAME_MAX];

    for (i = 1; i < n; i++)
        for (j = i; j > 0 && strcmp(r->names[j - 1], r->names[j]) > 0; j--) {
            memcpy(tmp, r->names[j], sizeof tmp);
            memcpy(r->names[j], r->names[j - 1], sizeof tmp);
            memcpy(r->names[j - 1], tmp, sizeof tmp);
        }
    out[0] = '\0';
    for (i = 0; i < n && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%s", i ? "," : "", r->names[i]);
}

static void run_case(const names_case *c, uint8_t *out, float *values)
{
    const afmt_format *f = afmt_format_by_name(c->format);
    afmt_array arrays[MAX_ARRAYS];
    afmt_visitor vis;
    afmt_sink sink;
    afmt_error err;
    read_back r;
    char name[200], got[256];
    size_t n = 0;

    snprintf(name, sizeof name, "names: %s: %s", c->format, c->what);
    if (!f) {
        printf("FAIL %s: no %s format in this build\n", name, c->format);
        check_failures++;
        return;
    }
    for (; c->given[n]; n++) {
        afmt_array_init(&arrays[n], AFMT_F32);
        arrays[n].rank = 1;
        arrays[n].dims[0] = arrays[n].count = 2;
        arrays[n].nbytes = 8;
        arrays[n].order = f->order;
        arrays[n].data = (const uint8_t *)(values + 2 * n);
        if (strcmp(c->given[n], "-") != 0)
            snprintf(arrays[n].name, sizeof arrays[n].name, "%s", c->given[n]);
    }
    afmt_sink_buffer(&sink, out, OUT_CAP);
    afmt_error_clear(&err);
    if (f->write(arrays, n, NULL, &sink, &err) != 0) {
        CHECK(name, !c->want && err.code == c->code && strcmp(err.field, c->field) == 0 &&
                        err.offset == AFMT_NO_OFFSET);
        if (c->want || err.code != c->code || strcmp(err.field, c->field) != 0)
            printf("  got: code %d, field '%s', offset %llu: %s\n", (int)err.code, err.field,
                   (unsigned long long)err.offset, err.message);
        return;
    }
    memset(&r, 0, sizeof r);
    memset(&vis, 0, sizeof vis);
    vis.ctx = &r;
    vis.on_array = on_array;
    afmt_error_clear(&err);
    if (f->validate(out, sink.written, NULL, &vis, &err) != 0) {
        printf("FAIL %s: what it wrote does not validate: %s\n", name, err.message);
        check_failures++;
        return;
    }
    sorted_names(&r, got, sizeof got);
    CHECK(name, c->want && strcmp(got, c->want) == 0);
    if (!c->want || strcmp(got, c->want) != 0)
        printf("  got: '%s'\n", got);
}

/* afmt_array_key, the rule itself. */
static void test_key(void)
{
    afmt_array a;
    char buf[32];

    afmt_array_init(&a, AFMT_F32);
    CHECK("names: afmt_array_key of an unnamed array 7 is arr_7",
          strcmp(afmt_array_key(&a, 7, buf, sizeof buf), "arr_7") == 0);
    snprintf(a.name, sizeof a.name, "bias");
    CHECK("names: afmt_array_key of a named array is its name",
          afmt_array_key(&a, 7, buf, sizeof buf) == a.name);
}

int main(void)
{
    uint8_t *out = malloc(OUT_CAP);
    float values[2 * MAX_ARRAYS] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    size_t i;

    if (!out)
        return 2;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i], out, values);
    test_key();
    free(out);
    CHECK_DONE();
}
