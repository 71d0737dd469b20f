/* afmt-gen: output, symbols and failure emission shared by the emitters. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "common/afmt_dtype.h"

/* Columns a generated line should fit in (a reviewer reads it in a diff). */
#define LINE_WIDTH 100

/* The length of the string literal at s (s[0] is its opening quote). */
static size_t literal_len(const char *s)
{
    size_t i;
    for (i = 1; s[i] && s[i] != '"'; i++)
        if (s[i] == '\\' && s[i + 1]) i++;
    return s[i] ? i + 1 : i;
}

/* The length of the piece of s that starts at s: a string literal (with its
 * escapes), or the text up to and including the next ", " (or the next
 * operator "&& ", "|| ", "? ", ": " after a space) outside string and
 * character literals and at most max_depth parentheses deep: the places a
 * long line may break.  *depth is the nesting at s, updated. */
static size_t piece_len(const char *s, int *depth, int max_depth)
{
    size_t i = 0;
    if (s[0] == '"') {
        /* a literal, with the ", " after it: a line never starts with a comma */
        i = literal_len(s);
        if (*depth <= max_depth && s[i] == ',' && s[i + 1] == ' ') return i + 2;
        /* the brackets it closes stay on its line: no line starts with `)` */
        for (; s[i] == ')' || s[i] == ']'; i++) --*depth;
        return i;
    }
    while (s[i]) {
        if (s[i] == '"') {
            if (*depth <= max_depth) return i; /* a literal is a piece of its own */
            i += literal_len(s + i);
            continue;
        }
        if (s[i] == '\'') {
            for (i++; s[i] && s[i] != '\''; i++)
                if (s[i] == '\\' && s[i + 1]) i++;
            if (s[i]) i++;
            continue;
        }
        if (s[i] == '(' || s[i] == '[') ++*depth;
        if (s[i] == ')' || s[i] == ']') --*depth;
        if (*depth <= max_depth) {
            if (s[i] == ',' && s[i + 1] == ' ') return i + 2;
            if (i > 0 && s[i - 1] == ' ' && s[i + 1] == ' ' && (s[i] == '?' || s[i] == ':')) return i + 2;
            /* (s[i + 2] is read only after s[i + 1], so never past the end) */
            if (i > 0 && s[i - 1] == ' ' && ((s[i] == '&' && s[i + 1] == '&') || (s[i] == '|' && s[i + 1] == '|')) &&
                s[i + 2] == ' ')
                return i + 3;
        }
        i++;
    }
    return i;
}

/* End the current output line, without the space a break left at its end. */
static void end_line(emitter *m)
{
    while (m->out->len > 0 && m->out->s[m->out->len - 1] == ' ') m->out->s[--m->out->len] = 0;
    sb_puts(m->out, "\n");
}

static void put_indent(emitter *m, int extra)
{
    int i;
    for (i = 0; i < m->indent + extra; i++) sb_puts(m->out, "    ");
}

/* Write a statement longer than LINE_WIDTH over several lines: breaks after
 * ", " (and && || ? :) at most max_depth parentheses deep and between
 * string literals, a long literal split at its spaces into adjacent
 * literals (the compiler joins them: the same string).  Continuation
 * lines are indented two levels deeper. */
static void put_wrapped_at(emitter *m, const char *text, int max_depth)
{
    size_t col = (size_t)m->indent * 4, cont = col + 8;
    char *work = xstrdup(text), *s = work;
    int depth = 0;
    put_indent(m, 0);
    while (*s) {
        size_t n = piece_len(s, &depth, max_depth);
        if (n == 0) n = 1;
        if (col + n > LINE_WIDTH && col > cont) {
            /* a new line for this piece (the space before it ends the last) */
            end_line(m);
            put_indent(m, 2);
            col = cont;
            while (*s == ' ') { s++; n--; }
            if (n == 0) continue;
        }
        if (s[0] == '"' && col + n > LINE_WIDTH && n > 2) {
            /* split the literal after its last space that fits */
            size_t room = LINE_WIDTH > col + 2 ? LINE_WIDTH - col - 2 : 0, cut = 0, i;
            for (i = 1; i < n - 1 && i <= room; i++) {
                if (s[i] == '\\') { i++; continue; }
                if (s[i] == ' ') cut = i;
            }
            if (cut > 1) {
                /* s[cut] is a space: `"...  "` here, `"rest` goes on */
                char *rest;
                sb_printf(m->out, "%.*s\"", (int)cut + 1, s);
                end_line(m);
                put_indent(m, 2);
                col = cont;
                rest = xprintf("\"%s", s + cut + 1);
                free(work);
                work = s = rest;
                continue;
            }
        }
        sb_printf(m->out, "%.*s", (int)n, s);
        col += n;
        s += n;
    }
    end_line(m);
    free(work);
}

