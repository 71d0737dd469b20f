/* Unit tests of map headers (runtime/text/afmt_header_arrays.c through the generated
 * safetensors validator): many entries (more than the old sorting
 * window, WINDOW) in any JSON order are checked and handed over in data
 * order; a hole or an overlap far into the data is named with the right
 * tensors and offsets; limits.max_depth and limits.max_items hold; the
 * list of a large header is given back (docs/SECURITY.md, I3). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afmt.h"
#include "text/afmt_header_arrays.h"
#include "safetensors.h"
#include "check.h"

/* Entries that once made one sorting window of the map check (its old
 * WINDOW): sizes around and past it are kept as cases. */
#define WINDOW 6144

typedef struct st_buf {
    uint8_t *p;
    size_t len, cap;
} st_buf;

static void put(st_buf *b, const char *s, size_t n)
{
    if (b->len + n > b->cap) {
        size_t c = b->cap ? b->cap : 4096;
        while (c < b->len + n) c *= 2;
        b->p = realloc(b->p, c);
        if (!b->p) { fprintf(stderr, "out of memory\n"); exit(2); }
        b->cap = c;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

/* n tensors u8[4] named t00000..., written to JSON in reverse order
 * (so that sorting matters); tensor `bad` (if < n) gets the data range
 * [begin, begin + 4) with begin shifted by `shift` bytes. */
static st_buf make(unsigned n, unsigned bad, long shift)
{
    st_buf h = {0}, f = {0};
    char e[128];
    unsigned i;
    uint64_t hl;
    put(&h, "{", 1);
    for (i = n; i-- > 0;) {
        long b = (long)i * 4 + (i == bad ? shift : 0);
        int l = snprintf(e, sizeof e, "%s\"t%05u\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[%ld,%ld]}",
                         i == n - 1 ? "" : ",", i, b, b + 4);
        put(&h, e, (size_t)l);
    }
    put(&h, "}", 1);
    while (h.len % 8) put(&h, " ", 1);
    hl = h.len;
    for (i = 0; i < 8; i++) {
        char c = (char)(hl >> (8 * i));
        put(&f, &c, 1);
    }
    put(&f, (const char *)h.p, h.len);
    for (i = 0; i < n * 4; i++) put(&f, "\0", 1);
    free(h.p);
    return f;
}

typedef struct seen {
    unsigned n, in_order;
    uint64_t last_offset;
    char first[AFMT_NAME_MAX], last[AFMT_NAME_MAX];
} seen;

static int on_array(void *ctx, const afmt_array *a)
{
    seen *s = ctx;
    if (s->n == 0) snprintf(s->first, sizeof s->first, "%s", a->name);
    else if (a->offset <= s->last_offset || a->index != s->n) s->in_order = 0;
    snprintf(s->last, sizeof s->last, "%s", a->name);
    s->last_offset = a->offset;
    s->n++;
    return 0;
}

static void describe(const afmt_error *e, char *out, size_t n) { afmt_error_describe(e, out, n); }

static void test_windows(void)
{
    static const struct {
        const char *name;
        unsigned n, bad;
        long shift;
        const char *message; /* NULL: valid */
    } cases[] = {
        {"one window", 1000, ~0u, 0, NULL},
        {"exactly one window", WINDOW, ~0u, 0, NULL},
        {"three windows", 3 * WINDOW + 5, ~0u, 0, NULL},
        {"hole in the third window", 3 * WINDOW + 5, 9000, 4, NULL},
        {"overlap across windows", 3 * WINDOW + 5, WINDOW, -2, NULL},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        st_buf f = make(cases[i].n, cases[i].bad, cases[i].shift);
        afmt_options o;
        afmt_visitor v;
        afmt_error e;
        seen s;
        char got[512], name[128];
        int rc;
        afmt_options_default(&o);
        o.limits.max_header_bytes = (uint64_t)1 << 30;
        memset(&v, 0, sizeof v);
        memset(&s, 0, sizeof s);
        s.in_order = 1;
        v.ctx = &s;
        v.on_array = on_array;
        rc = afmt_safetensors_validate(f.p, f.len, &o, &v, &e);
        snprintf(name, sizeof name, "map windows: %s", cases[i].name);
        if (cases[i].bad == ~0u) {
            char want_last[32];
            snprintf(want_last, sizeof want_last, "t%05u", cases[i].n - 1);
            CHECK(name, rc == 0 && s.n == cases[i].n && s.in_order && strcmp(s.first, "t00000") == 0 &&
                            strcmp(s.last, want_last) == 0);
        } else if (cases[i].shift > 0) {
            /* t09000 starts 4 bytes late: [36000, 36004) is nobody's.  It
             * shares its range with t09001, which is earlier in the JSON
             * (reverse order), so sorts first and is the one named. */
            describe(&e, got, sizeof got);
            CHECK(name, rc != 0 && e.code == AFMT_E_CONSTRAINT &&
                            strstr(got, "header[\"t09001\"].data_offsets at offset ") &&
                            strstr(got, "a hole: bytes [36000, 36004) of the data belong to no entry"));
            if (!(rc != 0 && strstr(got, "t09001"))) printf("  got: %s\n", got);
        } else {
            /* the first entry of the second window overlaps the last of
             * the first */
            char want_path[64], want_msg[96];
            snprintf(want_path, sizeof want_path, "header[\"t%05u\"].data_offsets", WINDOW);
            snprintf(want_msg, sizeof want_msg, "overlaps \"t%05u\" (bytes [%u, %u))", WINDOW - 1,
                     4 * WINDOW - 4, 4 * WINDOW);
            describe(&e, got, sizeof got);
            CHECK(name, rc != 0 && e.code == AFMT_E_CONSTRAINT && strstr(got, want_path) && strstr(got, want_msg));
            if (!(rc != 0 && strstr(got, want_path))) printf("  got: %s\n", got);
        }
        free(f.p);
    }
}

static void test_limits(void)
{
    st_buf f = make(3, ~0u, 0);
    afmt_options o;
    afmt_error e;
    char got[512];
    afmt_options_default(&o);
    CHECK("default max_depth is 32", o.limits.max_depth == 32);
    o.limits.max_depth = 2;
    CHECK("max_depth 2 holds a tensor's shape list (depth 3)",
          afmt_safetensors_validate(f.p, f.len, &o, NULL, &e) != 0 && e.code == AFMT_E_LIMIT);
    describe(&e, got, sizeof got);
    CHECK("max_depth message names the limit", strstr(got, "nested deeper than 2 levels (limits.max_depth)") != NULL);
    o.limits.max_depth = 3;
    CHECK("max_depth 3 is enough", afmt_safetensors_validate(f.p, f.len, &o, NULL, &e) == 0);
    o.limits.max_items = 2;
    CHECK("max_items holds the number of tensors",
          afmt_safetensors_validate(f.p, f.len, &o, NULL, &e) != 0 && e.code == AFMT_E_LIMIT);
    free(f.p);
}

/* Duplicate names in maps of every size: sorted in the work area (fewer
 * keys than it holds) or found by the parser's passes (more): the same
 * message.  The JSON lists t{n-1} .. t00000; t00001 renamed t00000 makes
 * the last entry the redefinition. */
static void test_duplicates(void)
{
    static const unsigned sizes[] = {20, 1000, 3 * WINDOW + 5};
    size_t i;
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        st_buf f = make(sizes[i], ~0u, 0);
        afmt_options o;
        afmt_error e;
        char got[512], name[96];
        uint8_t *q = f.p + 8;
        int rc;
        while (memcmp(q, "\"t00001\"", 8) != 0) q++;
        memcpy(q, "\"t00000\"", 8);
        afmt_options_default(&o);
        o.limits.max_header_bytes = (uint64_t)1 << 30;
        rc = afmt_safetensors_validate(f.p, f.len, &o, NULL, &e);
        describe(&e, got, sizeof got);
        snprintf(name, sizeof name, "map of %u entries: a duplicate name", sizes[i]);
        CHECK(name, rc != 0 && e.code == AFMT_E_CONSTRAINT && strstr(got, "header[\"t00000\"] at offset ") &&
                        strstr(got, "duplicate key: it is already defined at offset ") &&
                        e.offset > (uint64_t)(q - f.p));
        if (!(rc != 0 && strstr(got, "duplicate key"))) printf("  got: %s\n", got);
        free(f.p);
    }
}

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33)) && \
    !defined(__SANITIZE_ADDRESS__)
