/* Unit tests of the text-header parser (runtime/text/afmt_texthdr.c): JSON
 * objects and NumPy's Python dict literals, accepted or refused with the
 * exact key path, offset and reason. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/afmt_texthdr.h"
#include "check.h"

static char name_buf[256];

static const char *nm(const char *prefix, const char *text)
{
    snprintf(name_buf, sizeof name_buf, "%s %.60s", prefix, text);
    return name_buf;
}

static void th_init(afmt_texthdr *th, afmt_texthdr_syntax syn, const char *text, size_t len)
{
    memset(th, 0, sizeof *th);
    th->text = (const uint8_t *)text;
    th->len = len;
    th->base = 8;
    th->syntax = syn;
    th->root = "header";
    th->map_depths = syn == AFMT_TEXTHDR_JSON ? 1u : 0u;
    th->max_entries = 100000;
}

/* Parsed whole: "" when valid, else the described error. */
static const char *parse(afmt_texthdr_syntax syn, const char *text, size_t len, char *out, size_t n)
{
    afmt_texthdr th;
    afmt_texthdr_value root;
    afmt_error err;
    th_init(&th, syn, text, len);
    afmt_error_clear(&err);
    if (afmt_texthdr_parse(&th, 0, &root, NULL, &err) == 0) {
        out[0] = '\0';
        return out;
    }
    afmt_error_describe(&err, out, n);
    return out;
}

