/* Views of archive members and the names the archive writer gives
 * members.
 *
 * 1. A deflated member's views (np.savez_compressed's members, a
 *    deflated torch record in lenient mode) point into bytes the
 *    validator inflated and frees before validate returns: each says so
 *    (afmt_array.data_transient), its offset is the compressed data's, and
 *    afmt_views_add keeps a copy of its bytes, so that the views kept
 *    decode after the run to what they held during it.  A stored member's
 *    views point into the input and are not copied.  (Before, the kept
 *    views of a compressed npz dangled: every round trip and conversion
 *    of one read freed memory.)
 * 2. npz names each member after its array: a name that cannot be an npz
 *    member ('/', '\\', "..", not UTF-8, cut to AFMT_NAME_MAX - 1 bytes) is
 *    refused as the array's (AFMT_E_TYPE, field array[0], no offset), not
 *    written (a member "a/b.npy" its own validator refuses) nor called a
 *    usage error; so is the second of two names that give one member.
 *
 * Files are read from $AFMT_CORPUS, else ./corpus (tests/run.sh runs from
 * the repository root): the regression files of the two dangling cases
 * and a torch seed; the stored npz is afmt's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afmt.h"
#include "check.h"
#include "../../fuzz/read_file.h"

typedef struct view_case {
    const char *file;   /* under the corpus folder */
    const char *format;
    afmt_mode mode;
    size_t arrays;      /* views handed over */
    int transient;      /* each of them data_transient */
} view_case;

static const view_case VIEW_CASES[] = {
    {"regressions/roundtrip-npz-deflated-member-view-dangles", "npz", AFMT_STRICT, 1, 1},
    {"regressions/roundtrip-torch-lenient-deflated-record-view-dangles", "torch", AFMT_LENIENT, 2, 1},
    {"torch/tied.pt", "torch", AFMT_STRICT, 4, 0},
    {NULL, "npz", AFMT_STRICT, 1, 0}, /* a stored npz afmt writes (stored_npz) */
};

#define MAX_VIEWS 8

/* What on_array saw: each view's flag, offset and plain bytes, decoded
 * during the call. */
typedef struct seen {
    size_t n;
    int transient[MAX_VIEWS];
    int inside[MAX_VIEWS];        /* data points into the input */
    uint64_t offset[MAX_VIEWS];
    uint8_t *plain[MAX_VIEWS];
    uint64_t plain_size[MAX_VIEWS];
    afmt_views *keep;
    const uint8_t *buf;
    uint64_t len;
} seen;

