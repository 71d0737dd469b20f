/* afmt runtime: archive member names: the fields that name them, the rules
 * a name must follow, and the sorted list that finds duplicates and looks
 * names up (see afmt_ar_run.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afmt_ar_run.h"

/* How much of a name a field shows (escaped bytes), so that a path and a
 * member's own field still fit AFMT_FIELD_MAX. */
#define FIELD_NAME_MAX 96

void afmt_ar_quote(const uint8_t *name, size_t len, size_t max, char *out, size_t cap)
{
    size_t i, o = 0;

    if (cap == 0)
        return;
    for (i = 0; i < len; i++) {
        char piece[8];
        uint8_t c = name[i];
        size_t k;
        if (c == '"' || c == '\\')
            snprintf(piece, sizeof piece, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            snprintf(piece, sizeof piece, "%c", c);
        else
            snprintf(piece, sizeof piece, "\\x%02x", c);
        k = strlen(piece);
        if (o + k > max || o + k + 4 > cap) {
            if (o + 4 <= cap)
                memcpy(out + o, "...", 3), o += 3;
            break;
        }
        memcpy(out + o, piece, k);
        o += k;
    }
    out[o] = '\0';
}

void afmt_ar_field(const afmt_ar_run *r, const afmt_ar_member *m, const char *sub, char *out, size_t cap)
{
    char quoted[FIELD_NAME_MAX + 8];

    if (m) {
        afmt_ar_quote(m->name, m->name_len, FIELD_NAME_MAX, quoted, sizeof quoted);
        snprintf(out, cap, "%s[\"%s\"]%s%s", r->d->name, quoted, sub ? "." : "", sub ? sub : "");
    } else {
        snprintf(out, cap, "%s%s%s", r->d->name, sub ? "." : "", sub ? sub : "");
    }
}

/* The length of the UTF-8 sequence at p[0..n) (2 to 4), or 0 when it is
 * not one: overlong forms, surrogates and values past U+10FFFF refused. */
static size_t utf8_length(const uint8_t *p, size_t n)
{
    uint32_t c;
    size_t k, i;

    if (p[0] >= 0xc2 && p[0] <= 0xdf) k = 2, c = p[0] & 0x1fu;
    else if (p[0] >= 0xe0 && p[0] <= 0xef) k = 3, c = p[0] & 0x0fu;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4) k = 4, c = p[0] & 0x07u;
    else return 0;
    if (n < k)
        return 0;
    for (i = 1; i < k; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (p[i] & 0x3fu);
    }
    if ((k == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) || (k == 4 && (c < 0x10000 || c > 0x10ffff)))
        return 0;
    return k;
}

/* What is wrong with name[0..len) as a path, and at which byte; NULL when
 * nothing (bytes above 0x7f are judged by the caller). */
static const char *path_problem(const uint8_t *name, size_t len, size_t *at)
{
    size_t i, start = 0;

    *at = 0;
    if (len == 0)
        return "an empty name";
    if (name[0] == '/')
        return "an absolute name (it starts with '/')";
    for (i = 0; i <= len; i++) {
        size_t clen;
        if (i < len && name[i] == '\0')
            return *at = i, "a NUL byte in the name";
        if (i < len && name[i] == '\\')
            return *at = i, "a backslash in the name (a path separator to some readers)";
        if (i < len && name[i] != '/')
            continue;
        clen = i - start;
        *at = start;
        if (clen == 0)
            return i == len ? "an empty last component (the name ends with '/')"
                            : "an empty component (two '/' in a row)";
        if (clen == 1 && name[start] == '.')
            return "a '.' component";
        if (clen == 2 && name[start] == '.' && name[start + 1] == '.')
            return "a '..' component (it reaches outside the archive)";
        start = i + 1;
    }
    return NULL;
}

