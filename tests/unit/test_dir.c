/* Unit tests of runtime/array/afmt_dir.c: a directory of arrays in a data area
 * under each policy (listed / any order, tiling / holes, alignment, the
 * area's tail), table-driven: each case's entries, the verdict, and for a
 * refusal its code, field, offset and message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afmt.h"
#include "array/afmt_dir.h"
#include "check.h"

#define MAXE 6

/* An entry: name, begin, size; its record is at 100 + 10 * listing index. */
typedef struct ent { const char *name; uint64_t begin, size; } ent;

typedef struct dcase {
    const char *what;
    afmt_dir_order order;
    afmt_dir_layout layout;
    afmt_dir_tail tail;
    uint64_t align, area;
    ent e[MAXE];
    int ok;
    uint64_t covered;     /* when ok */
    afmt_code code;       /* when not */
    const char *field;
    uint64_t offset;
    const char *message;
} dcase;

#define OPEN AFMT_DIR_AREA_OPEN
#define L AFMT_DIR_LISTED
#define A AFMT_DIR_ANY
#define T AFMT_DIR_TILE
#define H AFMT_DIR_HOLES
#define NONE AFMT_DIR_TAIL_NONE
#define PAD AFMT_DIR_TAIL_PAD

static const dcase cases[] = {
    {"empty, open area", A, T, NONE, 1, OPEN, {{0}}, 1, 0, 0, NULL, 0, NULL},
    {"empty, empty area", L, T, NONE, 1, 0, {{0}}, 1, 0, 0, NULL, 0, NULL},
    {"empty, bytes in the area", L, T, NONE, 1, 8, {{0}}, 0, 0, AFMT_E_TRAILING, "data", 1000,
     "bytes [0, 8) of the data belong to no entry (there is none)"},
    {"tiles in order", L, T, NONE, 1, 20, {{"a", 0, 16}, {"b", 16, 4}}, 1, 20, 0, NULL, 0, NULL},
    {"tiles out of order, any order", A, T, NONE, 1, OPEN, {{"b", 16, 4}, {"a", 0, 16}}, 1, 20, 0, NULL, 0, NULL},
    {"out of order, listed required: the first is a hole", L, T, NONE, 1, OPEN, {{"b", 16, 4}, {"a", 0, 16}}, 0, 0,
     AFMT_E_CONSTRAINT, "b", 100, "a hole: bytes [0, 16) of the data belong to no entry"},
    {"out of order, listed required, holes allowed", L, H, NONE, 1, OPEN, {{"b", 16, 4}, {"a", 0, 16}}, 0, 0,
     AFMT_E_CONSTRAINT, "a", 110,
     "bytes [0, 16) come before \"b\" (bytes [16, 20), listed earlier): entries must be listed in data order"},
    {"hole at the start", A, T, NONE, 1, OPEN, {{"a", 4, 4}}, 0, 0, AFMT_E_CONSTRAINT, "a", 100,
     "a hole: bytes [0, 4) of the data belong to no entry"},
    {"hole between", A, T, NONE, 1, OPEN, {{"a", 0, 16}, {"b", 20, 4}}, 0, 0, AFMT_E_CONSTRAINT, "b", 110,
     "a hole: bytes [16, 20) of the data belong to no entry"},
    {"hole allowed", L, H, NONE, 1, 24, {{"a", 0, 16}, {"b", 20, 4}}, 1, 24, 0, NULL, 0, NULL},
    {"overlap", A, T, NONE, 1, OPEN, {{"a", 0, 16}, {"b", 8, 16}}, 0, 0, AFMT_E_CONSTRAINT, "b", 110,
     "overlaps \"a\" (bytes [0, 16))"},
    {"overlap with holes allowed", A, H, NONE, 1, OPEN, {{"b", 8, 16}, {"a", 0, 16}}, 0, 0, AFMT_E_CONSTRAINT, "b",
     100, "overlaps \"a\" (bytes [0, 16))"},
    {"same bytes twice: the later listed is blamed", A, T, NONE, 1, OPEN, {{"w0", 0, 16}, {"w1", 0, 16}}, 0, 0,
     AFMT_E_CONSTRAINT, "w1", 110, "overlaps \"w0\" (bytes [0, 16))"},
    {"zero size at the end tiles", A, T, NONE, 1, 16, {{"a", 0, 16}, {"z", 16, 0}}, 1, 16, 0, NULL, 0, NULL},
    {"zero size inside overlaps", A, T, NONE, 1, OPEN, {{"a", 0, 16}, {"z", 4, 0}}, 0, 0, AFMT_E_CONSTRAINT, "z",
     110, "overlaps \"a\" (bytes [0, 16))"},
    {"aligned tiling with padding", L, T, PAD, 32, 64, {{"a", 0, 20}, {"b", 32, 20}}, 1, 52, 0, NULL, 0, NULL},
    {"aligned tiling, padding of the last left out", L, T, PAD, 32, 52, {{"a", 0, 20}, {"b", 32, 20}}, 1, 52, 0,
     NULL, 0, NULL},
    {"misaligned begin", L, T, PAD, 32, OPEN, {{"a", 0, 20}, {"b", 40, 8}}, 0, 0, AFMT_E_CONSTRAINT, "b", 110,
     "offset 40 is not a multiple of the alignment 32"},
    {"in the previous one's padding", L, T, PAD, 32, OPEN, {{"a", 0, 20}, {"b", 24, 8}}, 0, 0, AFMT_E_CONSTRAINT,
     "b", 110, "offset 24 is not a multiple of the alignment 32"},
    {"aligned hole", L, T, PAD, 32, OPEN, {{"a", 0, 20}, {"b", 64, 8}}, 0, 0, AFMT_E_CONSTRAINT, "b", 110,
     "a hole: bytes [32, 64) of the data belong to no entry"},
    {"alignment not a power of two", L, T, NONE, 24, 30, {{"a", 0, 20}, {"b", 24, 6}}, 1, 30, 0, NULL, 0, NULL},
    {"more than the padding after the last", L, T, PAD, 32, 96, {{"a", 0, 20}, {"b", 32, 20}}, 0, 0,
     AFMT_E_TRAILING, "data", 1064, "bytes [64, 96) after the last entry \"b\" belong to no entry (more than its padding)"},
    {"a byte after the last, nothing allowed", L, T, NONE, 1, 21, {{"a", 0, 20}}, 0, 0, AFMT_E_TRAILING, "data",
     1020, "bytes [20, 21) after the last entry \"a\" belong to no entry"},
    {"past the area", A, T, NONE, 1, 16, {{"a", 0, 16}, {"b", 16, 4}}, 0, 0, AFMT_E_SIZE, "b", 110,
     "bytes [16, 20) end past the data area of 16 bytes"},
    {"end past 2^64", A, H, NONE, 1, OPEN, {{"a", UINT64_MAX - 3, 8}}, 0, 0, AFMT_E_OVERFLOW, "a", 100,
     "bytes [18446744073709551612, 18446744073709551612 + 8) end past 2^64"},
    {"padding past 2^64 leaves no room", L, T, PAD, 32, OPEN, {{"a", 0, UINT64_MAX - 3}, {"b", UINT64_MAX - 3, 0}},
     0, 0, AFMT_E_CONSTRAINT, "b", 110, "offset 18446744073709551612 is not a multiple of the alignment 32"},
    {"holes, listed, out of order but apart", L, H, NONE, 1, OPEN, {{"a", 0, 8}, {"b", 64, 8}, {"c", 16, 8}}, 0, 0,
     AFMT_E_CONSTRAINT, "c", 120,
     "bytes [16, 24) come before \"b\" (bytes [64, 72), listed earlier): entries must be listed in data order"},
};