static uint8_t *decode(const afmt_array *a, uint64_t *size)
{
    afmt_error err;
    uint8_t *p;
    if (afmt_array_plain_size(a, size, &err) != 0 || !(p = malloc(*size ? *size : 1)))
        return NULL;
    if (afmt_array_to_plain(a, AFMT_ROW_MAJOR, p, *size, &err) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

static int on_array(void *ctx, const afmt_array *a)
{
    seen *s = ctx;
    if (s->n < MAX_VIEWS) {
        s->transient[s->n] = a->data_transient;
        s->inside[s->n] = a->data >= s->buf && a->data <= s->buf + s->len;
        s->offset[s->n] = a->offset;
        s->plain[s->n] = decode(a, &s->plain_size[s->n]);
    }
    s->n++;
    return afmt_views_add(s->keep, a);
}

/* An npz of one stored member, as afmt's writer makes it (malloc'd; NULL
 * if it cannot be made). */
static uint8_t *stored_npz(uint64_t *len)
{
    static const int16_t values[4] = {1, -2, 3, -4};
    const afmt_format *npz = afmt_format_by_name("npz");
    afmt_array a;
    afmt_error err;
    afmt_sink sink;
    uint8_t *buf;

    afmt_array_init(&a, AFMT_I16);
    a.rank = 1;
    a.dims[0] = 4;
    a.count = 4;
    a.data = (const uint8_t *)values;
    a.nbytes = sizeof values;
    snprintf(a.name, sizeof a.name, "w");
    if (npz->encoded_size(&a, 1, NULL, len, &err) != 0 || !(buf = malloc((size_t)*len)))
        return NULL;
    afmt_sink_buffer(&sink, buf, (size_t)*len);
    if (npz->write(&a, 1, NULL, &sink, &err) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void check_views(const char *corpus, const view_case *vc)
{
    const char *file = vc->file ? vc->file : "a stored npz";
    char path[4096], name[512];
    uint64_t len;
    uint8_t *buf;
    afmt_views keep;
    afmt_visitor vis;
    afmt_options opt;
    afmt_error err;
    seen s;
    size_t i;
    int rc;

    if (vc->file) {
        snprintf(path, sizeof path, "%s/%s", corpus, vc->file);
        buf = fz_read_file(path, &len);
    } else {
        buf = stored_npz(&len);
    }
    snprintf(name, sizeof name, "%s is readable", vc->file ? vc->file : "a stored npz");
    CHECK(name, buf != NULL);
    if (!buf)
        return;
    afmt_views_init(&keep, MAX_VIEWS);
    memset(&s, 0, sizeof s);
    s.keep = &keep;
    s.buf = buf;
    s.len = len;
    memset(&vis, 0, sizeof vis);
    vis.ctx = &s;
    vis.on_array = on_array;
    afmt_options_default(&opt);
    opt.mode = vc->mode;
    rc = afmt_format_by_name(vc->format)->validate(buf, len, &opt, &vis, &err);
    snprintf(name, sizeof name, "%s: valid, %zu views", file, vc->arrays);
    CHECK(name, rc == 0 && s.n == vc->arrays && keep.n == vc->arrays && !keep.oom);
    for (i = 0; i < s.n && i < keep.n && i < MAX_VIEWS; i++) {
        uint64_t size = 0;
        uint8_t *after;
        snprintf(name, sizeof name, "%s view %zu: data_transient %d, offset inside the input", file, i,
                 vc->transient);
        CHECK(name, s.transient[i] == vc->transient && s.offset[i] <= len);
        snprintf(name, sizeof name, "%s view %zu: its data %s the input", file, i,
                 vc->transient ? "outside" : "inside");
        CHECK(name, s.inside[i] == !vc->transient);
        snprintf(name, sizeof name, "%s view %zu kept: %s, data_transient 0", file, i,
                 vc->transient ? "a copy of its bytes" : "no copy, data in the input");
        CHECK(name, keep.v[i].data_transient == 0 && (keep.copies[i] != NULL) == vc->transient &&
                        (vc->transient ? keep.v[i].data == keep.copies[i]
                                       : keep.v[i].data >= buf && keep.v[i].data <= buf + len));
        after = decode(&keep.v[i], &size);
        snprintf(name, sizeof name, "%s view %zu kept decodes after the run as during it", file, i);
        CHECK(name, after && s.plain[i] && size == s.plain_size[i] && memcmp(after, s.plain[i], size) == 0);
        free(after);
    }
    for (i = 0; i < s.n && i < MAX_VIEWS; i++)
        free(s.plain[i]);
    afmt_views_reset(&keep);
    snprintf(name, sizeof name, "%s: afmt_views_reset frees the copies", file);
    CHECK(name, keep.n == 0 && (keep.cap == 0 || keep.copies[0] == NULL));
    afmt_views_free(&keep);
    free(buf);
}

typedef struct name_case {
    const char *what;
    const char *name;
    uint64_t name_len;  /* 0: strlen(name) */
    afmt_code code;     /* AFMT_OK: written */
    const char *why;    /* a part of the message */
} name_case;

static const name_case NAME_CASES[] = {
    {"a plain name", "weights", 0, AFMT_OK, NULL},
    {"a name with a dot", "w.npy", 0, AFMT_OK, NULL},
    {"UTF-8", "\xc3\xa9t\xc3\xa9", 0, AFMT_OK, NULL},
    {"a '/' in the name", "enc/w", 0, AFMT_E_TYPE, "is no member name of the format"},
    {"a backslash", "a\\b", 0, AFMT_E_TYPE, "a backslash in the name"},
    {"a '..' component", "../w", 0, AFMT_E_TYPE, "a '..' component"},
    {"not UTF-8", "w\xff", 0, AFMT_E_TYPE, "not valid UTF-8"},
    {"an absolute name", "/w", 0, AFMT_E_TYPE, "an absolute name"},
    {"a name cut to what the view holds", "long", 300, AFMT_E_TYPE, "a name of 300 bytes"},
};

static void check_names(void)
{
    const afmt_format *npz = afmt_format_by_name("npz");
    static const float values[3] = {1, 2, 3};
    size_t k;

    for (k = 0; k < sizeof NAME_CASES / sizeof NAME_CASES[0]; k++) {
        const name_case *nc = &NAME_CASES[k];
        char name[256];
        afmt_array a;
        afmt_error err;
        uint64_t size = 0;
        int rc;

        afmt_array_init(&a, AFMT_F32);
        a.rank = 1;
        a.dims[0] = 3;
        a.count = 3;
        a.data = (const uint8_t *)values;
        a.nbytes = sizeof values;
        snprintf(a.name, sizeof a.name, "%s", nc->name);
        a.name_len = nc->name_len;
        afmt_error_clear(&err);
        rc = npz->can_write(&a, &err);
        if (nc->code == AFMT_OK) {
            snprintf(name, sizeof name, "npz writes an array named by %s", nc->what);
            CHECK(name, rc == 0 && npz->encoded_size(&a, 1, NULL, &size, &err) == 0 && size > 0);
            continue;
        }
        snprintf(name, sizeof name, "npz refuses an array named by %s: %s, field array[0], no offset", nc->what,
                 afmt_code_name(nc->code));
        CHECK(name, rc != 0 && err.code == nc->code && strcmp(err.field, "array[0]") == 0 &&
                        err.offset == AFMT_NO_OFFSET && strstr(err.message, nc->why) != NULL);
        if (rc != 0 && (err.code != nc->code || !strstr(err.message, nc->why)))
            printf("  got %s at %s: %s\n", afmt_code_name(err.code), err.field, err.message);
    }
}

/* afmt_views_add on transient views made by hand: every region a view
 * points at is copied (a CSR view's values, row offsets and column
 * indices), and a view's dims count only where they size a region. */
typedef struct copy_case {
    const char *what;
    uint64_t dims0, dims1, nnz;
    int csr;
} copy_case;

static const copy_case COPY_CASES[] = {
    {"a plain view", 2, 3, 0, 0},
    {"an empty view of 2^64-1 rows", UINT64_MAX, 0, 0, 0},
    {"a CSR view of 3 rows, 2 values", 3, 4, 2, 1},
};

static void check_copies(void)
{
    static const uint8_t bytes[64] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    size_t k;

    for (k = 0; k < sizeof COPY_CASES / sizeof COPY_CASES[0]; k++) {
        const copy_case *cc = &COPY_CASES[k];
        afmt_views vs;
        afmt_array a;
        char name[256];
        const afmt_array *kept;

        afmt_array_init(&a, AFMT_U8);
        a.rank = 2;
        a.dims[0] = cc->dims0;
        a.dims[1] = cc->dims1;
        a.count = cc->dims0 * cc->dims1; /* (0 for the empty one) */
        a.data = bytes;
        a.nbytes = cc->csr ? cc->nnz : (cc->dims1 ? cc->dims0 * cc->dims1 : 0);
        a.data_transient = 1;
        if (cc->csr) {
            a.encoding = AFMT_ENC_CSR;
            a.nnz = cc->nnz;
            a.csr_index_size = 4;
            a.csr_row_offsets = bytes + 16;
            a.csr_col_indices = bytes + 32;
        }
        afmt_views_init(&vs, 4);
        afmt_views_add(&vs, &a);
        kept = vs.n == 1 && vs.cap > 0 ? &vs.v[0] : NULL;
        snprintf(name, sizeof name, "afmt_views_add copies %s", cc->what);
        CHECK(name, kept && !vs.oom && vs.copies[0] && kept->data == vs.copies[0] && kept->data_transient == 0 &&
                        memcmp(kept->data, bytes, (size_t)a.nbytes) == 0);
        if (cc->csr) {
            snprintf(name, sizeof name, "afmt_views_add copies %s: offsets and indices too", cc->what);
            CHECK(name, kept && kept->csr_row_offsets == kept->data + a.nbytes &&
                            kept->csr_col_indices == kept->csr_row_offsets + 4 * (cc->dims0 + 1) &&
                            memcmp(kept->csr_row_offsets, bytes + 16, 16) == 0 &&
                            memcmp(kept->csr_col_indices, bytes + 32, 8) == 0);
        }
        afmt_views_free(&vs);
    }
}

/* Two arrays, named first and second: npz writes them, or refuses the
 * second's name (AFMT_E_TYPE, array[1]) when both would be one member. */
typedef struct pair_case {
    const char *what, *first, *second;
    afmt_code code;
} pair_case;

static const pair_case PAIR_CASES[] = {
    {"two names", "a", "b", AFMT_OK},
    {"two unnamed arrays (arr_0, arr_1)", "", "", AFMT_OK},
    {"one name twice", "w", "w", AFMT_E_CONSTRAINT},
    {"an unnamed array 1 beside one named arr_1", "arr_1", "", AFMT_E_CONSTRAINT},
};

/* No array at all: np.savez() writes an empty zip, and so does afmt;
 * npz's validator accepts it (and under UBSan, neither sorts a NULL list
 * of names: validate-npz-no-member-sorted-through-null). */
static void check_empty(void)
{
    const afmt_format *npz = afmt_format_by_name("npz");
    uint8_t out[256];
    afmt_sink sink;
    afmt_error err;
    uint64_t size = 0;
    int ok;

    afmt_sink_buffer(&sink, out, sizeof out);
    ok = npz->encoded_size(NULL, 0, NULL, &size, &err) == 0 && size > 0 && size <= sizeof out &&
         npz->write(NULL, 0, NULL, &sink, &err) == 0 && npz->validate(out, size, NULL, NULL, &err) == 0;
    CHECK("npz writes no array as an empty archive its validator accepts", ok);
}

static void check_pairs(void)
{
    const afmt_format *npz = afmt_format_by_name("npz");
    static const uint8_t values[2] = {1, 2};
    size_t k;

    for (k = 0; k < sizeof PAIR_CASES / sizeof PAIR_CASES[0]; k++) {
        const pair_case *pc = &PAIR_CASES[k];
        afmt_array a[2];
        afmt_error err;
        uint64_t size = 0;
        char name[256];
        int i, rc;

        for (i = 0; i < 2; i++) {
            afmt_array_init(&a[i], AFMT_U8);
            a[i].rank = 1;
            a[i].dims[0] = 2;
            a[i].count = 2;
            a[i].data = values;
            a[i].nbytes = sizeof values;
            snprintf(a[i].name, sizeof a[i].name, "%s", i ? pc->second : pc->first);
        }
        afmt_error_clear(&err);
        rc = npz->encoded_size(a, 2, NULL, &size, &err);
        if (pc->code == AFMT_OK) {
            snprintf(name, sizeof name, "npz writes %s", pc->what);
            CHECK(name, rc == 0 && size > 0);
            continue;
        }
        /* one rule for every writer of named arrays (docs/API.md): the
         * later array's name, before any member is written */
        snprintf(name, sizeof name, "npz refuses %s: %s, field name[1], no offset", pc->what,
                 afmt_code_name(pc->code));
        CHECK(name, rc != 0 && err.code == pc->code && strcmp(err.field, "name[1]") == 0 &&
                        err.offset == AFMT_NO_OFFSET && strstr(err.message, "array 0 has it too") != NULL);
        if (rc != 0 && err.code != pc->code)
            printf("  got %s at %s: %s\n", afmt_code_name(err.code), err.field, err.message);
    }
}

int main(void)
{
    const char *corpus = getenv("AFMT_CORPUS");
    size_t k;

    if (!corpus || !corpus[0])
        corpus = "corpus";
    for (k = 0; k < sizeof VIEW_CASES / sizeof VIEW_CASES[0]; k++)
        check_views(corpus, &VIEW_CASES[k]);
    check_copies();
    check_names();
    check_pairs();
    check_empty();
    CHECK_DONE();
}