/* put_wrapped_at breaking as shallow as the width allows: a call's
 * arguments stay together where they fit, rather than `AFMT_B(src,` at the
 * end of a line. */
static void put_wrapped(emitter *m, const char *text)
{
    sbuf *out = m->out;
    int depth;
    for (depth = 0; depth < 16; depth++) {
        sbuf try = {0};
        const char *p;
        int fits = 1;
        m->out = &try;
        put_wrapped_at(m, text, depth);
        m->out = out;
        for (p = try.s; p && *p && fits;) {
            const char *eol = strchr(p, '\n');
            size_t len = eol ? (size_t)(eol - p) : strlen(p), lead = strspn(p, " ");
            /* too long, or a continuation that only closes: `)) return -1;` */
            if (len > LINE_WIDTH || (p != try.s && lead < len && p[lead] == ')')) fits = 0;
            p = eol ? eol + 1 : p + len;
        }
        if (fits || depth == 15) {
            sb_puts(out, try.s ? try.s : "");
            sb_free(&try);
            return;
        }
        sb_free(&try);
    }
}

/* Whether a long line may be wrapped: a statement, declaration or
 * condition, not a comment, a preprocessor line or a line the emitter
 * indented itself. */
static int wrappable(const char *s)
{
    return strstr(s, "/*") == NULL && strstr(s, "*/") == NULL && s[0] != '#' && s[0] != ' ';
}

void line(emitter *m, const char *fmt, ...)
{
    va_list ap;
    char *s;
    size_t n;
    int i;
    va_start(ap, fmt);
    s = xvprintf(fmt, ap);
    va_end(ap);
    n = strlen(s);
    /* a line less indented than a proof has left the proof's block */
    while (m->nnonneg > m->nonneg_floor && m->facts[m->nnonneg - 1].indent > m->indent) m->nnonneg--;
    if ((size_t)m->indent * 4 + n > LINE_WIDTH && wrappable(s) && strchr(s, '\n') == NULL) {
        put_wrapped(m, s);
        free(s);
        return;
    }
    if (*s)
        for (i = 0; i < m->indent; i++) sb_puts(m->out, "    ");
    sb_puts(m->out, s);
    sb_puts(m->out, "\n");
    free(s);
}

void gen_error(emitter *m, const char *jpath, const char *fmt, ...)
{
    va_list ap;
    sbuf b = {0};
    m->errors++;
    sb_printf(&b, "%s: %s: ", m->s->path, jpath ? jpath : (m->jpath ? m->jpath : "/"));
    va_start(ap, fmt);
    sb_vprintf(&b, fmt, ap);
    va_end(ap);
    if (!m->last_error || strcmp(m->last_error, b.s) != 0) fprintf(stderr, "%s\n", b.s);
    free(m->last_error);
    m->last_error = b.s;
}

/* The next fact's slot, its strings those of a spare one if any (they
 * are replaced, not appended to): facts grow without a fixed bound. */
static fact *fact_slot(emitter *m)
{
    if (m->nnonneg == m->nfacts_alloc) {
        m->facts = realloc(m->facts, sizeof *m->facts * (size_t)(m->nfacts_alloc * 2 + 16));
        if (!m->facts) { fputs("afmt-gen: out of memory\n", stderr); exit(2); }
        memset(m->facts + m->nfacts_alloc, 0, sizeof *m->facts * (size_t)(m->nfacts_alloc + 16));
        m->nfacts_alloc = m->nfacts_alloc * 2 + 16;
    }
    return &m->facts[m->nnonneg];
}

/* key (and val, NULL for a proof of key >= 0) as the next fact, in force
 * at the current indent. */
static void fact_add(emitter *m, const char *key, const char *val)
{
    fact *f = fact_slot(m);
    str_printf(&f->key, "%s", key);
    free(f->val);
    f->val = val ? xstrdup(val) : NULL;
    f->indent = m->indent;
    m->nnonneg++;
}

void facts_free(emitter *m)
{
    int i;
    for (i = 0; i < m->nfacts_alloc; i++) {
        free(m->facts[i].key);
        free(m->facts[i].val);
    }
    free(m->facts);
    m->facts = NULL;
    m->nfacts_alloc = m->nnonneg = 0;
}

void nonneg_note(emitter *m, const char *c)
{
    if (!nonneg_known(m, c)) fact_add(m, c, NULL);
}