static size_t count_of(const dcase *c)
{
    size_t n = 0;
    while (n < MAXE && c->e[n].name) n++;
    return n;
}

static void name_field(void *ctx, const afmt_dir_entry *e, char *out, size_t size)
{
    (void)ctx;
    snprintf(out, size, "%.*s", (int)e->name_len, e->name);
}

static void run_case(const dcase *c, int use_field)
{
    afmt_dir_entry e[MAXE], scratch[MAXE];
    afmt_dir_policy p;
    afmt_error err;
    uint64_t covered = 12345;
    size_t i, n = count_of(c);
    char name[256];
    int rc;
    memset(&p, 0, sizeof p);
    memset(&err, 0, sizeof err);
    p.order = c->order;
    p.layout = c->layout;
    p.tail = c->tail;
    p.align = c->align;
    p.area_size = c->area;
    p.area_base = 1000;
    p.area_field = "data";
    if (use_field) p.field = name_field;
    for (i = 0; i < n; i++) {
        e[i].begin = c->e[i].begin;
        e[i].size = c->e[i].size;
        e[i].index = i;
        e[i].name = c->e[i].name;
        e[i].name_len = strlen(c->e[i].name);
        e[i].record_offset = 100 + 10 * i;
    }
    rc = afmt_dir_check(&p, e, n, c->order == AFMT_DIR_ANY ? scratch : NULL, &covered, &err);
    snprintf(name, sizeof name, "dir%s: %s", use_field ? " (field callback)" : "", c->what);
    if (c->ok) {
        CHECK(name, rc == 0 && covered == c->covered);
        if (rc != 0) printf("  got: %s\n", err.message);
        return;
    }
    CHECK(name, rc == -1 && err.code == c->code && strcmp(err.field, c->field) == 0 && err.offset == c->offset &&
                    strcmp(err.message, c->message) == 0);
    if (rc == 0) printf("  accepted\n");
    else printf("  got: code %d field '%s' offset %llu: %s\n", (int)err.code, err.field,
                (unsigned long long)err.offset, err.message);
}