static void test_verdicts(void)
{
    static const struct {
        afmt_texthdr_syntax syn;
        const char *text;
        const char *want; /* "" = valid; offsets are base 8 + position */
    } cases[] = {
        /* what the formats write */
        { AFMT_TEXTHDR_PYDICT, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }", "" },
        { AFMT_TEXTHDR_PYDICT, "{'descr': '|b1', 'fortran_order': True, 'shape': (), }", "" },
        { AFMT_TEXTHDR_PYDICT, "{'descr': '<i2', 'fortran_order': False, 'shape': (5,), }", "" },
        { AFMT_TEXTHDR_JSON, "{\"__metadata__\":{\"format\":\"pt\"},\"w\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}", "" },
        { AFMT_TEXTHDR_JSON, "{}", "" },
        { AFMT_TEXTHDR_JSON, " {\"a\" : [ ] , \"b\":true,\"c\":false}", "" },
        { AFMT_TEXTHDR_JSON, "{\"\\u00e9\\ud83d\\ude00\":1}", "" },
        { AFMT_TEXTHDR_JSON, "{\"caf\xc3\xa9\":18446744073709551615}", "" },
        { AFMT_TEXTHDR_JSON, "{\"a\":-9223372036854775808}", "" },
        { AFMT_TEXTHDR_PYDICT, "{\"x\": [1, 2,], 'y': {'z': ()}}", "" },
        /* syntax */
        { AFMT_TEXTHDR_JSON, "", "header at offset 8: expected a value, found the end of the header" },
        { AFMT_TEXTHDR_JSON, "{\"a\":1,}", "header at offset 14: a comma before '}'" },
        { AFMT_TEXTHDR_JSON, "{\"a\" 1}", "header[\"a\"] at offset 13: expected ':' after the key, found '1'" },
        { AFMT_TEXTHDR_JSON, "{\"a\":1 \"b\":2}", "header at offset 15: expected ',' or '}', found '\"'" },
        { AFMT_TEXTHDR_JSON, "{\"a\":1", "header at offset 14: expected ',' or '}', found the end of the header" },
        { AFMT_TEXTHDR_JSON, "{'a':1}", "header at offset 9: expected a string key or '}', found '''" },
        { AFMT_TEXTHDR_JSON, "{\"a\":(1,)}", "header[\"a\"] at offset 13: expected a value, found '('" },
        { AFMT_TEXTHDR_JSON, "{\"a\":null}", "header[\"a\"] at offset 13: null is not allowed in this header" },
        { AFMT_TEXTHDR_PYDICT, "{'a': None}", "header.a at offset 14: None is not allowed in this header" },
        { AFMT_TEXTHDR_JSON, "{\"a\":True}", "header[\"a\"] at offset 13: expected a value, found 'T'" },
        { AFMT_TEXTHDR_JSON, "{\"a\":1.5}", "header[\"a\"] at offset 13: a number with a fraction or exponent: only integers are allowed here" },
        { AFMT_TEXTHDR_JSON, "{\"a\":1e3}", "header[\"a\"] at offset 13: a number with a fraction or exponent: only integers are allowed here" },
        { AFMT_TEXTHDR_JSON, "{\"a\":012}", "header[\"a\"] at offset 13: an integer may not start with 0" },
        { AFMT_TEXTHDR_JSON, "{\"a\":-}", "header[\"a\"] at offset 13: '-' is not followed by digits" },
        { AFMT_TEXTHDR_JSON, "{\"a\":18446744073709551616}", "header[\"a\"] at offset 13: integer does not fit in 64 bits" },
        { AFMT_TEXTHDR_PYDICT, "{'a': 3L}", "header.a at offset 15: unexpected 'L' after an integer" },
        { AFMT_TEXTHDR_PYDICT, "{'shape': (3)}", "header.shape at offset 18: a tuple of one element is written (x,)" },
        { AFMT_TEXTHDR_PYDICT, "{1: 2}", "header at offset 9: expected a string key or '}', found '1'" },
        /* strings */
        { AFMT_TEXTHDR_JSON, "{\"a\":\"x", "header[\"a\"] at offset 13: the string is not closed before the end of the header" },
        { AFMT_TEXTHDR_JSON, "{\"a\":\"\x01\"}", "header[\"a\"] at offset 14: control byte 0x01 in a string (escape it)" },
        { AFMT_TEXTHDR_JSON, "{\"a\":\"\\q\"}", "header[\"a\"] at offset 14: unknown escape in a string" },
        { AFMT_TEXTHDR_JSON, "{\"a\":\"\\ud800\"}", "header[\"a\"] at offset 14: a high surrogate escape is not followed by a low one in a string" },
        { AFMT_TEXTHDR_JSON, "{\"a\":\"\\udc00\"}", "header[\"a\"] at offset 14: the escape is not a Unicode scalar value in a string" },
        { AFMT_TEXTHDR_JSON, "{\"a\":\"\\u12\"}", "header[\"a\"] at offset 14: an escape needs hexadecimal digits in a string" },
        { AFMT_TEXTHDR_JSON, "{\"a\":\"\xff\"}", "header[\"a\"] at offset 14: invalid UTF-8 (byte 0xff) in a string" },
        { AFMT_TEXTHDR_JSON, "{\"a\":\"\xc0\xaf\"}", "header[\"a\"] at offset 14: invalid UTF-8 (byte 0xc0)" },
        { AFMT_TEXTHDR_JSON, "{\"a\":\"\xed\xa0\x80\"}", "header[\"a\"] at offset 14: invalid UTF-8 (byte 0xed)" },
        { AFMT_TEXTHDR_JSON, "{\"a\":\"\xf4\x90\x80\x80\"}", "header[\"a\"] at offset 14: invalid UTF-8 (byte 0xf4)" },
        { AFMT_TEXTHDR_JSON, "{\"a\":\"\xe2\x82\"}", "header[\"a\"] at offset 14: invalid UTF-8 (byte 0xe2)" },
        { AFMT_TEXTHDR_PYDICT, "{'a': '\\x41\\'\\u00e9'}", "" },
        /* key paths */
        { AFMT_TEXTHDR_JSON, "{\"weight\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,1.0]}}",
          "header[\"weight\"].data_offsets[1] at offset 63: a number with a fraction or exponent: only integers are allowed here" },
        { AFMT_TEXTHDR_JSON, "{\"a b\":{\"c-d\":[[x]]}}", "header[\"a b\"][\"c-d\"][0][0] at offset 24: expected a value, found 'x'" },
        { AFMT_TEXTHDR_JSON, "{\"q\\\"\":x}", "header[\"q\\\"\"] at offset 15: expected a value, found 'x'" },
        /* duplicates */
        { AFMT_TEXTHDR_JSON, "{\"a\":1,\"b\":2,\"a\":3}", "header[\"a\"] at offset 21: duplicate key: it is already defined at offset 9" },
        { AFMT_TEXTHDR_JSON, "{\"a\":1,\"\\u0061\":3}", "header[\"a\"] at offset 15: duplicate key: it is already defined at offset 9" },
        { AFMT_TEXTHDR_JSON, "{\"w\":{\"dtype\":1,\"dtype\":2}}", "header[\"w\"].dtype at offset 24: duplicate key: it is already defined at offset 14" },
        { AFMT_TEXTHDR_PYDICT, "{'descr': '<f8', \"descr\": '<f4'}", "header.descr at offset 25: duplicate key: it is already defined at offset 9" },
        /* limits */
        { AFMT_TEXTHDR_JSON, "{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
          "header[\"a\"][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0] at offset 44: values nested deeper than 32 levels" },
    };
    size_t i;
    char got[512];
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        parse(cases[i].syn, cases[i].text, strlen(cases[i].text), got, sizeof got);
        /* Some expectations omit the tail of a message on purpose: compare
         * the expected text as a prefix, and exactly when it is empty. */
        if (cases[i].want[0] == '\0') {
            CHECK(nm("valid", cases[i].text), got[0] == '\0');
            if (got[0]) printf("  got: %s\n", got);
        } else {
            int ok = strncmp(got, cases[i].want, strlen(cases[i].want)) == 0;
            CHECK(nm("refused", cases[i].text), ok);
            if (!ok) printf("  want: %s\n  got:  %s\n", cases[i].want, got);
        }
    }
}