void known_note(emitter *m, const char *key, const char *val)
{
    if (!known_find(m, key)) fact_add(m, key, val);
}

const char *known_find(const emitter *m, const char *key)
{
    int i;
    for (i = m->nonneg_floor; i < m->nnonneg; i++)
        if (m->facts[i].val && m->facts[i].indent <= m->indent && strcmp(m->facts[i].key, key) == 0)
            return m->facts[i].val;
    return NULL;
}

int nonneg_known(const emitter *m, const char *c)
{
    int i;
    for (i = m->nonneg_floor; i < m->nnonneg; i++)
        if (!m->facts[i].val && m->facts[i].indent <= m->indent && strcmp(m->facts[i].key, c) == 0) return 1;
    return 0;
}

sym *sym_push(emitter *m, sym_kind kind, const char *name, item *it)
{
    sym *y;
    if (m->nsyms >= MAX_SYMS) {
        gen_error(m, it ? it->jpath : NULL, "too many names in scope");
        m->nsyms--;
    }
    y = xcalloc(1, sizeof *y);
    y->kind = kind;
    y->name = name;
    y->it = it;
    y->region = m->writer ? NULL : m->region;
    y->c = xstrdup("");
    y->elem = xstrdup("");
    y->count = xstrdup("");
    y->off = xstrdup("");
    m->syms[m->nsyms++] = y;
    return y;
}

void gen_unchecked(emitter *m, const char *jpath, const char *what)
{
    gen_error(m, jpath, "afmt-gen bug: %s, in a spec the checker passed (gen/check.c refuses it)", what);
}

sym *sym_peek(emitter *m, const char *name)
{
    int i;
    for (i = m->nsyms - 1; i >= 0; i--)
        if (strcmp(m->syms[i]->name, name) == 0) return m->syms[i];
    return NULL;
}

sym *sym_find(emitter *m, const char *name)
{
    sym *y = sym_peek(m, name);
    if (y) {
        decl_use(m, y->decl);
        decl_use(m, y->off_decl);
    }
    return y;
}

int sym_mark(emitter *m) { return m->nsyms; }

static void sym_free(sym *y)
{
    free(y->c);
    free(y->elem);
    free(y->count);
    free(y->off);
    free(y);
}

void sym_pop_to(emitter *m, int mark)
{
    while (m->nsyms > mark) sym_free(m->syms[--m->nsyms]);
}

const table *find_table(const spec *s, const char *name)
{
    int i;
    for (i = 0; i < s->ntables; i++)
        if (strcmp(s->tables[i].name, name) == 0) return &s->tables[i];
    return NULL;
}

blame blame_at(const char *field, const char *index_c, const char *offset_c)
{
    blame b;
    fixed_printf(b.field, sizeof b.field, "%s", field ? field : "");
    fixed_printf(b.index, sizeof b.index, "%s", index_c ? index_c : "AFMT_NO_INDEX");
    fixed_printf(b.offset, sizeof b.offset, "%s", offset_c ? offset_c : "c->pos");
    b.off_decl = 0;
    return b;
}

blame blame_of(const sym *y)
{
    blame b = y ? blame_at(y->name, NULL, y->off) : blame_at(NULL, NULL, NULL);
    b.off_decl = y ? y->off_decl : 0;
    return b;
}

char *code_enum(const char *code)
{
    char *e = xprintf("AFMT_E_%s", code), *c;
    for (c = e; *c; c++) {
        if (*c >= 'a' && *c <= 'z') *c = (char)(*c - 'a' + 'A');
        if (*c == '-') *c = '_';
    }
    return e;
}

void emit_fail(emitter *m, const blame *bl, const char *code, leniency len, const char *fmt_c,
               const char *args_c)
{
    char *ce = code_enum(code);
    char *field = c_quote(bl->field, strlen(bl->field));
    const char *args = args_c && *args_c ? args_c : NULL;
    if (!m->writer) decl_use(m, bl->off_decl);
    if (m->writer && len == LEN_NOTE) {
        line(m, "/* a note of the validator's: nothing the writer refuses */");
    } else if (len == LEN_NOTE) {
        line(m, "afmt_warn(c->vis, c->path, %s, %s, %s, %s%s%s);", field, bl->index, bl->offset, fmt_c,
             args ? ", " : "", args ? args : "");
    } else if (m->writer) {
        line(m, "return afmt_fail(err, %s, NULL, %s, %s, AFMT_NO_OFFSET, %s%s%s);", ce, field, bl->index, fmt_c,
             args ? ", " : "", args ? args : "");
    } else {
        /* the validator's: one line through its context (afmt_validation) */
        line(m, len == LEN_WARN ? "if (afmt_tolerate_c(c, %s, %s, %s, %s, %s%s%s)) return -1;"
                                : "return afmt_fail_c(c, %s, %s, %s, %s, %s%s%s);",
             ce, field, bl->index, bl->offset, fmt_c, args ? ", " : "", args ? args : "");
    }
    free(ce);
    free(field);
}

