/* afmt-gen: a fuzzing dictionary per format, DIR/fuzz/<format>.dict.
 *
 * The byte strings a fuzzer is unlikely to guess, taken from the spec:
 * detect bytes and magics (`equals` of bytes/text fields), the keys of
 * type-code tables (text tags as they are, integer codes in the width and
 * byte order of the field they are looked up by), switch cases, integer
 * `equals`, and the limits of `range` / `in` / comparison checks of integer
 * fields (the value and its neighbours, in the field's width and order);
 * for formats with text values also the dtype names of their tables (the
 * suffixes of text literals).  One `name="..."` line per entry, \xNN
 * escapes: the syntax libFuzzer (-dict=) and AFL++ (-x) both read.
 * Entries are at most 64 bytes (libFuzzer's limit) and appear once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "text/afmt_cards.h"
#include "emit.h"

#define DICT_MAX_ENTRY 64

typedef struct dict {
    const char *format; /* prefix of the entry names */
    sbuf out;
    char **seen; /* escaped entries already written */
    int n, cap;
} dict;

static void dict_add(dict *d, const char *tag, const unsigned char *p, size_t n)
{
    sbuf e = {0};
    size_t i;
    int k;

    if (n == 0 || n > DICT_MAX_ENTRY)
        return;
    for (i = 0; i < n; i++) {
        if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
            sb_printf(&e, "%c", p[i]);
        else
            sb_printf(&e, "\\x%02X", p[i]);
    }
    for (k = 0; k < d->n; k++)
        if (strcmp(d->seen[k], e.s) == 0) {
            sb_free(&e);
            return;
        }
    if (d->n == d->cap) {
        char **nv;
        d->cap = d->cap ? d->cap * 2 : 32;
        nv = realloc(d->seen, sizeof *nv * (size_t)d->cap);
        if (!nv) {
            fprintf(stderr, "afmt-gen: out of memory\n");
            exit(2);
        }
        d->seen = nv;
    }
    d->seen[d->n] = xstrdup(e.s);
    sb_printf(&d->out, "%s_%s_%d=\"%s\"\n", d->format, tag, d->n, e.s);
    d->n++;
    sb_free(&e);
}

/* v in `width` bytes, big- or little-endian. */
static void dict_add_int(dict *d, const char *tag, uint64_t v, int width, int big)
{
    unsigned char b[8];
    int i;

    if (width < 1 || width > 8)
        return;
    if (big == ORDER_RUN) { /* chosen at run time: either */
        dict_add_int(d, tag, v, width, 0);
        big = 1;
    }
    for (i = 0; i < width; i++)
        b[big ? width - 1 - i : i] = (unsigned char)(v >> (8 * i));
    dict_add(d, tag, b, (size_t)width);
}

/* The integer field called name anywhere in the items, or NULL. */
static const item *find_field(const item_list *l, const char *name)
{
    int i, k;

    for (i = 0; i < l->n; i++) {
        const item *it = l->v[i];
        const item *r;
        if (it->kind == IT_FIELD && it->field.ftype == FT_INT && it->name && strcmp(it->name, name) == 0)
            return it;
        if ((r = find_field(&it->body, name)) != NULL)
            return r;
        for (k = 0; k < it->ncases; k++)
            if ((r = find_field(&it->cases[k].body, name)) != NULL)
                return r;
    }
    return NULL;
}

/* The integer field an expression names (NAME or NAME[i]), or NULL. */
static const item *expr_field(const spec *s, const expr *e)
{
    if (!e)
        return NULL;
    if (e->kind == E_INDEX)
        e = e->a;
    return e && e->kind == E_NAME && e->sval ? find_field(&s->body, e->sval) : NULL;
}

/* An archive's words: zip's signatures, the literal parts of its member
 * names and texts, and for a pickle its allowed opcode bytes and each
 * allowlisted global as GLOBAL writes it ("c" module "\n" name "\n"). */