static void test_embedded_nul(void)
{
    char got[256];
    static const char text[] = "{\"a\":\"x\0y\"}";
    parse(AFMT_TEXTHDR_JSON, text, sizeof text - 1, got, sizeof got);
    CHECK("NUL in a string is refused", strcmp(got, "header[\"a\"] at offset 15: control byte 0x00 in a string (escape it)") == 0);
    parse(AFMT_TEXTHDR_JSON, "{\"a\":1}", 5, got, sizeof got);
    CHECK("the region bounds the text", strcmp(got, "header[\"a\"] at offset 13: expected a value, found the end of the header") == 0);
}

static void test_entry_limit(void)
{
    afmt_texthdr th;
    afmt_texthdr_value root;
    afmt_error err;
    char got[256];
    const char *t = "[1,2,3,4]";
    th_init(&th, AFMT_TEXTHDR_JSON, t, strlen(t));
    th.max_entries = 3;
    CHECK("entry limit", afmt_texthdr_parse(&th, 0, &root, NULL, &err) == -1 && err.code == AFMT_E_LIMIT);
    afmt_error_describe(&err, got, sizeof got);
    CHECK("entry limit message", strcmp(got, "header at offset 15: more than 3 entries in one list (limits.max_items)") == 0);
    th.max_entries = 4;
    CHECK("entry limit reached exactly", afmt_texthdr_parse(&th, 0, &root, NULL, &err) == 0 && root.count == 4);
    th.max_depth = 1;
    t = "[[1]]";
    th.text = (const uint8_t *)t;
    th.len = 5;
    CHECK("depth limit", afmt_texthdr_parse(&th, 0, &root, NULL, &err) == -1 && err.code == AFMT_E_LIMIT);
}