/* s without one pair of parentheses around all of it, in place: `if
 * ((a == b))` is clang's -Wparentheses-equality (a comparison in doubled
 * parentheses reads like a mistyped assignment).  Quoted C strings are
 * skipped, so a paren inside a literal does not count. */
static char *drop_outer_parens(char *s)
{
    size_t n = strlen(s), i, depth = 0;
    int quoted = 0;
    if (n < 2 || s[0] != '(' || s[n - 1] != ')') return s;
    for (i = 0; i < n; i++) {
        if (quoted) {
            if (s[i] == '\\') i++;
            else if (s[i] == '"') quoted = 0;
        } else if (s[i] == '"') {
            quoted = 1;
        } else if (s[i] == '(') {
            depth++;
        } else if (s[i] == ')' && --depth == 0 && i + 1 < n) {
            return s; /* the first paren closes before the end: (a) && (b) */
        }
    }
    memmove(s, s + 1, n - 2);
    s[n - 2] = '\0';
    return s;
}

/* `if (cond)`, as a new string, for every if the generator writes: a
 * condition is often a parenthesised comparison from emit_bool. */
char *if_head(const char *cond)
{
    char *t = xstrdup(cond);
    char *h = xprintf("if (%s)", drop_outer_parens(t));
    free(t);
    return h;
}

/* The line `<before>if (cond) {` (before: "", or "} else " for a chain). */
void emit_if_open(emitter *m, const char *before, const char *cond)
{
    char *h = if_head(cond);
    line(m, "%s%s {", before, h);
    free(h);
}

/* `if (cond) <stmt>` on one line when it fits, else the statement in
 * braces under the condition (a statement that wraps is a block). */
void emit_if_stmt(emitter *m, const char *cond, const char *stmt)
{
    char *h = if_head(cond);
    char *one = xprintf("%s %s", h, stmt);
    if ((size_t)m->indent * 4 + strlen(one) <= LINE_WIDTH) {
        line(m, "%s", one);
    } else {
        line(m, "%s {", h);
        m->indent++;
        line(m, "%s", stmt);
        m->indent--;
        line(m, "}");
    }
    free(one);
    free(h);
}

/* A failure as one statement: `if (cond) return afmt_fail(...);`, or for
 * a lenient one `if (cond && afmt_tolerate(...)) return -1;`.  The common
 * shape of a check: two or three lines instead of a block of four or five. */
void emit_fail_if(emitter *m, const char *cond, const blame *bl, const char *code, leniency len,
                  const char *fmt_c, const char *args_c)
{
    char *ce = code_enum(code);
    char *field = c_quote(bl->field, strlen(bl->field));
    const char *sep = args_c && *args_c ? ", " : "", *args = args_c && *args_c ? args_c : "";
    char *stmt;
    if (!m->writer) decl_use(m, bl->off_decl);
    if (m->writer && len == LEN_NOTE) {
        stmt = NULL; /* a note of the validator's: nothing the writer refuses */
    } else if (len == LEN_NOTE) {
        stmt = xprintf("afmt_warn(c->vis, c->path, %s, %s, %s, %s%s%s);", field, bl->index, bl->offset, fmt_c, sep, args);
        emit_if_stmt(m, cond, stmt);
    } else if (m->writer) {
        stmt = xprintf("return afmt_fail(err, %s, NULL, %s, %s, AFMT_NO_OFFSET, %s%s%s);", ce, field, bl->index, fmt_c, sep, args);
        emit_if_stmt(m, cond, stmt);
    } else if (len == LEN_WARN) {
        stmt = xprintf("if (afmt_tolerate_c(c, %s, %s, %s, %s, %s%s%s)) return -1;", ce, field, bl->index,
                       bl->offset, fmt_c, sep, args);
        emit_if_open(m, "", cond);
        m->indent++;
        line(m, "%s", stmt);
        m->indent--;
        line(m, "}");
    } else {
        stmt = xprintf("return afmt_fail_c(c, %s, %s, %s, %s, %s%s%s);", ce, field, bl->index, bl->offset, fmt_c,
                       sep, args);
        emit_if_stmt(m, cond, stmt);
    }
    free(stmt);
    free(ce);
    free(field);
}