static void dict_archive(dict *d, const archive *a)
{
    static const char *const sigs[] = {"PK\003\004", "PK\001\002", "PK\005\006", "PK\006\006", "PK\006\007",
                                       "PK\007\010", "FB", "ustar", NULL};
    char buf[DICT_MAX_ENTRY + 1];
    int i, k, b;
    for (k = 0; sigs[k]; k++) dict_add(d, "archive", (const unsigned char *)sigs[k], strlen(sigs[k]));
    for (i = 0; i < a->nrules; i++) {
        const ar_rule *r = &a->rules[i];
        const char *p = r->pattern ? r->pattern : "";
        /* the literal runs between captures */
        while (*p) {
            const char *open = strchr(p, '{');
            size_t n = open ? (size_t)(open - p) : strlen(p);
            if (n > 0 && n <= DICT_MAX_ENTRY) dict_add(d, "member", (const unsigned char *)p, n);
            if (!open) break;
            p = strchr(open, '}') ? strchr(open, '}') + 1 : open + strlen(open);
        }
        for (k = 0; k < r->ntexts; k++)
            if (strlen(r->texts[k]) <= DICT_MAX_ENTRY)
                dict_add(d, "text", (const unsigned char *)r->texts[k], strlen(r->texts[k]));
        if (r->action != AR_VALUES || !r->pickle) continue;
        for (b = 0; b < 256; b++)
            if (r->pickle->ops[b]) {
                unsigned char op = (unsigned char)b;
                dict_add(d, "opcode", &op, 1);
            }
        for (k = 0; k < r->pickle->nglobals; k++) {
            int n = snprintf(buf, sizeof buf, "c%s\n%s\n", r->pickle->globals[k].module, r->pickle->globals[k].name);
            if (n > 0 && n <= DICT_MAX_ENTRY) dict_add(d, "global", (const unsigned char *)buf, (size_t)n);
        }
    }
}


/* A cards item's words: each key with its indicator ("BITPIX  = ", a run's
 * first three), the terminator and commentary keys, required strings
 * quoted and padded, and the value syntax's bytes. */
static void dict_cards(dict *d, const afmt_cards_desc *cd)
{
    static const char *const words[] = {"T", "F", "E", "D", "(", ", ", ")", " / ", "''", "&'", "-", NULL};
    char buf[DICT_MAX_ENTRY + 1];
    size_t u, k, r;
    int n;
    for (u = 0; u < cd->nunits; u++)
        for (k = 0; k < cd->units[u].nrequired + cd->units[u].noptional; k++) {
            const afmt_cards_key *q = k < cd->units[u].nrequired ? &cd->units[u].required[k]
                                                                  : &cd->units[u].optional[k - cd->units[u].nrequired];
            for (r = 0; r < (q->run ? 3u : 1u); r++) {
                char key[40];
                if (q->run) snprintf(key, sizeof key, "%s%zu", q->key, r + 1);
                else snprintf(key, sizeof key, "%s", q->key);
                n = snprintf(buf, sizeof buf, "%-*s%s", (int)cd->key_width, key, cd->indicator);
                if (n > 0 && n <= DICT_MAX_ENTRY) dict_add(d, "word", (const unsigned char *)buf, (size_t)n);
            }
            if (q->string) {
                n = snprintf(buf, sizeof buf, "'%-*s'", (int)cd->fixed_string, q->string);
                if (n > 0 && n <= DICT_MAX_ENTRY) dict_add(d, "word", (const unsigned char *)buf, (size_t)n);
            }
        }
    for (k = 0; k < cd->ncommentary + 2; k++) {
        const char *key = k < cd->ncommentary ? cd->commentary[k] : k == cd->ncommentary ? cd->end : cd->cont;
        if (!key || !*key) continue;
        n = snprintf(buf, sizeof buf, "%-*s", (int)cd->key_width, key);
        if (n > 0 && n <= DICT_MAX_ENTRY) dict_add(d, "word", (const unsigned char *)buf, (size_t)n);
    }
    for (k = 0; words[k]; k++) dict_add(d, "word", (const unsigned char *)words[k], strlen(words[k]));
}