static void test_access(void)
{
    static const char *t =
        "{\"__metadata__\":{\"k\":\"v\"},\"b\":{\"dtype\":\"F16\",\"shape\":[2,3],\"data_offsets\":[0,12]},"
        "\"a\\u00e9\":{\"dtype\":\"I8\",\"shape\":[],\"data_offsets\":[12,13]}}";
    afmt_texthdr th;
    afmt_texthdr_value root, k, v, x, e;
    afmt_texthdr_iter it, it2;
    afmt_error err;
    char buf[32];
    uint64_t u = 0;
    int64_t i64 = 0;
    int n = 0;

    th_init(&th, AFMT_TEXTHDR_JSON, t, strlen(t));
    CHECK("access: parses", afmt_texthdr_parse(&th, 0, &root, NULL, &err) == 0);
    CHECK("access: root", root.kind == AFMT_TV_OBJECT && root.count == 3 && root.end == strlen(t));
    CHECK("access: get missing", afmt_texthdr_get(&th, &root, "zz", &v) == 0);
    CHECK("access: get b", afmt_texthdr_get(&th, &root, "b", &v) == 1 && v.kind == AFMT_TV_OBJECT && v.count == 3);
    CHECK("access: b.dtype", afmt_texthdr_get(&th, &v, "dtype", &x) == 1 && afmt_texthdr_str_eq(&th, &x, "F16") &&
                                 !afmt_texthdr_str_eq(&th, &x, "F1") && !afmt_texthdr_str_eq(&th, &x, "F166"));
    CHECK("access: b.shape", afmt_texthdr_get(&th, &v, "shape", &x) == 1 && x.kind == AFMT_TV_LIST && x.count == 2);
    afmt_texthdr_iter_begin(&th, &x, &it2);
    CHECK("access: shape[0]", afmt_texthdr_next(&th, &it2, NULL, &e) == 1 && afmt_texthdr_as_u64(&e, &u) == 0 && u == 2);
    CHECK("access: shape[1]", afmt_texthdr_next(&th, &it2, NULL, &e) == 1 && afmt_texthdr_as_i64(&e, &i64) == 0 && i64 == 3);
    CHECK("access: shape end", afmt_texthdr_next(&th, &it2, NULL, &e) == 0);
    CHECK("access: escaped key", afmt_texthdr_get(&th, &root, "a\xc3\xa9", &v) == 1);
    afmt_texthdr_iter_begin(&th, &root, &it);
    while (afmt_texthdr_next(&th, &it, &k, &v)) {
        n++;
        if (n == 3) {
            CHECK("access: copy escaped key", afmt_texthdr_str_copy(&th, &k, buf, sizeof buf) == 3 &&
                                                  strcmp(buf, "a\xc3\xa9") == 0);
            CHECK("access: copy truncated", afmt_texthdr_str_copy(&th, &k, buf, 2) == 3 && strcmp(buf, "a") == 0);
        }
    }
    CHECK("access: three entries in order", n == 3);
}

static void test_int_conversions(void)
{
    afmt_texthdr_value v;
    int64_t i = 0;
    uint64_t u = 0;
    memset(&v, 0, sizeof v);
    v.kind = AFMT_TV_INT;
    v.u = (uint64_t)1 << 63;
    v.negative = 1;
    CHECK("i64 min", afmt_texthdr_as_i64(&v, &i) == 0 && i == INT64_MIN);
    CHECK("negative is not u64", afmt_texthdr_as_u64(&v, &u) == -1);
    v.negative = 0;
    CHECK("2^63 is not i64", afmt_texthdr_as_i64(&v, &i) == -1);
    CHECK("2^63 is u64", afmt_texthdr_as_u64(&v, &u) == 0 && u == (uint64_t)1 << 63);
    v.kind = AFMT_TV_BOOL;
    CHECK("bool is not an integer", afmt_texthdr_as_u64(&v, &u) == -1);
}

/* Many keys: duplicates are found across the hash table's passes, and a
 * header without duplicates is accepted. */
static void test_many_keys(void)
{
    enum { N = 3000 };
    size_t cap = (size_t)N * 16 + 16, len = 0;
    char *t = malloc(cap);
    char got[256];
    int i;
    if (!t) { CHECK("malloc", 0); return; }
    t[len++] = '{';
    for (i = 0; i < N; i++)
        len += (size_t)snprintf(t + len, cap - len, "%s\"k%d\":%d", i ? "," : "", i, i);
    t[len++] = '}';
    {
        afmt_texthdr th;
        afmt_texthdr_value root;
        afmt_error err;
        th_init(&th, AFMT_TEXTHDR_JSON, t, len);
        th.max_entries = 0;
        CHECK("3000 distinct keys", afmt_texthdr_parse(&th, 0, &root, NULL, &err) == 0 && root.count == N);
    }
    /* Rename the last key to the 600th: found in the second pass. */
    {
        char *last = strstr(t, "\"k2999\"");
        memcpy(last, "\"k599\" ", 7);
        /* "k599" then a space before ':' is still valid JSON */
        parse(AFMT_TEXTHDR_JSON, t, len, got, sizeof got);
        if (!strstr(got, "duplicate key")) printf("  got: %s\n", got);
        CHECK("duplicate found in a later pass", strstr(got, "duplicate key") != NULL && strncmp(got, "header[\"k599\"]", 14) == 0);
    }
    free(t);
}