const char *afmt_ar_name_problem(const uint8_t *name, size_t len, int utf8, size_t *at)
{
    const char *why = path_problem(name, len, at);
    size_t i;

    if (why)
        return why;
    for (i = 0; i < len; i++) {
        size_t k;
        if (name[i] < 0x80)
            continue;
        *at = i;
        if (!utf8)
            return "a byte above 0x7f in a name not marked UTF-8 (bit 11): readers decode it differently";
        if ((k = utf8_length(name + i, len - i)) == 0)
            return "the name is not valid UTF-8 there";
        i += k - 1;
    }
    return NULL;
}

int afmt_ar_check_name(afmt_ar_run *r, const afmt_ar_member *m, int utf8, const char *sub)
{
    size_t at;
    const char *why = path_problem(m->name, m->name_len, &at);

    if (why)
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, sub, m->name_off + at, "%s", why);
    if ((why = afmt_ar_name_problem(m->name, m->name_len, utf8, &at)) == NULL)
        return 0;
    /* bytes above 0x7f without the UTF-8 flag: lenient only */
    return afmt_ar_refuse(r, !utf8, AFMT_E_CONSTRAINT, m, sub, m->name_off + at, "%s (byte %zu, 0x%02x)", why, at,
                          m->name[at]);
}

static int by_name(const void *pa, const void *pb)
{
    const afmt_ar_name_ref *a = pa, *b = pb;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->name, b->name, n) : 0;

    if (c != 0)
        return c;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return a->member < b->member ? -1 : a->member > b->member;
}

int afmt_ar_sort_names(afmt_ar_run *r)
{
    size_t i;

    free(r->names);
    r->names = r->n ? malloc(r->n * sizeof *r->names) : NULL;
    if (r->n && !r->names)
        return afmt_ar_fail(r, AFMT_E_NOMEM, NULL, NULL, r->base, "no memory to sort %zu member names", r->n);
    for (i = 0; i < r->n; i++) {
        r->names[i].name = r->m[i].name;
        r->names[i].len = r->m[i].name_len;
        r->names[i].member = (uint32_t)i;
    }
    /* (qsort's array must not be NULL, even for no element: an archive of
     * no member has none) */
    if (r->n > 1)
        qsort(r->names, r->n, sizeof *r->names, by_name);
    for (i = 1; i < r->n; i++) {
        const afmt_ar_name_ref *a = &r->names[i - 1], *b = &r->names[i];
        if (a->len == b->len && (a->len == 0 || memcmp(a->name, b->name, a->len) == 0)) {
            const afmt_ar_member *later = &r->m[b->member];
            return afmt_ar_fail(r, AFMT_E_CONSTRAINT, later, NULL, later->entry_off,
                                "a second member of this name (members %" PRIu32 " and %" PRIu32 "): readers "
                                "disagree on which one counts", r->m[a->member].index, later->index);
        }
    }
    return 0;
}

afmt_ar_member *afmt_ar_find(const afmt_ar_run *r, const uint8_t *name, size_t len)
{
    size_t lo = 0, hi = r->names ? r->n : 0;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2, n;
        const afmt_ar_name_ref *e = &r->names[mid];
        int c;
        n = e->len < len ? e->len : len;
        c = n ? memcmp(e->name, name, n) : 0;
        if (c == 0 && e->len != len)
            c = e->len < len ? -1 : 1;
        if (c == 0)
            return &r->m[e->member];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

uint8_t *afmt_ar_keep(afmt_ar_run *r, const uint8_t *bytes, size_t n, uint64_t offset)
{
    afmt_ar_chunk *c = r->chunks;
    uint8_t *p;

    if (!c || c->cap - c->used < n) {
        size_t cap = n > AFMT_AR_SCRATCH ? n : AFMT_AR_SCRATCH;
        c = malloc(sizeof *c + cap);
        if (!c) {
            afmt_ar_fail(r, AFMT_E_NOMEM, NULL, NULL, offset, "no memory to keep a name of %zu bytes", n);
            return NULL;
        }
        c->next = r->chunks;
        c->used = 0;
        c->cap = cap;
        r->chunks = c;
    }
    p = c->bytes + c->used;
    if (n)
        memcpy(p, bytes, n);
    c->used += n;
    return p;
}
