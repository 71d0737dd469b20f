/* afmt runtime: a directory of arrays in a data area.  See afmt_dir.h.
 *
 * One walk in data order keeps `expect` (where the next entry must begin
 * under TILE) and the previous entry; every comparison is on values
 * already known not to overflow (begin + size is checked first, rounding
 * up to align is checked against 2^64).
 */
#include "afmt_dir.h"

#include <inttypes.h>
#include <string.h>

/* ------------------------------------------------------------ sort */

static int entry_less(const afmt_dir_entry *x, const afmt_dir_entry *y)
{
    if (x->begin != y->begin) return x->begin < y->begin;
    if (x->size != y->size) return x->size < y->size; /* same begin: by end */
    return x->index < y->index;
}

static void swap_entries(afmt_dir_entry *a, afmt_dir_entry *b)
{
    afmt_dir_entry t = *a;
    *a = *b;
    *b = t;
}

static void sift_down(afmt_dir_entry *v, size_t root, size_t n)
{
    for (;;) {
        size_t c = 2 * root + 1;
        if (c >= n) return;
        if (c + 1 < n && entry_less(&v[c], &v[c + 1])) c++;
        if (!entry_less(&v[root], &v[c])) return;
        swap_entries(&v[root], &v[c]);
        root = c;
    }
}

static void heap_sort(afmt_dir_entry *v, size_t n)
{
    size_t i;
    for (i = n / 2; i-- > 0;)
        sift_down(v, i, n);
    for (i = n; i-- > 1;) {
        swap_entries(&v[0], &v[i]);
        sift_down(v, 0, i);
    }
}

static void insertion_sort(afmt_dir_entry *v, size_t n)
{
    size_t i, j;
    for (i = 1; i < n; i++) {
        afmt_dir_entry t = v[i];
        for (j = i; j > 0 && entry_less(&t, &v[j - 1]); j--)
            v[j] = v[j - 1];
        v[j] = t;
    }
}

/* Quicksort (median of three), heapsort when a file's order makes the
 * recursion deep: O(n log n) whatever the order.  Recursion only into the
 * smaller part, so the stack holds at most log2(n) frames. */
static void intro_sort(afmt_dir_entry *v, size_t n, unsigned budget)
{
    while (n > 16) {
        size_t i, j, m = n / 2;
        if (budget-- == 0) {
            heap_sort(v, n);
            return;
        }
        if (entry_less(&v[m], &v[0])) swap_entries(&v[m], &v[0]);
        if (entry_less(&v[n - 1], &v[0])) swap_entries(&v[n - 1], &v[0]);
        if (entry_less(&v[n - 1], &v[m])) swap_entries(&v[n - 1], &v[m]);
        swap_entries(&v[m], &v[n - 2]); /* the pivot, out of the way */
        i = 0;
        j = n - 2;
        for (;;) {
            while (entry_less(&v[++i], &v[n - 2]))
                ;
            while (entry_less(&v[n - 2], &v[--j]))
                ;
            if (i >= j) break;
            swap_entries(&v[i], &v[j]);
        }
        swap_entries(&v[i], &v[n - 2]);
        if (i < n - i - 1) {
            intro_sort(v, i, budget);
            v += i + 1;
            n -= i + 1;
        } else {
            intro_sort(v + i + 1, n - i - 1, budget);
            n = i;
        }
    }
    insertion_sort(v, n);
}

void afmt_dir_sort(afmt_dir_entry *entries, size_t n)
{
    size_t i;
    unsigned budget = 0;
    for (i = 1; i < n && !entry_less(&entries[i], &entries[i - 1]); i++)
        ;
    if (i >= n)
        return; /* listed in data order: the common case */
    for (i = n; i > 1; i >>= 1)
        budget += 2;
    intro_sort(entries, n, budget);
}

/* ------------------------------------------------------------ errors */

static void field_of(const afmt_dir_policy *p, const afmt_dir_entry *e, char *out, size_t size)
{
    size_t n;
    if (p->field) {
        out[0] = '\0';
        p->field(p->field_ctx, e, out, size);
        out[size - 1] = '\0';
        return;
    }
    n = e->name_len < size - 1 ? e->name_len : size - 1;
    if (n) memcpy(out, e->name, n);
    out[n] = '\0';
}

/* The name cut to 63 bytes, for messages. */
static int shown_len(const afmt_dir_entry *e) { return (int)(e->name_len < 63 ? e->name_len : 63); }

static const char *shown(const afmt_dir_entry *e) { return e->name ? e->name : ""; }