/* Build an object of n keys, key i named by name(i); ":i" values. */
typedef struct text_buf {
    char *p;
    size_t len, cap;
} text_buf;

static void tb_put(text_buf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap * 2 : 4096;
        while (c < b->len + n + 1) c *= 2;
        b->p = realloc(b->p, c);
        if (!b->p) { fprintf(stderr, "out of memory\n"); exit(2); }
        b->cap = c;
    }
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
}

/* The key of entry i in case `which` (see test_work_area). */
static void case_key(int which, int i, int n, char *out, size_t size)
{
    switch (which) {
    case 0: /* not in byte order; the last key repeats the 600th */
        snprintf(out, size, "k%d", i == n - 1 ? 599 : i);
        break;
    case 1: /* in byte order but for two equal neighbours */
        snprintf(out, size, "k%05d", i > 1500 ? i - 1 : i);
        break;
    case 2: /* every key the same */
        snprintf(out, size, "a");
        break;
    case 3: /* key 15 spells k3 with an escape */
        if (i == 15) snprintf(out, size, "\\u006b3");
        else snprintf(out, size, "k%d", i);
        break;
    case 4: /* distinct, in no order (a permutation of 0..n-1, n prime) */
        snprintf(out, size, "k%d", (int)(((long)i * 7919) % n));
        break;
    case 6: /* distinct, in byte order: checked as they come, no room */
        snprintf(out, size, "k%05d", i);
        break;
    default: /* reverse byte order, one repeat far apart */
        snprintf(out, size, "k%05d", i == 0 ? 17 : n - i);
        break;
    }
}

/* Duplicate keys are found alike whatever work area the parser has: none
 * (passes over the text), one too small (the same passes), or the size
 * afmt_texthdr_work_size gives (one sort): same verdict, same message.  The
 * cases are the ones a sort can get wrong: equal neighbours in byte order,
 * every key equal, an escaped spelling, the earliest redefinition among
 * several, a nested object using the area above its parent's keys. */
static void test_work_area(void)
{
    static const struct {
        int which, n, nested;
        const char *want; /* "" valid; else the start of the description */
    } cases[] = {
        {0, 3000, 0, "header[\"k599\"] at offset "},
        {1, 3001, 0, "header[\"k01500\"] at offset "},
        {2, 1000, 0, "header[\"a\"] at offset 15: duplicate key: it is already defined at offset 9"},
        {3, 40, 0, "header[\"k3\"] at offset "},
        {4, 3001, 0, ""},
        {5, 2003, 0, "header[\"k00017\"] at offset "},
        {6, 20001, 0, ""},
        {4, 3001, 1, "header[\"k0\"].inner.k3 at offset 103: duplicate key: it is already defined at offset 45"},
    };
    size_t i, w;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        text_buf t = {NULL, 0, 0};
        char key[32], item[96], first[512] = "", name[96];
        int k;
        tb_put(&t, "{");
        for (k = 0; k < cases[i].n; k++) {
            case_key(cases[i].which, k, cases[i].n, key, sizeof key);
            if (cases[i].nested && k == 0) {
                int j;
                snprintf(item, sizeof item, "\"%s\":{\"inner\":{", key);
                tb_put(&t, item);
                for (j = 0; j < 12; j++) {
                    snprintf(item, sizeof item, "%s\"k%d\":%d", j ? "," : "", j == 11 ? 3 : j, j);
                    tb_put(&t, item);
                }
                tb_put(&t, "}}");
                continue;
            }
            snprintf(item, sizeof item, "%s\"%s\":%d", k ? "," : "", key, k);
            tb_put(&t, item);
        }
        tb_put(&t, "}");
        for (w = 0; w < 3; w++) {
            afmt_texthdr th;
            afmt_texthdr_value root;
            afmt_error err;
            char got[512] = "";
            void *work = NULL;
            th_init(&th, AFMT_TEXTHDR_JSON, t.p, t.len);
            th.max_entries = 0;
            if (w == 1) {
                th.work_size = 64;
            } else if (w == 2) {
                th.work_size = afmt_texthdr_work_size((const uint8_t *)t.p, t.len);
            }
            if (w) {
                work = malloc((size_t)th.work_size);
                th.work = work;
            }
            if (afmt_texthdr_parse(&th, 0, &root, NULL, &err) != 0)
                afmt_error_describe(&err, got, sizeof got);
            snprintf(name, sizeof name, "work area %s: case %zu (%d keys)",
                     w == 0 ? "none" : w == 1 ? "too small" : "of afmt_texthdr_work_size", i, cases[i].n);
            if (cases[i].want[0] == '\0') {
                CHECK(name, got[0] == '\0' && root.count == (uint64_t)cases[i].n);
            } else {
                CHECK(name, strncmp(got, cases[i].want, strlen(cases[i].want)) == 0 &&
                                strstr(got, "duplicate key: it is already defined at offset") != NULL);
            }
            if (w == 0)
                snprintf(first, sizeof first, "%s", got);
            else
                CHECK(name, strcmp(first, got) == 0);
            if (strncmp(got, cases[i].want, strlen(cases[i].want)) != 0 || (w && strcmp(first, got) != 0))
                printf("  got: %s\n  without a work area: %s\n", got, first);
            free(work);
        }
        free(t.p);
    }
}