/* `if (cond) return afmt_fail_overflow(...)`: the failure of checked
 * arithmetic, "`text` overflows 64 bits" said by the runtime. */
void emit_overflow_if(emitter *m, const char *cond, const blame *bl, const char *text)
{
    char *field = c_quote(bl->field, strlen(bl->field));
    char *q = c_quote(text ? text : "?", strlen(text ? text : "?"));
    char *stmt = m->writer ? xprintf("return afmt_fail_overflow(err, NULL, %s, %s, AFMT_NO_OFFSET, %s);", field, bl->index, q)
                           : xprintf("return afmt_overflow_c(c, %s, %s, %s, %s);", field, bl->index, bl->offset, q);
    if (!m->writer) decl_use(m, bl->off_decl);
    emit_if_stmt(m, cond, stmt);
    free(stmt);
    free(field);
    free(q);
}

/* The C enumerator of a dtype name ("f32" -> "AFMT_F32"), or NULL when the
 * runtime's dtype table (afmt_dtype.c, linked into afmt-gen) has no such
 * name: one table for the generator and the runtime.  Every enumerator is
 * AFMT_ and the upper-cased name.  Returned strings live until exit. */
const char *dtype_enum(const char *dtype)
{
    afmt_dtype d = afmt_dtype_from_name(dtype);
    char *e;
    size_t i;
    if (d == AFMT_DTYPE_INVALID) return NULL;
    e = xprintf("AFMT_%s", dtype);
    for (i = 5; e[i]; i++)
        if (e[i] >= 'a' && e[i] <= 'z') e[i] = (char)(e[i] - 'a' + 'A');
    return e;
}

const char *int_c_type(int is_signed) { return is_signed ? "int64_t" : "uint64_t"; }

const char *big_c(const emitter *m, int big)
{
    if (big == ORDER_RUN) return m->writer ? (m->s->big_endian ? "1" : "0") : "c->big";
    return big ? "1" : "0";
}

const char *endian_c(const emitter *m, int big)
{
    if (big == ORDER_RUN && !m->writer) return "(c->big ? AFMT_BIG : AFMT_LITTLE)";
    return strcmp(big_c(m, big), "1") == 0 ? "AFMT_BIG" : "AFMT_LITTLE";
}

char *load_c(int width, int is_signed, int big, const char *ptr)
{
    char *raw;
    if (width == 1) raw = xprintf("afmt_load_u8(%s)", ptr);
    else if (big == ORDER_RUN) raw = xprintf("afmt_field_get(%s, 0, %d, c->big)", ptr, width);
    else raw = xprintf("afmt_load_u%d%s(%s)", width * 8, big ? "be" : "le", ptr);
    if (is_signed) {
        char *s = xprintf("afmt_as_i64(%s, %d)", raw, width * 8);
        free(raw);
        return s;
    }
    if (width < 8) {
        char *s = xprintf("(uint64_t)%s", raw);
        free(raw);
        return s;
    }
    return raw;
}

/* helper_once for <fmt>_<table><suffix>, one of table tb's helpers: ""
 * its entries (the name c_names_reserve claimed for the table), "_known"
 * the list of them for messages, "_blocks" its block types. */
int table_helper(emitter *m, const table *tb, const char *suffix, const char **cname)
{
    char *name = xprintf("%s_%s%s", m->s->format, tb->name, suffix);
    char *what = !*suffix ? xprintf("table '%s'", tb->name)
                 : strcmp(suffix, "_known") == 0 ? xprintf("the list of the entries of table '%s'", tb->name)
                                                 : xprintf("the block types of table '%s'", tb->name);
    int rc = helper_once(m, name, what, tb->jpath, cname);
    free(name);
    free(what);
    return rc;
}

/* The rows of `static const afmt_type_entry name[]`: tb's entries but its
 * block entries (text keys of key_size bytes, or integers when 0). */