/* Literals compared with integer fields inside an expression. */
static void dict_expr(dict *d, const spec *s, const expr *e)
{
    int i;

    if (!e)
        return;
    if (e->kind == E_BINARY &&
        (e->op == TK_EQ || e->op == TK_NE || e->op == TK_LT || e->op == TK_LE ||
         e->op == TK_GT || e->op == TK_GE)) {
        const item *f = expr_field(s, e->a);
        const expr *lit = e->b;
        if (!f) {
            f = expr_field(s, e->b);
            lit = e->a;
        }
        if (f && lit && lit->kind == E_INT) {
            dict_add_int(d, "check", lit->ival, f->field.width, f->field.big_endian);
            if (e->op != TK_EQ && e->op != TK_NE) { /* both sides of a limit */
                dict_add_int(d, "check", lit->ival + 1, f->field.width, f->field.big_endian);
                dict_add_int(d, "check", lit->ival - 1, f->field.width, f->field.big_endian);
            }
        }
    }
    dict_expr(d, s, e->a);
    dict_expr(d, s, e->b);
    dict_expr(d, s, e->c);
    for (i = 0; i < e->nargs; i++)
        dict_expr(d, s, e->args[i]);
}

static void dict_items(dict *d, const spec *s, const item_list *l)
{
    int i, k, j;

    for (i = 0; i < l->n; i++) {
        const item *it = l->v[i];
        if (it->kind == IT_FIELD && it->field.equals) {
            if (it->field.equals->kind == E_STR && it->field.equals->sval) {
                unsigned char pad[DICT_MAX_ENTRY] = {0};
                size_t n = strlen(it->field.equals->sval);
                if (n <= DICT_MAX_ENTRY) {
                    memcpy(pad, it->field.equals->sval, n);
                    dict_add(d, "magic", pad, it->field.size > (int)n && it->field.size <= DICT_MAX_ENTRY
                                                  ? (size_t)it->field.size : n);
                }
            } else if (it->field.equals->kind == E_INT && it->field.ftype == FT_INT) {
                dict_add_int(d, "equals", it->field.equals->ival, it->field.width, it->field.big_endian);
            }
        }
        for (k = 0; k < it->nchecks; k++)
            dict_expr(d, s, it->checks[k].e);
        for (k = 0; it->kind == IT_FIELD && k < it->field.neach; k++)
            dict_expr(d, s, it->field.each[k].e);
        if (it->kind == IT_SWITCH) {
            const item *f = expr_field(s, it->arg);
            for (k = 0; k < it->ncases; k++)
                for (j = 0; j < it->cases[k].nwhen; j++) {
                    const expr *w = it->cases[k].when[j];
                    if (w && w->kind == E_INT && f)
                        dict_add_int(d, "case", w->ival, f->field.width, f->field.big_endian);
                    else if (w && w->kind == E_STR && w->sval)
                        dict_add(d, "case", (const unsigned char *)w->sval, strlen(w->sval));
                }
        }
        if (it->kind == IT_LOOKUP) {
            const table *tb = NULL;
            for (k = 0; k < s->ntables; k++)
                if (it->lookup.table && strcmp(s->tables[k].name, it->lookup.table) == 0)
                    tb = &s->tables[k];
            for (k = 0; tb && k < tb->nentries; k++)
                for (j = 0; j < tb->entries[k].nkey && j < it->lookup.nkey; j++) {
                    const expr *key = tb->entries[k].key[j];
                    const item *f = expr_field(s, it->lookup.key[j]);
                    if (!key)
                        continue;
                    if (key->kind == E_STR && key->sval)
                        dict_add(d, "type", (const unsigned char *)key->sval, strlen(key->sval));
                    else if (key->kind == E_INT && f)
                        dict_add_int(d, "type", key->ival, f->field.width, f->field.big_endian);
                }
        }
        if (it->kind == IT_TEXTHDR && it->th) {
            /* a text header's words: its keys and type names as the
             * syntax quotes them, its literals and metadata key */
            const texthdr *h = it->th;
            const char q = h->python ? '\'' : '"';
            static const char *const py_words[] = {"True", "False", ", ", ": ", "(", ",)", NULL};
            static const char *const json_words[] = {"true", "false", ",", ":", "[", "]", NULL};
            const char *const *w;
            char buf[DICT_MAX_ENTRY + 1];
            for (k = 0; k < h->nkeys + h->ntypes + 1; k++) {
                const char *word = k < h->nkeys ? h->keys[k].key
                                   : k < h->nkeys + h->ntypes ? h->types[k - h->nkeys].text : h->metadata_key;
                int n;
                if (!word) continue;
                n = snprintf(buf, sizeof buf, "%c%s%c", q, word, q);
                if (n > 0 && n <= DICT_MAX_ENTRY) dict_add(d, "word", (const unsigned char *)buf, (size_t)n);
            }
            for (w = h->python ? py_words : json_words; *w; w++)
                dict_add(d, "word", (const unsigned char *)*w, strlen(*w));
        }
        if (it->kind == IT_ARCHIVE && it->ar)
            dict_archive(d, it->ar);
        if (it->kind == IT_CARDS && it->cards)
            dict_cards(d, it->cards);
        dict_items(d, s, &it->body);
        for (k = 0; k < it->ncases; k++)
            dict_items(d, s, &it->cases[k].body);
    }
}