/* Sorting: every order of many entries, any duplicates of begin, comes
 * out in (begin, end, index) order; the tiling check then passes. */
static void test_sort(void)
{
    static const size_t sizes[] = {0, 1, 2, 17, 1000, 100000};
    size_t s;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s], i;
        int pattern;
        for (pattern = 0; pattern < 4; pattern++) {
            afmt_dir_entry *v = calloc(n ? n : 1, sizeof *v);
            afmt_dir_policy p;
            afmt_error err;
            uint64_t covered = 0, r = 88172645463325252ull;
            int sorted = 1, rc;
            char name[128];
            if (!v) exit(2);
            for (i = 0; i < n; i++) {
                size_t k = pattern == 0 ? i : pattern == 1 ? n - 1 - i : pattern == 2 ? (i * 7919) % n : i;
                if (pattern == 3) { /* random, then made a tiling below */
                    r ^= r << 13; r ^= r >> 7; r ^= r << 17;
                    k = (size_t)(r % n);
                }
                v[i].begin = 4 * (uint64_t)k;
                v[i].size = 4;
                v[i].index = i;
                v[i].name = "t";
                v[i].name_len = 1;
            }
            afmt_dir_sort(v, n);
            for (i = 1; i < n; i++)
                if (v[i].begin < v[i - 1].begin ||
                    (v[i].begin == v[i - 1].begin && v[i].index < v[i - 1].index))
                    sorted = 0;
            memset(&p, 0, sizeof p);
            p.order = AFMT_DIR_LISTED;
            p.layout = pattern == 3 ? AFMT_DIR_HOLES : AFMT_DIR_TILE;
            p.area_size = AFMT_DIR_AREA_OPEN;
            rc = afmt_dir_check(&p, v, n, NULL, &covered, &err);
            snprintf(name, sizeof name, "dir sort: %zu entries, pattern %d, in order", n, pattern);
            CHECK(name, sorted);
            snprintf(name, sizeof name, "dir sort: %zu entries, pattern %d, verdict", n, pattern);
            /* random keys repeat a begin: an overlap unless every one is new */
            if (pattern == 3) {
                int dup = 0;
                for (i = 1; i < n; i++) dup |= v[i].begin == v[i - 1].begin;
                CHECK(name, dup ? rc == -1 && err.code == AFMT_E_CONSTRAINT : rc == 0);
            } else {
                CHECK(name, rc == 0 && covered == 4 * (uint64_t)n);
            }
            free(v);
        }
    }
}

int main(void)
{
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_case(&cases[i], 0);
        run_case(&cases[i], 1);
    }
    test_sort();
    CHECK_DONE();
}