static void put_type_rows(emitter *m, const table *tb, const char *name, int key_size, int nrows)
{
    int i;
    {
        char *path = c_comment(m->s->path);
        if (nrows < tb->nentries)
            sb_printf(m->prelude, "/* Table %s (%s %s):\n * its entries but the block types (%s_blocks),\n * for the validator and the writer. */\n",
                      tb->name, path, tb->jpath ? tb->jpath : "", name);
        else
            sb_printf(m->prelude, "/* Table %s (%s %s), for the validator and the writer. */\n", tb->name, path,
                      tb->jpath ? tb->jpath : "");
        free(path);
    }
    sb_printf(m->prelude, "static const afmt_type_entry %s[%d] = {\n", name, nrows);
    for (i = 0; i < tb->nentries; i++) {
        const table_entry *te = &tb->entries[i];
        const char *enc = te->encoding && strcmp(te->encoding, "bits-lsb") == 0 ? "AFMT_ENC_BITS_LSB" : "AFMT_ENC_PLAIN";
        if (te->block_elems) continue;
        if (key_size > 0) {
            char *padded = xcalloc((size_t)key_size + 1, 1), *q;
            memcpy(padded, te->key[0]->sval, strlen(te->key[0]->sval));
            q = c_quote(padded, (size_t)key_size);
            sb_printf(m->prelude, "    {.text = %s, .dtype = %s, .enc = %s, .writable = %d},\n", q,
                      dtype_enum(te->dtype), enc, te->writable);
            free(padded);
            free(q);
        } else {
            sb_printf(m->prelude, "    {.code = %llu, .dtype = %s, .enc = %s, .writable = %d},\n",
                      (unsigned long long)te->key[0]->ival, dtype_enum(te->dtype), enc, te->writable);
        }
    }
    sb_puts(m->prelude, "};\n\n");
}

/* Emit (once) `static const afmt_type_entry <fmt>_<table>[]` for a table
 * whose entries each map one literal key (text of key_size bytes, or an
 * integer when key_size is 0) to a plain dtype, and return its name; NULL
 * when the table is not that simple (the caller then spells it out). */
const char *type_table(emitter *m, const table *tb, int key_size)
{
    int i;
    const char *name;
    for (i = 0; i < tb->nentries; i++) {
        const table_entry *te = &tb->entries[i];
        const expr *k = te->key && te->nkey == 1 ? te->key[0] : NULL;
        if (!k || te->size || te->warn || !te->dtype || !dtype_enum(te->dtype) || strcmp(te->dtype, "opaque") == 0)
            return NULL;
        if (key_size > 0 ? k->kind != E_STR || (int)strlen(k->sval) > key_size : k->kind != E_INT) return NULL;
    }
    if (table_helper(m, tb, "", &name) == 0) put_type_rows(m, tb, name, key_size, tb->nentries);
    return name;
}

const char *block_table(emitter *m, const table *tb, int *n)
{
    int i;
    const char *name;
    *n = 0;
    for (i = 0; i < tb->nentries; i++) {
        const table_entry *te = &tb->entries[i];
        if (!te->block_elems || !te->writable) continue;
        if (!te->key || te->nkey != 1 || te->key[0]->kind != E_INT) return NULL;
        (*n)++;
    }
    if (*n == 0) return NULL;
    if (table_helper(m, tb, "_blocks", &name) != 0) return name;
    sb_printf(m->prelude, "/* The block types of table %s: code, name, elements per block, bytes\n"
                          " * (for the validator and the writer). */\n", tb->name);
    sb_printf(m->prelude, "static const afmt_block_entry %s[%d] = {\n", name, *n);
    for (i = 0; i < tb->nentries; i++) {
        const table_entry *te = &tb->entries[i];
        if (!te->block_elems || !te->writable) continue;
        sb_printf(m->prelude, "    {%llu, \"%s\", %llu, %llu},\n", (unsigned long long)te->key[0]->ival,
                  te->type_name ? te->type_name : "", (unsigned long long)te->block_elems,
                  (unsigned long long)te->block_bytes);
    }
    sb_puts(m->prelude, "};\n\n");
    return name;
}

/* Does entry te fit the plain and block tables of tb (type_block_tables)?
 * One integer key, no warning; a plain dtype, or a block type the
 * writer's table holds (writable). */
static int entry_plain_or_block(const table_entry *te)
{
    if (!te->key || te->nkey != 1 || !te->key[0] || te->key[0]->kind != E_INT || te->warn || te->size) return 0;
    if (!te->dtype || !dtype_enum(te->dtype)) return 0;
    if (te->encoding && strcmp(te->encoding, "bits-lsb") == 0 && strcmp(te->dtype, "bool") != 0) return 0;
    if (strcmp(te->dtype, "opaque") == 0) return te->block_elems && te->writable;
    return !te->block_elems && !te->type_name;
}