/* Walk a parsed value completely through the access functions. */
static uint64_t walk(const afmt_texthdr *th, const afmt_texthdr_value *v, unsigned depth)
{
    afmt_texthdr_iter it;
    afmt_texthdr_value k, e;
    uint64_t n = 1;
    char buf[8];
    if (v->kind == AFMT_TV_STRING)
        afmt_texthdr_str_copy(th, v, buf, sizeof buf);
    if (v->kind != AFMT_TV_OBJECT && v->kind != AFMT_TV_LIST && v->kind != AFMT_TV_TUPLE)
        return n;
    afmt_texthdr_iter_begin(th, v, &it);
    while (afmt_texthdr_next(th, &it, &k, &e)) {
        if (v->kind == AFMT_TV_OBJECT && afmt_texthdr_get(th, v, "a", &k) == 1 && k.kind == AFMT_TV_NONE)
            return 0;
        n += walk(th, &e, depth + 1);
    }
    return it.index == v->count ? n : 0;
}

/* Every one-byte change and every truncation of valid headers gets a
 * verdict (under ASan: no read outside the text), and what is accepted can
 * be walked entry by entry. */
static void test_mutations(void)
{
    static const struct { afmt_texthdr_syntax syn; const char *text; } seeds[] = {
        { AFMT_TEXTHDR_PYDICT, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }" },
        { AFMT_TEXTHDR_JSON, "{\"__metadata__\":{\"k\":\"v\\u00e9\"},\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}" },
    };
    static const uint8_t subst[] = { 0, '"', '\'', '\\', '{', '}', '[', ']', '(', ')', ',', ':', ' ', '-',
                                     '0', '9', 'x', 'u', 0x80, 0xc3, 0xff };
    size_t si, pos, b;
    int bad = 0;
    for (si = 0; si < sizeof seeds / sizeof seeds[0]; si++) {
        size_t len = strlen(seeds[si].text);
        uint8_t *copy = malloc(len);
        if (!copy) { CHECK("malloc", 0); return; }
        for (pos = 0; pos <= len; pos++) {
            for (b = 0; b <= sizeof subst; b++) {
                afmt_texthdr th;
                afmt_texthdr_value root;
                afmt_error err;
                size_t n = len;
                memcpy(copy, seeds[si].text, len);
                if (b == sizeof subst) n = pos;          /* truncation */
                else if (pos < len) copy[pos] = subst[b];
                else continue;
                th_init(&th, seeds[si].syn, (const char *)copy, n);
                if (afmt_texthdr_parse(&th, 0, &root, NULL, &err) == 0) {
                    if (root.end > n || walk(&th, &root, 0) == 0) bad++;
                } else if (err.offset < 8 || err.offset > 8 + n || err.field[0] == '\0') {
                    bad++;
                }
            }
        }
        free(copy);
    }
    CHECK("mutations: verdicts with offsets inside the text, walks complete", bad == 0);
}

int main(void)
{
    test_mutations();
    test_verdicts();
    test_embedded_nul();
    test_entry_limit();
    test_access();
    test_int_conversions();
    test_many_keys();
    test_work_area();
    CHECK_DONE();
}