#include <malloc.h>
#define HAVE_HEAP_METER 1
static size_t heap_in_use(void) { return mallinfo2().uordblks + mallinfo2().hblkhd; }
#endif

/* A header of 100,003 entries in reverse order and one in data order:
 * the list is allocated (it does not fit the stack area) and all of it
 * is given back, whatever the verdict. */
static void test_memory_returned(void)
{
#ifdef HAVE_HEAP_METER
    static const long shifts[] = {0, 4};
    size_t i;
    for (i = 0; i < 2; i++) {
        st_buf f = make(100003, i ? 50000 : ~0u, shifts[i]);
        afmt_options o;
        afmt_error e;
        size_t before, after;
        int rc;
        char name[128];
        afmt_options_default(&o);
        rc = afmt_safetensors_validate(f.p, f.len, &o, NULL, &e); /* warm the allocator */
        before = heap_in_use();
        rc = afmt_safetensors_validate(f.p, f.len, &o, NULL, &e);
        after = heap_in_use();
        snprintf(name, sizeof name, "memory: a map of 100003 entries (%s) gives back every byte it took",
                 i ? "a hole" : "valid");
        CHECK(name, (rc == 0) == (i == 0) && after == before);
        if (!((rc == 0) == (i == 0) && after == before))
            printf("  rc %d, heap %zu -> %zu: %s\n", rc, before, after, rc ? e.message : "");
        free(f.p);
    }
#else
    printf("note: no mallinfo2 in this build: the memory check of large map headers is skipped\n");
#endif
}

int main(void)
{
    test_memory_returned();
    test_windows();
    test_duplicates();
    test_limits();
    CHECK_DONE();
}