const char *type_block_tables(emitter *m, const table *tb, int *nplain, const char **blocks, int *nblocks)
{
    const char *name;
    int i, k;
    *nplain = 0;
    for (i = 0; i < tb->nentries; i++) {
        const table_entry *te = &tb->entries[i];
        if (!entry_plain_or_block(te)) return NULL;
        /* looked up in two tables, the first match of one key is the entry */
        for (k = 0; k < i; k++)
            if (tb->entries[k].key[0]->ival == te->key[0]->ival) return NULL;
        *nplain += !te->block_elems;
    }
    if (*nplain == 0 || *nplain == tb->nentries) return NULL;
    *blocks = block_table(m, tb, nblocks);
    if (!*blocks) return NULL;
    if (table_helper(m, tb, "", &name) == 0) put_type_rows(m, tb, name, 0, *nplain);
    return name;
}

/* Is entry te of a two-integer-key table one row of an afmt_type_entry2
 * table (two integer keys, a plain dtype, no size)? */
static int entry2_plain(const table_entry *te)
{
    return te->key && te->nkey == 2 && te->key[0] && te->key[1] && te->key[0]->kind == E_INT && te->key[1]->kind == E_INT &&
           !te->size && te->dtype && dtype_enum(te->dtype) && strcmp(te->dtype, "opaque") != 0 &&
           (!te->encoding || strcmp(te->encoding, "bits-lsb") != 0 || strcmp(te->dtype, "bool") == 0);
}

int table2_plain_count(const table *tb)
{
    int n = 0;
    while (n < tb->nentries && entry2_plain(&tb->entries[n])) n++;
    return n;
}

/* A C string literal of text in pieces of at most ~80 columns. */
static void quote_wrapped(sbuf *o, const char *text, const char *indent)
{
    size_t at = 0, len = strlen(text);
    while (at < len) {
        size_t n = len - at;
        char *q;
        if (n > 80) {
            n = 80;
            while (n > 20 && text[at + n] != ' ') n--;
            if (text[at + n] == ' ') n++;
        }
        q = c_quote(text + at, n);
        sb_printf(o, "%s%s%s", at ? "\n" : "", at ? indent : "", q);
        free(q);
        at += n;
    }
}

/* `static const afmt_type_entry2 <fmt>_<table>[]` (emitted once) for the
 * plain two-key entries of tb (the first nplain), or NULL. */
const char *type_table2(emitter *m, const table *tb, int nplain)
{
    const char *name;
    int i;
    if (table_helper(m, tb, "", &name) != 0) return name;
    {
        char *path = c_comment(m->s->path);
        sb_printf(m->prelude, "/* Table %s (%s %s): its entries of two keys,\n * for the validator and the writer. */\n",
                  tb->name, path, tb->jpath ? tb->jpath : "");
        free(path);
    }
    sb_printf(m->prelude, "static const afmt_type_entry2 %s[%d] = {\n", name, nplain);
    for (i = 0; i < nplain; i++) {
        const table_entry *te = &tb->entries[i];
        const char *enc = te->encoding && strcmp(te->encoding, "bits-lsb") == 0 ? "AFMT_ENC_BITS_LSB" : "AFMT_ENC_PLAIN";
        sb_printf(m->prelude, "    {.key = {%llu, %llu}, .dtype = %s, .enc = %s, .writable = %d",
                  (unsigned long long)te->key[0]->ival, (unsigned long long)te->key[1]->ival, dtype_enum(te->dtype),
                  enc, te->writable);
        if (te->warn) {
            sb_puts(m->prelude, ",\n     .warn = ");
            quote_wrapped(m->prelude, te->warn, "             ");
        }
        sb_puts(m->prelude, "},\n");
    }
    sb_puts(m->prelude, "};\n\n");
    return name;
}

/* "; known: (1, 1) i8, (1, 2) i16, ..., eltype == 0 && elbyte > 0: opaque"
 * (GGUF's: "0 f32, 1 f16, 2 Q4_0, ...")
 * (malloc'd): an unknown type code lists the valid ones, straight from the
 * spec's table. */
char *table_known_text(const table *tb)
{
    sbuf b = {0};
    char *q;
    int i, k;

    sb_puts(&b, "; known: ");
    for (i = 0; i < tb->nentries; i++) {
        const table_entry *te = &tb->entries[i];
        if (i)
            sb_puts(&b, ", ");
        if (!te->key) {
            sb_printf(&b, "%s: %s", te->when_text ? te->when_text : "when", te->dtype);
            continue;
        }
        if (te->nkey > 1)
            sb_puts(&b, "(");
        for (k = 0; k < te->nkey; k++) {
            const expr *e = te->key[k];
            if (k)
                sb_puts(&b, ", ");
            if (!e)
                sb_puts(&b, "*");
            else if (e->kind == E_INT)
                sb_printf(&b, "%llu", (unsigned long long)e->ival);
            else if (e->kind == E_UNARY && e->op == TK_MINUS && e->a && e->a->kind == E_INT)
                sb_printf(&b, "-%llu", (unsigned long long)e->a->ival);
            else if (e->kind == E_STR)
                sb_printf(&b, "'%s'", e->sval);
            else
                sb_puts(&b, "?");
        }
        if (te->nkey > 1)
            sb_puts(&b, ")");
        /* an opaque type the format names is listed by that name (Q4_0) */
        sb_printf(&b, " %s", te->type_name ? te->type_name : te->dtype);
    }
    q = xstrdup(b.s ? b.s : "");
    sb_free(&b);
    return q;
}