#define FAIL_AT(p, e, code, ...)                                                                  \
    do {                                                                                          \
        char field_[AFMT_FIELD_MAX];                                                              \
        field_of((p), (e), field_, sizeof field_);                                                \
        return afmt_fail(err, (code), (p)->path, field_, AFMT_NO_INDEX, (e)->record_offset, __VA_ARGS__); \
    } while (0)

/* ------------------------------------------------------------ check */

/* One entry after prev (NULL: the first), with *expect where TILE wants
 * it; advances *expect. */
static int check_one(const afmt_dir_policy *p, const afmt_dir_entry *e, const afmt_dir_entry *prev,
                     uint64_t *expect, afmt_error *err)
{
    uint64_t align = p->align ? p->align : 1, end = e->begin + e->size, next;
    if (end < e->begin)
        FAIL_AT(p, e, AFMT_E_OVERFLOW, "bytes [%" PRIu64 ", %" PRIu64 " + %" PRIu64 ") end past 2^64", e->begin,
                e->begin, e->size);
    if (prev && e->begin < prev->begin + prev->size) {
        if (e->begin >= prev->begin)
            FAIL_AT(p, e, AFMT_E_CONSTRAINT, "overlaps \"%.*s\" (bytes [%" PRIu64 ", %" PRIu64 "))",
                    shown_len(prev), shown(prev), prev->begin, prev->begin + prev->size);
        FAIL_AT(p, e, AFMT_E_CONSTRAINT,
                "bytes [%" PRIu64 ", %" PRIu64 ") come before \"%.*s\" (bytes [%" PRIu64 ", %" PRIu64
                "), listed earlier): entries must be listed in data order",
                e->begin, end, shown_len(prev), shown(prev), prev->begin, prev->begin + prev->size);
    }
    if (align > 1 && e->begin % align != 0)
        FAIL_AT(p, e, AFMT_E_CONSTRAINT, "offset %" PRIu64 " is not a multiple of the alignment %" PRIu64, e->begin,
                align);
    if (p->layout == AFMT_DIR_TILE && e->begin != *expect)
        FAIL_AT(p, e, AFMT_E_CONSTRAINT, "a hole: bytes [%" PRIu64 ", %" PRIu64 ") of the data belong to no entry",
                *expect, e->begin);
    if (p->area_size != AFMT_DIR_AREA_OPEN && end > p->area_size)
        FAIL_AT(p, e, AFMT_E_SIZE, "bytes [%" PRIu64 ", %" PRIu64 ") end past the data area of %" PRIu64 " bytes",
                e->begin, end, p->area_size);
    next = align > 1 && end % align ? end + (align - end % align) : end;
    *expect = next < end ? UINT64_MAX : next; /* past 2^64: nothing can follow */
    return 0;
}

/* What follows the last entry (last: NULL when there is none). */
static int check_tail(const afmt_dir_policy *p, const afmt_dir_entry *last, uint64_t end, uint64_t expect,
                      afmt_error *err)
{
    uint64_t limit = p->tail == AFMT_DIR_TAIL_PAD ? expect : end;
    if (p->area_size == AFMT_DIR_AREA_OPEN || p->area_size <= limit)
        return 0; /* area_size >= end: check_one saw every end */
    if (!last)
        return afmt_fail(err, AFMT_E_TRAILING, p->path, p->area_field, AFMT_NO_INDEX, p->area_base,
                         "bytes [0, %" PRIu64 ") of the data belong to no entry (there is none)", p->area_size);
    return afmt_fail(err, AFMT_E_TRAILING, p->path, p->area_field, AFMT_NO_INDEX,
                     p->area_base + limit < p->area_base ? UINT64_MAX : p->area_base + limit,
                     "bytes [%" PRIu64 ", %" PRIu64 ") after the last entry \"%.*s\" belong to no entry%s", limit,
                     p->area_size, shown_len(last), shown(last),
                     p->tail == AFMT_DIR_TAIL_PAD ? " (more than its padding)" : "");
}

int afmt_dir_check(const afmt_dir_policy *policy, const afmt_dir_entry *entries, size_t n,
                   afmt_dir_entry *scratch, uint64_t *covered, afmt_error *err)
{
    const afmt_dir_entry *v = entries, *prev = NULL;
    uint64_t expect = 0, end = 0;
    size_t i;
    if (policy->order == AFMT_DIR_ANY && n) {
        if (scratch != entries)
            memcpy(scratch, entries, n * sizeof *entries);
        afmt_dir_sort(scratch, n);
        v = scratch;
    }
    for (i = 0; i < n; i++) {
        if (check_one(policy, &v[i], prev, &expect, err) != 0)
            return -1;
        prev = &v[i];
        end = prev->begin + prev->size;
    }
    if (check_tail(policy, prev, end, expect, err) != 0)
        return -1;
    if (covered)
        *covered = end;
    return 0;
}
