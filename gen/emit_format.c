/* afmt-gen: assemble generated/<format>.{h,c} and generated/afmt_formats.c.
 *
 * Output is deterministic: no dates, no paths other than the spec's own
 * relative path, and files are only rewritten when their content changes
 * (so make does not rebuild what did not change).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "afmt.h" /* AFMT_VERSION_STRING, AFMT_RUNTIME_ABI */
#include "text/afmt_cards.h"

static int write_if_changed(const char *path, const char *text)
{
    FILE *f = fopen(path, "rb");
    size_t n = strlen(text);
    if (f) {
        char *old = xcalloc(n + 2, 1);
        size_t got = fread(old, 1, n + 1, f);
        fclose(f);
        if (got == n && memcmp(old, text, n) == 0) { free(old); return 0; }
        free(old);
    }
    f = fopen(path, "wb");
    if (!f || fwrite(text, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "afmt-gen: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

/* The writer of a spec marked "read_only": it refuses, saying why, so the
 * format keeps its validator and reader and afmt_format stays complete
 * (can_write and encoded_size go through it and refuse alike). */
static void emit_refusing_writer(sbuf *out, const spec *s)
{
    char *why = xprintf("%s is read-only: %s", s->format, s->read_only);
    char *q = c_quote(why, strlen(why));
    sb_printf(out,
              "static int %s_write_impl(const afmt_array *arrays, size_t n, const afmt_write_options *wopt,\n"
              "                         afmt_sink *sink, afmt_error *err, uint8_t **owned)\n"
              "{\n"
              "    (void)arrays; (void)n; (void)wopt; (void)sink; (void)owned;\n"
              "    return afmt_fail(err, AFMT_E_UNSUPPORTED, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET, \"%%s\", %s);\n"
              "}\n",
              s->format, q);
    free(q);
    free(why);
}

static void emit_detect(emitter *m)
{
    const spec *s = m->s;
    int i;
    line(m, "int afmt_%s_detect(const uint8_t *buf, uint64_t len)", s->format);
    line(m, "{");
    m->indent++;
    if (s->ndetect == 0) {
        line(m, "(void)buf;");
        line(m, "(void)len;");
        line(m, "return 0; /* no magic: found by extension only */");
    }
    for (i = 0; i < s->ndetect; i++) {
        const detect_rule *r = &s->detect[i];
        const unsigned long long at = (unsigned long long)r->at, n = (unsigned long long)r->nbytes;
        char *q = c_quote((const char *)r->bytes, (size_t)r->nbytes);
        if (r->first_member) {
            /* the bytes, and the first member's name (an archive: zip or tar) */
            char *pq = c_quote(r->first_member, strlen(r->first_member));
            line(m, "if (len >= %llu && memcmp(buf + %llu, %s, %llu) == 0 && afmt_archive_first_member_is(buf, len, %s))",
                 at + n, at, q, n, pq);
            line(m, "    return 1;");
            free(pq);
        } else if (r->skip_ws || at > UINT64_MAX - n) {
            /* the bytes come after white space: where is known at run time */
            line(m, "{");
            m->indent++;
            line(m, "uint64_t at = 0;");
            if (r->skip_ws) line(m, "while (at < len && at < 64 && afmt_is_space(buf[at])) at++;");
            if (at) line(m, "at += %llu;", at);
            line(m, "if (len >= at && len - at >= %llu && memcmp(buf + at, %s, %llu) == 0) return 1;", n, q, n);
            m->indent--;
            line(m, "}");
        } else if (at) {
            line(m, "if (len >= %llu && memcmp(buf + %llu, %s, %llu) == 0) return 1;", at + n, at, q, n);
        } else {
            line(m, "if (len >= %llu && memcmp(buf, %s, %llu) == 0) return 1;", n, q, n);
        }
        free(q);
    }
    if (s->ndetect) line(m, "return 0;");
    m->indent--;
    line(m, "}");
}

static int has_top_repeat(const spec *s)
{
    int i;
    for (i = 0; i < s->body.n; i++)
        if ((s->body.v[i]->kind == IT_REPEAT && s->body.v[i]->repeat.until_end) || s->body.v[i]->kind == IT_DIRECTORY)
            return 1; /* a directory places as many arrays as it has records */
    return 0;
}

/* Can a file hold several arrays: a top-level repeat of them, or a table
 * of columns (a DAPHNE frame)? */
/* Does any payload of the spec have "compressed" (the writer then
 * honours wopt->compress)? */
static int has_compressed(item_list *body)
{
    int i, j;
    for (i = 0; i < body->n; i++) {
        item *it = body->v[i];
        if (it->kind == IT_ARRAY && it->array.compressed) return 1;
        if ((it->kind == IT_REGION || it->kind == IT_REPEAT) && has_compressed(&it->body)) return 1;
        if (it->kind == IT_SWITCH)
            for (j = 0; j < it->ncases; j++)
                if (has_compressed(&it->cases[j].body)) return 1;
    }
    return 0;
}

/* Does a repeat of body declare "metadata" (typed key-values)? */
static int has_kv_metadata(const item_list *body)
{
    int i;
    for (i = 0; i < body->n; i++)
        if (body->v[i]->kind == IT_REPEAT && (body->v[i]->repeat.meta_value || has_kv_metadata(&body->v[i]->body))) return 1;
    return 0;
}

/* Does a text header of body keep a JSON object of metadata? */
static int has_json_metadata(const item_list *body)
{
    int i;
    for (i = 0; i < body->n; i++)
        if ((body->v[i]->kind == IT_TEXTHDR && body->v[i]->th->metadata_key) ||
            ((body->v[i]->kind == IT_REGION || body->v[i]->kind == IT_REPEAT) && has_json_metadata(&body->v[i]->body)))
            return 1;
    return 0;
}

static int holds_columns(const item_list *b)
{
    int i, j;
    for (i = 0; i < b->n; i++) {
        const item *it = b->v[i];
        if (it->kind == IT_ARRAY && it->array.layout == LAYOUT_COLUMNS) return 1;
        if ((it->kind == IT_REPEAT || it->kind == IT_REGION) && holds_columns(&it->body)) return 1;
        if (it->kind == IT_SWITCH)
            for (j = 0; j < it->ncases; j++)
                if (holds_columns(&it->cases[j].body)) return 1;
    }
    return 0;
}

static int first_order(item_list *b)
{
    int i, j, o;
    for (i = 0; i < b->n; i++) {
        item *it = b->v[i];
        if (it->kind == IT_ARRAY) return it->array.col_major ? 1 : 0;
        if (it->kind == IT_CARDS && it->cards) return it->cards->order == AFMT_COL_MAJOR;
        if (it->kind == IT_REPEAT || it->kind == IT_REGION) { o = first_order(&it->body); if (o >= 0) return o; }
        if (it->kind == IT_SWITCH)
            for (j = 0; j < it->ncases; j++) { o = first_order(&it->cases[j].body); if (o >= 0) return o; }
    }
    return -1;
}

/* Generated code fills afmt_format by position and calls internal runtime
 * functions: it must meet the runtime ABI it was generated for (afmt.h). */
static void emit_abi_check(sbuf *hdr, const char *f)
{
    sb_printf(hdr, "#if !defined(AFMT_RUNTIME_ABI) || AFMT_RUNTIME_ABI != %d\n", AFMT_RUNTIME_ABI);
    sb_printf(hdr, "#error \"%s.h was generated by afmt-gen " AFMT_VERSION_STRING " for runtime ABI %d, "
                   "which this runtime (afmt.h) is not: regenerate it with the afmt-gen of this runtime\"\n",
              f, AFMT_RUNTIME_ABI);
    sb_puts(hdr, "#endif\n\n");
}

/* #include of a runtime header from generated code: "name" where it is
 * beside the file or on the include path (a vendored copy, the shipped
 * formats' headers installed beside afmt.h), else <afmt/name> (code
 * generated out of tree, built against an installed afmt with
 * pkg-config's -I<includedir>).  A compiler without __has_include gets
 * "name" (then -I<includedir>/afmt). */
static void emit_runtime_include(sbuf *b, const char *name)
{
    sb_printf(b, "/* %s beside this file or on the include path, else an installed afmt's */\n"
                 "#if defined(__has_include)\n"
                 "#if __has_include(\"%s\")\n"
                 "#include \"%s\"\n"
                 "#else\n"
                 "#include <afmt/%s>\n"
                 "#endif\n"
                 "#else\n"
                 "#include \"%s\"\n"
                 "#endif\n", name, name, name, name, name);
}

/* One declaration of a format's public function: "AFMT_API int
 * afmt_<f>_<what>(<first>" and, if more is given, its continuation line
 * aligned under the first parameter. */
static void emit_decl(sbuf *hdr, const char *f, const char *what, const char *first, const char *more)
{
    int indent = (int)(strlen("AFMT_API int afmt_") + strlen(f) + 1 + strlen(what) + 1);
    if (!more) {
        sb_printf(hdr, "AFMT_API int afmt_%s_%s(%s);\n", f, what, first);
        return;
    }
    sb_printf(hdr, "AFMT_API int afmt_%s_%s(%s\n%*s%s);\n", f, what, first, indent, "", more);
}

/* generated/<format>.h: the format's public declarations. */
static void emit_header(sbuf *hdr, const spec *s)
{
    const char *f = s->format;
    char upper[64];
    char *path = c_comment(s->path), *title = c_comment(s->title ? s->title : f); /* spec text in comments */
    int i;
    for (i = 0; f[i] && i < 63; i++) upper[i] = (char)toupper((unsigned char)f[i]);
    upper[i] = 0;
    sb_printf(hdr, "/* Generated by afmt-gen " AFMT_VERSION_STRING " from %s. Do not edit. */\n", path);
    sb_printf(hdr, "#ifndef AFMT_GENERATED_%s_H\n#define AFMT_GENERATED_%s_H\n\n", upper, upper);
    emit_runtime_include(hdr, "afmt.h");
    sb_puts(hdr, "\n");
    emit_abi_check(hdr, f);
    sb_puts(hdr, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
    sb_printf(hdr, "/* %s */\n", title);
    free(path);
    free(title);
    sb_printf(hdr, "AFMT_API extern const afmt_format afmt_%s_format;\n\n", f);
    sb_printf(hdr, "/* 1 if buf starts like a %s file. */\n", f);
    emit_decl(hdr, f, "detect", "const uint8_t *buf, uint64_t len", NULL);
    sb_printf(hdr, "/* 0 if buf[0..len) is a valid %s file, else -1 with err filled.\n"
                    " * Each array found goes to vis->on_array (a zero-copy view into buf).\n"
                    " * opt may be NULL for the defaults (strict). */\n", f);
    emit_decl(hdr, f, "validate", "const uint8_t *buf, uint64_t len, const afmt_options *opt,",
              "const afmt_visitor *vis, afmt_error *err");
    sb_printf(hdr, "/* The same over a source: a buffer, or a stream read through a fixed\n"
                    " * window (views of streamed payloads then carry no data). */\n");
    emit_decl(hdr, f, "validate_src", "afmt_src *src, const afmt_options *opt, const afmt_visitor *vis,",
              "afmt_error *err");
    if (s->read_only)
        sb_printf(hdr, "/* %s is read-only (\"read_only\" in its spec): can_write, encoded_size\n"
                        " * and write always fail with AFMT_E_UNSUPPORTED saying why. */\n", f);
    sb_printf(hdr, "/* 0 if a %s file can hold this array (dtype, rank, sizes). */\n", f);
    emit_decl(hdr, f, "can_write", "const afmt_array *array, afmt_error *err", NULL);
    sb_printf(hdr, "/* Exact number of bytes afmt_%s_write produces. */\n", f);
    emit_decl(hdr, f, "encoded_size", "const afmt_array *arrays, size_t n, const afmt_write_options *wopt,",
              "uint64_t *size, afmt_error *err");
    sb_printf(hdr, "/* Write the arrays (plain, little-endian, in the format's order) to sink,\n"
                    " * computing every derived field (sizes, counts, padding). */\n");
    emit_decl(hdr, f, "write", "const afmt_array *arrays, size_t n, const afmt_write_options *wopt,",
              "afmt_sink *sink, afmt_error *err");
    sb_puts(hdr, "\n#ifdef __cplusplus\n}\n#endif\n");
    sb_printf(hdr, "#endif\n");
}

/* static const char *const <format>_<what>[] = {".ra", NULL}; */
static void emit_extension_table(sbuf *src, const char *f, const char *what, char **list, int n)
{
    int i;
    sb_printf(src, "static const char *const %s_%s[] = {", f, what);
    for (i = 0; i < n; i++) {
        char *q = c_quote(list[i], strlen(list[i]));
        sb_printf(src, "%s, ", q);
        free(q);
    }
    sb_puts(src, "NULL};\n");
}

/* The top of generated/<format>.c: includes, extensions. */
static void emit_source_head(sbuf *src, const spec *s)
{
    const char *f = s->format;
    int i;
    char *path = c_comment(s->path);
    sb_printf(src, "/* Generated by afmt-gen " AFMT_VERSION_STRING " from %s. Do not edit. */\n", path);
    free(path);
    sb_printf(src, "#include \"%s.h\"\n", f);
    /* the formats an archive's members are parsed by (their afmt_<name>_format) */
    for (i = 0; i < s->body.n; i++)
        if (s->body.v[i]->kind == IT_ARCHIVE && s->body.v[i]->ar) {
            const archive *a = s->body.v[i]->ar;
            int k;
            for (k = 0; k < a->nrules; k++)
                if (a->rules[k].action == AR_FORMAT && a->rules[k].format)
                    sb_printf(src, "#include \"%s.h\"\n", a->rules[k].format);
        }
    emit_runtime_include(src, "afmt_internal.h");
    sb_puts(src, "\n#include <inttypes.h>\n#include <stdlib.h>\n#include <string.h>\n\n");
    emit_extension_table(src, f, "extensions", s->extensions, s->nextensions);
    emit_extension_table(src, f, "shared_extensions", s->shared_extensions, s->nshared_extensions);
    sb_puts(src, "\n");
}

/* One public function: its signature, and a body of one statement. */
static void emit_one_liner(emitter *m, const char *signature, const char *statement)
{
    line(m, "%s", signature);
    line(m, "{");
    m->indent++;
    line(m, "%s", statement);
    m->indent--;
    line(m, "}");
    line(m, "%s", "");
}

/* The public entry points are one-liners over the runtime's drivers
 * (runtime/core/afmt_driver.c): defaults, error clearing, the format name on
 * errors and the writer's scratch buffer live there, once. */
static void emit_validate_entries(emitter *m)
{
    const char *f = m->s->format;
    char *sig, *st;
    sig = xprintf("int afmt_%s_validate_src(afmt_src *src, const afmt_options *opt, const afmt_visitor *vis, "
                  "afmt_error *err)", f);
    st = xprintf("return afmt_run_validator(%s_validate_body, \"%s\", src, opt, vis, err);", f, f);
    emit_one_liner(m, sig, st);
    free(sig); free(st);
    sig = xprintf("int afmt_%s_validate(const uint8_t *buf, uint64_t len, const afmt_options *opt, "
                  "const afmt_visitor *vis, afmt_error *err)", f);
    st = xprintf("return afmt_run_validator_buffer(%s_validate_body, \"%s\", buf, len, opt, vis, err);", f, f);
    emit_one_liner(m, sig, st);
    free(sig); free(st);
}

static void emit_write_entries(emitter *m)
{
    const char *f = m->s->format;
    char *sig, *st;
    sig = xprintf("int afmt_%s_encoded_size(const afmt_array *arrays, size_t n, const afmt_write_options *wopt, "
                  "uint64_t *size, afmt_error *err)", f);
    st = xprintf("return afmt_run_writer_size(%s_write_impl, \"%s\", arrays, n, wopt, size, err);", f, f);
    emit_one_liner(m, sig, st);
    free(sig); free(st);
    line(m, "int afmt_%s_can_write(const afmt_array *array, afmt_error *err)", f);
    line(m, "{");
    m->indent++;
    line(m, "uint64_t size;");
    line(m, "return afmt_%s_encoded_size(array, 1, NULL, &size, err);", f);
    m->indent--;
    line(m, "}");
    line(m, "%s", "");
    sig = xprintf("int afmt_%s_write(const afmt_array *arrays, size_t n, const afmt_write_options *wopt, "
                  "afmt_sink *sink, afmt_error *err)", f);
    st = xprintf("return afmt_run_writer(%s_write_impl, \"%s\", arrays, n, wopt, sink, err);", f, f);
    emit_one_liner(m, sig, st);
    free(sig); free(st);
}

/* The format's afmt_format (and its sidecar's description). */
static void emit_descriptor(sbuf *src, const spec *s)
{
    const char *f = s->format;
    if (s->sidecar_suffix) {
        int k;
        sb_printf(src, "/* The sidecar file written and checked beside the data. */\n");
        static const char *const key_members[6] = {"key_rows", "key_cols", "key_value_type", "key_nnz",
                                                   "key_schema", "key_label"};
        sb_printf(src, "static const afmt_meta_desc %s_sidecar = {\n    .suffix = \"%s\",\n", f, s->sidecar_suffix);
        for (k = 0; k < 6; k++)
            sb_printf(src, "    .%s = \"%s\",\n", key_members[k], s->sidecar_keys[k] ? s->sidecar_keys[k] : "");
        sb_puts(src, "    .value_names = {\n");
        for (k = 0; k < s->nsidecar_names; k++)
            sb_printf(src, "        [%s] = \"%s\",\n", dtype_enum(s->sidecar_names[k][0]), s->sidecar_names[k][1]);
        sb_puts(src, "    },\n};\n\n");
    }
    {
        int order = first_order((item_list *)&s->body);
        char *spq = c_quote(s->path, strlen(s->path));
        sb_printf(src, "const afmt_format afmt_%s_format = {\n", f);
        sb_printf(src, "    .name = \"%s\",\n    .spec = %s,\n    .extensions = %s_extensions,\n", f, spq, f);
        sb_printf(src, "    .order = %s,\n", order == 1 ? "AFMT_COL_MAJOR" : "AFMT_ROW_MAJOR");
        sb_printf(src, "    .multi = %d,\n", has_top_repeat(s) || holds_columns(&s->body) || texthdr_multi(s) ||
                                            archive_in_spec(s) || cards_in_spec(s));
        sb_printf(src, "    .detect = afmt_%s_detect,\n    .validate = afmt_%s_validate,\n", f, f);
        sb_printf(src, "    .validate_src = afmt_%s_validate_src,\n    .can_write = afmt_%s_can_write,\n", f, f);
        sb_printf(src, "    .encoded_size = afmt_%s_encoded_size,\n    .write = afmt_%s_write,\n", f, f);
        if (s->sidecar_suffix) sb_printf(src, "    .sidecar = &%s_sidecar,\n", f);
        else sb_puts(src, "    .sidecar = NULL,\n");
        sb_printf(src, "    .compresses = %d,\n", has_compressed((item_list *)&s->body));
        sb_printf(src, "    .kv_metadata = %d,\n    .json_metadata = %d,\n", has_kv_metadata(&s->body),
                  has_json_metadata(&s->body));
        sb_printf(src, "    .shared_extensions = %s_shared_extensions,\n};\n", f);
        free(spq);
    }

}

void spec_format_traits(const spec *s, int *col_major, int *multi, int *compresses)
{
    *col_major = first_order((item_list *)&s->body) == 1;
    *multi = has_top_repeat(s) || holds_columns(&s->body) || texthdr_multi(s) || archive_in_spec(s) ||
             cards_in_spec(s);
    *compresses = has_compressed((item_list *)&s->body);
}

/* AFMT_GEN_WORK=1: what the emitters did, whether or not they succeeded
 * (tests/specs/linear.sh counts it; tests/specs/run_interp_check.sh
 * looks for it to know whether an emitter ran). */
static void report_work(const emitter *m)
{
    if (getenv("AFMT_GEN_WORK")) fprintf(stderr, "%s: afmt-gen work %llu tries %llu\n", m->s->path, m->work, m->tries);
}

int emit_format(const spec *s, const char *outdir)
{
    sbuf hdr = {0}, src = {0}, body = {0}, wbody = {0}, prelude = {0}, descs = {0};
    emitter m;
    char *path, *text;
    int rc = 0;

    memset(&m, 0, sizeof m);
    m.s = s;
    m.prelude = &prelude;
    m.descs = &descs;
    m.out = &body;
    m.indent = 0;
    c_names_reserve(&m);
    emit_validator(&m);
    if (m.errors) { report_work(&m); c_names_free(&m); func_frames_free(&m); facts_free(&m); return -1; }
    m.out = &wbody;
    m.nsyms = 0;
    m.nnonneg = 0; /* nothing the validator proved holds in the writer */
    local_set_free(&m.locals); /* the writer is another function */
    if (s->read_only) emit_refusing_writer(&wbody, s);
    else emit_writer(&m);
    c_names_free(&m);
    func_frames_free(&m);
    facts_free(&m);
    report_work(&m);
    if (m.errors) return -1;

    emit_header(&hdr, s);
    emit_source_head(&src, s);
    m.out = &src;
    m.indent = 0;
    emit_detect(&m);
    sb_puts(&src, "\n");
    if (descs.s) {
        sb_puts(&src, "/* The header fields, as afmt_take_field takes and reports them. */\n");
        sb_printf(&src, "%s\n", descs.s);
    }
    if (prelude.s) sb_puts(&src, prelude.s);
    text = decls_resolve(&m, body.s); /* the declarations used, in place */
    sb_puts(&src, text);
    free(text);
    sb_puts(&src, "\n");
    emit_validate_entries(&m);
    text = decls_resolve(&m, wbody.s);
    sb_puts(&src, text);
    free(text);
    sb_puts(&src, "\n");
    emit_write_entries(&m);
    emit_descriptor(&src, s);

    if (!outdir) { /* --check: everything above ran, nothing is written */
        sb_free(&hdr); sb_free(&src); sb_free(&body); sb_free(&wbody); sb_free(&prelude);
        return 0;
    }
    path = xprintf("%s/%s.h", outdir, s->format);
    if (write_if_changed(path, hdr.s)) rc = -1;
    free(path);
    path = xprintf("%s/%s.c", outdir, s->format);
    if (write_if_changed(path, src.s)) rc = -1;
    free(path);
    sb_free(&hdr);
    sb_free(&src);
    sb_free(&body);
    sb_free(&wbody);
    sb_free(&prelude);
    return rc;
}

int emit_registry(spec **specs, int n, const char *outdir)
{
    sbuf b = {0};
    int i, rc;
    char *path;
    sb_puts(&b, "/* Generated by afmt-gen " AFMT_VERSION_STRING " from the specs it was given. Do not edit. */\n");
    sb_puts(&b, "/* The registry of every format afmt-gen was given, in name order: the\n"
                " * table behind registry/afmt_registry.c (format lookup, optional). */\n");
    sb_puts(&b, "#include \"afmt.h\"\n");
    for (i = 0; i < n; i++) sb_printf(&b, "#include \"%s.h\"\n", specs[i]->format);
    sb_puts(&b, "\nconst afmt_format *const afmt_formats[] = {\n");
    for (i = 0; i < n; i++) sb_printf(&b, "    &afmt_%s_format,\n", specs[i]->format);
    sb_puts(&b, "    NULL,\n};\n\n");
    sb_printf(&b, "const size_t afmt_format_count = %d;\n", n);
    path = xprintf("%s/afmt_formats.c", outdir);
    rc = write_if_changed(path, b.s);
    free(path);
    sb_free(&b);
    return rc;
}