const char *known_table(emitter *m, const table *tb)
{
    const char *name;
    char *text;
    int rc = table_helper(m, tb, "_known", &name);
    if (rc != 0) return rc > 0 ? name : "\"\"";
    text = table_known_text(tb);
    sb_printf(m->prelude, "/* The entries of table %s, listed when no entry matches. */\n", tb->name);
    sb_printf(m->prelude, "static const char %s[] =\n    ", name);
    quote_wrapped(m->prelude, text, "    ");
    sb_puts(m->prelude, ";\n\n");
    free(text);
    return name;
}

/* Declarations emitted only where used.  A placeholder line ("\x01" and
 * the number of a piece of text, then a newline) stands where the
 * declaration would go; decls_resolve puts the text there if the
 * declaration was used (decl_use), nothing if not. */
int decl_new(emitter *m)
{
    m->decl_used = realloc(m->decl_used, (size_t)(m->ndecls + 1) * sizeof *m->decl_used);
    m->decl_needs = realloc(m->decl_needs, (size_t)(m->ndecls + 1) * sizeof *m->decl_needs);
    if (!m->decl_used || !m->decl_needs) abort();
    m->decl_used[m->ndecls] = 0;
    m->decl_needs[m->ndecls] = 0;
    return ++m->ndecls;
}

/* A piece of text standing for declaration id's placeholder: emitted
 * when id is used (when > 0) or when it is not (the piece's number
 * stored negated). */
static void decl_piece(emitter *m, int id, char *s)
{
    sbuf text = {0}, *out = m->out;
    m->out = &text; /* the line as line() writes it: indented, wrapped */
    line(m, "%s", s);
    m->out = out;
    free(s);
    m->pieces = realloc(m->pieces, (size_t)(m->npieces + 1) * sizeof *m->pieces);
    m->piece_decl = realloc(m->piece_decl, (size_t)(m->npieces + 1) * sizeof *m->piece_decl);
    if (!m->pieces || !m->piece_decl) abort();
    m->pieces[m->npieces] = text.s ? text.s : xstrdup("");
    m->piece_decl[m->npieces] = id;
    sb_printf(m->out, "\x01%d\n", m->npieces++);
}

void decl_line(emitter *m, int id, const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    s = xvprintf(fmt, ap);
    va_end(ap);
    decl_piece(m, id, s);
}

void decl_unless_used(emitter *m, int id, const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    s = xvprintf(fmt, ap);
    va_end(ap);
    decl_piece(m, -id, s);
}

int decl_defer(emitter *m, const char *fmt, ...)
{
    va_list ap;
    char *s;
    int id = decl_new(m);
    va_start(ap, fmt);
    s = xvprintf(fmt, ap);
    va_end(ap);
    decl_line(m, id, "%s", s);
    free(s);
    return id;
}

void decl_needs(emitter *m, int id, int other)
{
    if (id > 0 && id <= m->ndecls) m->decl_needs[id - 1] = other;
}

void decl_use(emitter *m, int id)
{
    while (id > 0 && id <= m->ndecls && !m->decl_used[id - 1]) {
        m->decl_used[id - 1] = 1;
        id = m->decl_needs[id - 1];
    }
}

char *decls_resolve(const emitter *m, const char *text)
{
    sbuf out = {0};
    const char *p = text ? text : "";
    while (*p) {
        const char *mark = strchr(p, '\x01');
        char *end;
        long k;
        if (!mark) { sb_puts(&out, p); break; }
        sb_printf(&out, "%.*s", (int)(mark - p), p);
        k = strtol(mark + 1, &end, 10);
        if (k >= 0 && k < m->npieces) {
            int d = m->piece_decl[k], used = m->decl_used[(d > 0 ? d : -d) - 1];
            if (d > 0 ? used : !used) sb_puts(&out, m->pieces[k]);
        }
        p = *end == '\n' ? end + 1 : end;
    }
    return out.s ? out.s : xstrdup("");
}