static int has_text_values(const item_list *l)
{
    int i, k;

    for (i = 0; i < l->n; i++) {
        if (l->v[i]->kind == IT_TEXTVAL || has_text_values(&l->v[i]->body))
            return 1;
        for (k = 0; k < l->v[i]->ncases; k++)
            if (has_text_values(&l->v[i]->cases[k].body))
                return 1;
    }
    return 0;
}

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "rb");
    size_t n = strlen(text);

    if (f) { /* unchanged: keep the file (and its time stamp) */
        char *old = xcalloc(n + 2, 1);
        size_t got = fread(old, 1, n + 1, f);
        int same = got == n && memcmp(old, text, n) == 0;
        fclose(f);
        free(old);
        if (same)
            return 0;
    }
    f = fopen(path, "wb");
    if (!f || fwrite(text, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "afmt-gen: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

int emit_dict(const spec *s, const char *outdir)
{
    dict d = {NULL, {0}, NULL, 0, 0};
    char *dir, *path;
    int i, k, rc;

    d.format = s->format;
    sb_printf(&d.out, "# Generated by afmt-gen from %s. Do not edit.\n"
                      "# Fuzzing dictionary of the %s format (libFuzzer -dict=, AFL++ -x).\n",
              s->path, s->format);
    for (i = 0; i < s->ndetect; i++)
        dict_add(&d, "detect", s->detect[i].bytes, (size_t)s->detect[i].nbytes);
    dict_items(&d, s, &s->body);
    /* tables not reached through a lookup (keys as text only) */
    for (i = 0; i < s->ntables; i++)
        for (k = 0; k < s->tables[i].nentries; k++) {
            const table_entry *te = &s->tables[i].entries[k];
            int j;
            for (j = 0; j < te->nkey; j++)
                if (te->key[j] && te->key[j]->kind == E_STR && te->key[j]->sval)
                    dict_add(&d, "type", (const unsigned char *)te->key[j]->sval,
                             strlen(te->key[j]->sval));
            if (has_text_values(&s->body) && te->dtype)
                dict_add(&d, "dtype", (const unsigned char *)te->dtype, strlen(te->dtype));
        }
    dir = xprintf("%s/fuzz", outdir);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "afmt-gen: cannot create %s\n", dir);
        free(dir);
        sb_free(&d.out);
        return -1;
    }
    path = xprintf("%s/%s.dict", dir, s->format);
    rc = write_text(path, d.out.s);
    free(path);
    free(dir);
    for (i = 0; i < d.n; i++)
        free(d.seen[i]);
    free(d.seen);
    sb_free(&d.out);
    return rc;
}
