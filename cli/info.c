/* afmt CLI: afmt info -- a semantic od of each file: every header field
 * the validator reads, with its byte offset, width, value and the spec's
 * doc, then each array (type, shape, order, byte range) and each warning,
 * and the verdict.
 *
 * The field list is not written here per format: the generated validators
 * report each field to a field visitor (afmt_options.fields, emitted by
 * afmt-gen from the spec), so a new spec is described with no C change.
 * An invalid file shows its fields up to the one that is wrong.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afmt.h"
#include "args.h"
#include "array_out.h"
#include "buf.h"
#include "cli.h"
#include "formats.h"
#include "json_out.h"
#include "limit_opts.h"
#include "load.h"
#include "model_set.h"
#include "quote.h"
#include "spec.h"

/* Most fields and arrays listed per file (the rest are counted), and most
 * values shown of one integer array field. */
#define INFO_MAX_FIELDS 10000
/* --json lists every field, up to this many (a GGUF vocabulary is a field
 * per token); the text lists the first INFO_ITEMS_SHOWN repetitions of any
 * repeated structure and counts the rest */
#define INFO_MAX_FIELDS_JSON 2000000
#define INFO_ITEMS_SHOWN 16
#define INFO_MAX_ARRAYS 10000
#define INFO_MAX_WARNINGS 1000
#define INFO_FIELD_VALUES 16
#define INFO_BYTES_SHOWN 64
/* Map names whose repetitions are counted at once (a text header's
 * tensors, its metadata's keys) */
#define INFO_TEXT_MAPS 4

/* A map of a text header, as its fields go by: the key path of the map
 * ("header"), its last entry ("header[\"w\"]") and how many entries so far. */
typedef struct info_text_map {
    char map[AFMT_FIELD_MAX];
    char entry[AFMT_FIELD_MAX];
    uint64_t entries;
} info_text_map;

typedef struct info_ctx {
    int json;
    const afmt_interp *spec; /* --spec: its interpreter (cli/spec.h), or NULL */
    afmt_cli_buf fields, arrays, warns;
    uint64_t nfields, narrays, nwarn;
    uint64_t hidden;                 /* fields of long repeats not shown (text) */
    char hidden_of[AFMT_FIELD_MAX];  /* the repeat they belong to: "kv[5].items" */
    info_text_map maps[INFO_TEXT_MAPS];
    unsigned next_map;               /* the slot a new map takes */
    /* a text header's metadata (safetensors' __metadata__), when it has one */
    const uint8_t *meta;             /* meta_copy's bytes, or NULL */
    uint64_t meta_len, meta_offset;
    afmt_cli_buf meta_copy;
    char type[16];
    char desc[AFMT_FIELD_MAX + AFMT_MESSAGE_MAX + 64];
    char quoted[AFMT_CLI_QUOTED_MAX]; /* the file's name, quoted (quote.h) */
} info_ctx;

static void put_bytes_text(afmt_cli_buf *b, const uint8_t *p, uint64_t n)
{
    static const char hex[] = "0123456789abcdef";
    uint64_t i, shown = n < INFO_BYTES_SHOWN ? n : INFO_BYTES_SHOWN;

    afmt_cli_buf_putc(b, '"');
    for (i = 0; i < shown; i++) {
        if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\') {
            afmt_cli_buf_putc(b, (char)p[i]);
        } else {
            afmt_cli_buf_puts(b, "\\x");
            afmt_cli_buf_putc(b, hex[p[i] >> 4]);
            afmt_cli_buf_putc(b, hex[p[i] & 15]);
        }
    }
    afmt_cli_buf_putc(b, '"');
    if (shown < n)
        afmt_cli_buf_printf(b, "... (%" PRIu64 " bytes)", n);
}

static void put_hex(afmt_cli_buf *b, const uint8_t *p, uint64_t n)
{
    static const char hex[] = "0123456789abcdef";
    uint64_t i;
    afmt_cli_buf_putc(b, '"');
    for (i = 0; i < n; i++) {
        afmt_cli_buf_putc(b, hex[p[i] >> 4]);
        afmt_cli_buf_putc(b, hex[p[i] & 15]);
    }
    afmt_cli_buf_putc(b, '"');
}

/* Integer k of field f (1 to 8 bytes each), in the field's byte order. */
static uint64_t field_uint(const afmt_field_info *f, uint64_t k)
{
    const uint8_t *p = f->bytes + k * f->width;
    uint64_t v = 0;
    unsigned i;

    for (i = 0; i < f->width && i < 8; i++)
        v |= (uint64_t)p[f->big_endian ? f->width - 1 - i : i] << (8 * i);
    return v;
}

/* Integer k of field f, as text. */
static void put_int(afmt_cli_buf *b, const afmt_field_info *f, uint64_t k)
{
    uint64_t v = field_uint(f, k);
    if (f->kind == AFMT_FIELD_INT) {
        /* sign-extend from the field's width */
        unsigned bits = f->width * 8;
        int64_t s = bits < 64 && (v >> (bits - 1)) ? (int64_t)(v | (~UINT64_C(0) << bits)) : (int64_t)v;
        afmt_cli_buf_printf(b, "%" PRId64, s);
    } else {
        afmt_cli_buf_printf(b, "%" PRIu64, v);
    }
}

/* A text header's value as written ("F32", [2, 3]): UTF-8 as is, control
 * bytes escaped, the first INFO_BYTES_SHOWN bytes. */
static void put_text(afmt_cli_buf *b, const uint8_t *p, uint64_t n)
{
    uint64_t i, shown = n < INFO_BYTES_SHOWN ? n : INFO_BYTES_SHOWN;

    for (i = 0; i < shown; i++) {
        if (p[i] >= 0x20 && p[i] != 0x7f)
            afmt_cli_buf_putc(b, (char)p[i]);
        else
            afmt_cli_buf_printf(b, "\\x%02x", p[i]);
    }
    if (shown < n)
        afmt_cli_buf_printf(b, "... (%" PRIu64 " bytes)", n);
}

/* A float field's value: its shortest exact text (a JSON number, or in
 * --json a string for nan, inf and -inf, which JSON has no number for). */
static void put_float(afmt_cli_buf *b, const afmt_field_info *f, uint64_t k, int json)
{
    const double v = afmt_float_get(f->bytes + k * f->width, f->width, f->big_endian);
    const afmt_float_txt t = afmt_float_text(v, f->width);
    if (json && !(v - v == 0)) /* not finite: nan, inf, -inf */
        afmt_cli_buf_printf(b, "\"%s\"", t.s);
    else
        afmt_cli_buf_puts(b, t.s);
}

static void put_value(afmt_cli_buf *b, const afmt_field_info *f, int json)
{
    uint64_t k, shown;

    if (f->kind == AFMT_FIELD_TEXT) {
        if (json)
            afmt_cli_json_str(b, (const char *)f->bytes, f->width);
        else
            put_text(b, f->bytes, f->width);
        return;
    }

    if (f->kind == AFMT_FIELD_BYTES) {
        if (json) {
            afmt_cli_json_str(b, (const char *)f->bytes, f->width);
            afmt_cli_buf_puts(b, ",\"hex\":");
            put_hex(b, f->bytes, f->width);
        } else {
            put_bytes_text(b, f->bytes, f->width);
        }
        return;
    }
    shown = f->count < INFO_FIELD_VALUES || json ? f->count : INFO_FIELD_VALUES;
    if (json && shown > INFO_MAX_FIELDS)
        shown = INFO_MAX_FIELDS;
    if (!f->is_array) {
        if (f->kind == AFMT_FIELD_FLOAT)
            put_float(b, f, 0, json);
        else
            put_int(b, f, 0);
        return;
    }
    afmt_cli_buf_putc(b, '[');
    for (k = 0; k < shown; k++) {
        if (k)
            afmt_cli_buf_puts(b, ", ");
        if (f->kind == AFMT_FIELD_FLOAT)
            put_float(b, f, k, json); /* a float array field */
        else
            put_int(b, f, k);
    }
    if (shown < f->count && !json)
        afmt_cli_buf_printf(b, ", ... (%" PRIu64 " values)", f->count);
    afmt_cli_buf_putc(b, ']');
}

/* The index of the last repetition in field path p ("kv[5].items[1234]"
 * -> 1234, its repeat "kv[5].items" into rep), or -1 for none. */
static int64_t last_index(const char *p, char *rep, size_t rep_size)
{
    const char *open = NULL, *q;
    int64_t v = 0;
    for (q = p; *q; q++)
        if (*q == '[') open = q;
    if (!open || open == p) return -1;
    for (q = open + 1; *q >= '0' && *q <= '9' && v < INT64_MAX / 10; q++) v = v * 10 + (*q - '0');
    if (q == open + 1 || *q != ']') return -1;
    snprintf(rep, rep_size, "%.*s", (int)(open - p), p);
    return v;
}

/* The text field path p's last map entry segment ["key"]: 1 with where
 * it starts and ends (past its "]"), or 0.  A key's own quotes are
 * escaped (\"), so the last [" starts it. */
static int last_map_key(const char *p, const char **begin, const char **end)
{
    const char *q, *at = NULL;

    for (q = p; (q = strstr(q, "[\"")) != NULL; q += 2)
        at = q;
    if (!at || at == p)
        return 0;
    for (q = at + 2; *q && !(q[0] == '"' && q[1] == ']'); q++)
        if (q[0] == '\\' && q[1])
            q++;
    if (!*q)
        return 0;
    *begin = at;
    *end = q + 2;
    return 1;
}

/* The slot of the map whose path is p[0..len), taken anew if needed. */
static info_text_map *text_map(info_ctx *c, const char *p, size_t len)
{
    info_text_map *m;
    unsigned i;

    for (i = 0; i < INFO_TEXT_MAPS; i++)
        if (strlen(c->maps[i].map) == len && strncmp(c->maps[i].map, p, len) == 0)
            return &c->maps[i];
    m = &c->maps[c->next_map++ % INFO_TEXT_MAPS];
    snprintf(m->map, sizeof m->map, "%.*s", (int)len, p);
    m->entry[0] = '\0';
    m->entries = 0;
    return m;
}

/* The ordinal of a text field's entry in its map (a safetensors tensor in
 * "header", a metadata key in "header[\"__metadata__\"]"), that map's path
 * into rep, or -1 for a field of no map (npy's "header.descr"). */
static int64_t text_entry_index(info_ctx *c, const char *p, char *rep, size_t rep_size)
{
    const char *key, *end;
    info_text_map *m;
    size_t entry_len;

    if (!last_map_key(p, &key, &end))
        return -1;
    m = text_map(c, p, (size_t)(key - p));
    entry_len = (size_t)(end - p);
    if (strlen(m->entry) != entry_len || strncmp(m->entry, p, entry_len) != 0) {
        snprintf(m->entry, sizeof m->entry, "%.*s", (int)entry_len, p);
        m->entries++;
    }
    snprintf(rep, rep_size, "%s", m->map);
    return m->entries - 1 > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(m->entries - 1);
}

/* The line saying how many fields of a long repeat were not shown. */
static void flush_hidden(info_ctx *c)
{
    if (!c->hidden) return;
    afmt_cli_buf_printf(&c->fields, "  %10s %6s  %-5s %s[...]: %" PRIu64 " more fields not shown (--json lists them)\n", "",
                        "", "", c->hidden_of, c->hidden);
    c->hidden = 0;
}

static void on_field(void *ctx, const afmt_field_info *f)
{
    info_ctx *c = ctx;
    afmt_cli_buf *b = &c->fields;
    uint64_t width = (uint64_t)f->width * (f->kind == AFMT_FIELD_BYTES ? 1 : f->count);
    char rep[AFMT_FIELD_MAX];

    if (!c->json) {
        const int64_t k = f->kind == AFMT_FIELD_TEXT ? text_entry_index(c, f->field, rep, sizeof rep)
                                                     : last_index(f->field, rep, sizeof rep);
        if (k >= INFO_ITEMS_SHOWN) {
            /* a long repeat (a vocabulary): its first repetitions only */
            if (c->hidden && strcmp(rep, c->hidden_of) != 0) flush_hidden(c);
            snprintf(c->hidden_of, sizeof c->hidden_of, "%s", rep);
            c->hidden++;
            return;
        }
        flush_hidden(c);
    }
    if (c->nfields++ >= (c->json ? INFO_MAX_FIELDS_JSON : INFO_MAX_FIELDS))
        return;
    /* "bytes", or u/i, the bits, and the byte order of a multi-byte integer */
    if (f->kind == AFMT_FIELD_BYTES || f->kind == AFMT_FIELD_TEXT)
        snprintf(c->type, sizeof c->type, f->kind == AFMT_FIELD_TEXT ? "text" : "bytes");
    else if (f->kind == AFMT_FIELD_FLOAT)
        snprintf(c->type, sizeof c->type, "f%u%s", f->width * 8, f->big_endian ? "be" : "le");
    else
        snprintf(c->type, sizeof c->type, "%c%u%s", f->kind == AFMT_FIELD_INT ? 'i' : 'u',
                 f->width * 8, f->width > 1 ? (f->big_endian ? "be" : "le") : "");
    if (c->json) {
        if (c->nfields > 1)
            afmt_cli_buf_putc(b, ',');
        afmt_cli_buf_puts(b, "{\"field\":");
        afmt_cli_json_cstr(b, f->field);
        afmt_cli_buf_printf(b, ",\"offset\":%" PRIu64 ",\"width\":%" PRIu64, f->offset, width);
        if (f->is_array)
            afmt_cli_buf_printf(b, ",\"count\":%" PRIu64, f->count);
        afmt_cli_buf_printf(b, ",\"type\":\"%s\"", c->type);
        afmt_cli_buf_puts(b, ",\"value\":");
        put_value(b, f, 1);
        if (f->is_array && f->count > INFO_MAX_FIELDS)
            afmt_cli_buf_puts(b, ",\"value_truncated\":true");
        if (f->value_name) {
            /* what the spec calls the value: GGUF's type 8 is "string" */
            afmt_cli_buf_puts(b, ",\"value_name\":");
            afmt_cli_json_cstr(b, f->value_name);
        }
        afmt_cli_buf_puts(b, ",\"doc\":");
        if (f->doc)
            afmt_cli_json_cstr(b, f->doc);
        else
            afmt_cli_buf_puts(b, "null");
        afmt_cli_buf_putc(b, '}');
        return;
    }
    afmt_cli_buf_printf(b, "  %10" PRIu64 " %6" PRIu64 "  %-5s ", f->offset, width, c->type);
    afmt_cli_buf_printf(b, "%-28s ", f->field);
    put_value(b, f, 0);
    if (f->value_name)
        afmt_cli_buf_printf(b, " (%s)", f->value_name);
    if (f->doc)
        afmt_cli_buf_printf(b, "  -- %s", f->doc);
    afmt_cli_buf_putc(b, '\n');
}

/* The bytes a strided view's own elements span, from its first element
 * (elsize * (1 + sum((dims[k] - 1) * strides[k])); 0 for no element):
 * its nbytes count to the end of the storage it shares (a row of a
 * matrix, a tied weight).  The validator proved the span inside nbytes;
 * nbytes is the answer should the arithmetic overflow all the same. */
static uint64_t strided_span(const afmt_array *a)
{
    uint64_t last = 0, step;
    uint32_t k;
    for (k = 0; k < a->rank; k++) {
        if (a->dims[k] == 0) return 0;
        if (a->strides[k] && a->dims[k] - 1 > (UINT64_MAX - last) / a->strides[k]) return a->nbytes;
        step = (a->dims[k] - 1) * a->strides[k];
        last += step;
    }
    if (last == UINT64_MAX || a->elsize == 0 || last + 1 > UINT64_MAX / a->elsize) return a->nbytes;
    return (last + 1) * a->elsize;
}

static int on_array(void *ctx, const afmt_array *a)
{
    info_ctx *c = ctx;
    afmt_cli_buf *b = &c->arrays;
    uint64_t index = c->narrays++, span;

    if (index >= INFO_MAX_ARRAYS)
        return 0;
    if (c->json) {
        if (index)
            afmt_cli_buf_putc(b, ',');
        afmt_cli_put_array_json(b, index, a);
        return 0;
    }
    afmt_cli_buf_puts(b, "  array ");
    afmt_cli_put_array_label(b, index, a);
    span = a->strided ? strided_span(a) : a->nbytes;
    if (span < a->nbytes) {
        afmt_cli_buf_printf(b, ", bytes %" PRIu64 "..%" PRIu64 " (%" PRIu64 " bytes, in a storage that runs to %" PRIu64
                            ")\n", a->offset, a->offset + span, span, a->offset + a->nbytes);
        return 0;
    }
    afmt_cli_buf_printf(b, ", bytes %" PRIu64 "..%" PRIu64 " (%" PRIu64 " bytes)\n", a->offset,
                        a->offset + a->nbytes, a->nbytes);
    return 0;
}

/* A text header's metadata object, as the validator found it: copied
 * (a pipe's bytes are gone once the window moves on; bounded by the
 * header it is in). */
static void on_metadata(void *ctx, const uint8_t *json, uint64_t len, uint64_t offset)
{
    info_ctx *c = ctx;
    afmt_cli_buf_reset(&c->meta_copy, (size_t)4 << 20);
    afmt_cli_buf_put(&c->meta_copy, json, (size_t)len);
    c->meta = (const uint8_t *)(c->meta_copy.p ? c->meta_copy.p : "");
    c->meta_len = c->meta_copy.oom ? 0 : len;
    c->meta_offset = offset;
}

static void on_warning(void *ctx, const afmt_error *w)
{
    info_ctx *c = ctx;
    if (c->nwarn++ >= INFO_MAX_WARNINGS)
        return;
    if (c->json) {
        if (c->nwarn > 1)
            afmt_cli_buf_putc(&c->warns, ',');
        afmt_cli_json_error(&c->warns, w);
        return;
    }
    afmt_error_describe(w, c->desc, sizeof c->desc);
    afmt_cli_buf_printf(&c->warns, "  warning: %s\n", c->desc);
}

/* The JSON object of a file that could not be read (I/O error, code io)
 * or whose format is not found: no size, no fields, the error; the format
 * when one is known, or the closest match, as afmt-validate --json has it. */
static void put_load_failure_json(afmt_cli_buf *out, const char *path, int rc,
                                  const afmt_cli_load_failure *why)
{
    afmt_error err = why->err;

    if (rc == AFMT_EXIT_ERROR)
        err.code = AFMT_E_IO;
    afmt_cli_buf_putc(out, '{');
    afmt_cli_json_path(out, path);
    afmt_cli_buf_puts(out, ",\"format\":");
    if (why->fmt && !why->closest)
        afmt_cli_json_cstr(out, why->fmt->name);
    else
        afmt_cli_buf_puts(out, "null");
    if (why->fmt && why->closest) {
        afmt_cli_buf_puts(out, ",\"closest_match\":");
        afmt_cli_json_cstr(out, why->fmt->name);
    }
    afmt_cli_buf_puts(out, ",\"size\":null,\"valid\":false,\"fields\":[],\"array_count\":0,"
                           "\"arrays\":[],\"error\":");
    afmt_cli_json_error(out, &err);
    afmt_cli_buf_puts(out, ",\"warnings\":[]}\n");
}

/* Open path as info_file needs it: --json says a failure as the file's
 * object in out, text on stderr.  0, or the exit status. */
static int load_one(const info_ctx *c, afmt_cli_loaded *l, const char *path,
                    const afmt_format *forced, afmt_cli_buf *out)
{
    afmt_cli_load_failure why;
    int rc;

    /* a pipe is read through a window, not whole: info needs no data */
    if (!c->json)
        return afmt_cli_load_bounded(l, NULL, path, forced, "--format");
    /* One object per FILE, whatever happens to it. */
    rc = afmt_cli_load_quiet_bounded(l, path, forced, "--format", &why);
    if (rc != 0)
        put_load_failure_json(out, path, rc, &why);
    return rc;
}

/* Forget the previous file's fields, arrays, warnings and metadata. */
static void begin_file(info_ctx *c)
{
    c->nfields = c->narrays = c->nwarn = c->hidden = 0;
    memset(c->maps, 0, sizeof c->maps);
    c->next_map = 0;
    c->meta = NULL;
    c->meta_len = c->meta_offset = 0;
    afmt_cli_buf_reset(&c->fields, (size_t)4 << 20);
    afmt_cli_buf_reset(&c->arrays, (size_t)4 << 20);
    afmt_cli_buf_reset(&c->warns, (size_t)4 << 20);
}

/* afmt_cli_loaded.restart: forget what an abandoned run listed. */
static void restart_file(void *ctx)
{
    begin_file(ctx);
}

/* --json: the file's object, one line. */
static void put_json_report(info_ctx *c, const char *path, const afmt_cli_loaded *l, int valid,
                            const afmt_error *err, afmt_cli_buf *out)
{
    afmt_cli_buf_putc(out, '{');
    afmt_cli_json_path(out, path);
    afmt_cli_buf_puts(out, ",\"format\":");
    afmt_cli_json_cstr(out, afmt_cli_loaded_format(l)->name);
    afmt_cli_buf_printf(out, ",\"size\":%" PRIu64 ",\"valid\":%s,\"fields\":[", afmt_cli_loaded_size(l),
                        valid ? "true" : "false");
    afmt_cli_buf_put(out, c->fields.p, c->fields.len);
    afmt_cli_buf_printf(out, "]%s,\"array_count\":%" PRIu64 ",\"arrays\":[",
                        c->nfields > INFO_MAX_FIELDS_JSON ? ",\"fields_truncated\":true" : "",
                        c->narrays);
    afmt_cli_buf_put(out, c->arrays.p, c->arrays.len);
    afmt_cli_buf_puts(out, "]");
    if (c->meta) {
        afmt_cli_buf_printf(out, ",\"metadata\":{\"offset\":%" PRIu64 ",\"nbytes\":%" PRIu64
                            ",\"json\":", c->meta_offset, c->meta_len);
        afmt_cli_json_str(out, (const char *)c->meta, (size_t)c->meta_len);
        afmt_cli_buf_putc(out, '}');
    }
    afmt_cli_buf_puts(out, ",\"error\":");
    if (valid)
        afmt_cli_buf_puts(out, "null");
    else
        afmt_cli_json_error(out, err);
    afmt_cli_buf_puts(out, ",\"warnings\":[");
    afmt_cli_buf_put(out, c->warns.p, c->warns.len);
    afmt_cli_buf_puts(out, "]}\n");
}

/* The text report: a line about the file, its fields, arrays, metadata,
 * warnings and why it is invalid. */
static void put_text_report(info_ctx *c, const char *path, const afmt_cli_loaded *l, int valid,
                            const afmt_error *err, afmt_cli_buf *out)
{
    afmt_cli_buf_printf(out, "%s: %s, %" PRIu64 " bytes, %s\n",
                        afmt_cli_quote_name(path, c->quoted, sizeof c->quoted), afmt_cli_loaded_format(l)->name,
                        afmt_cli_loaded_size(l),
                        valid ? "valid" : "invalid");
    afmt_cli_buf_printf(out, "  %10s %6s  %-5s %-28s %s\n", "offset", "width", "type", "field",
                        "value");
    afmt_cli_buf_put(out, c->fields.p, c->fields.len);
    if (c->nfields > INFO_MAX_FIELDS)
        afmt_cli_buf_printf(out, "  ... %" PRIu64 " more fields not listed\n",
                            c->nfields - INFO_MAX_FIELDS);
    afmt_cli_buf_put(out, c->arrays.p, c->arrays.len);
    if (c->narrays > INFO_MAX_ARRAYS)
        afmt_cli_buf_printf(out, "  ... %" PRIu64 " more arrays not listed\n",
                            c->narrays - INFO_MAX_ARRAYS);
    if (c->meta) {
        afmt_cli_buf_printf(out, "  metadata, bytes %" PRIu64 "..%" PRIu64 ": ", c->meta_offset,
                            c->meta_offset + c->meta_len);
        put_text(out, c->meta, c->meta_len); /* JSON as written, as the fields show it */
        afmt_cli_buf_putc(out, '\n');
    }
    afmt_cli_buf_put(out, c->warns.p, c->warns.len);
    if (!valid) {
        afmt_error_describe(err, c->desc, sizeof c->desc);
        afmt_cli_buf_printf(out, "  invalid: %s%s\n", c->desc, afmt_cli_limit_hint(err));
    }
}

/* Describe one file into out.  Returns an exit status. */
static int info_file(info_ctx *c, const char *path, const afmt_format *forced,
                     const afmt_options *base, afmt_cli_buf *out)
{
    afmt_cli_loaded l;
    afmt_options opt = *base;
    afmt_field_visitor fv;
    afmt_visitor vis;
    afmt_error err;
    int rc = load_one(c, &l, path, forced, out), valid;

    if (rc != 0)
        return rc;
    l.interp = c->spec;
    l.restart = restart_file; /* a URL's checks run again as ranges come */
    l.restart_ctx = c;
    begin_file(c);
    fv.ctx = c;
    fv.on_field = on_field;
    opt.fields = &fv;
    afmt_cli_visitor_init(&vis, c);
    vis.on_array = on_array;
    vis.on_warning = on_warning;
    vis.on_metadata = on_metadata;
    afmt_error_clear(&err);
    rc = afmt_cli_loaded_run_guarded(&l, &opt, &vis, &err);
    if (rc == -1 && l.member && err.code == AFMT_E_IO)
        rc = -2; /* no such member: an error, as a file that is not there */
    if (rc == -2) {
        /* cut short while it was read: no verdict, an I/O error */
        afmt_cli_load_failure why;
        memset(&why, 0, sizeof why);
        why.err = err;
        if (c->json)
            put_load_failure_json(out, path, AFMT_EXIT_ERROR, &why);
        else
            fprintf(stderr, "afmt info: %s: error: %s\n",
                    afmt_cli_quote_name(path, c->quoted, sizeof c->quoted), err.message);
        afmt_cli_loaded_close(&l);
        return AFMT_EXIT_ERROR;
    }
    valid = rc == 0;
    flush_hidden(c);
    if (c->json)
        put_json_report(c, path, &l, valid, &err, out);
    else
        put_text_report(c, path, &l, valid, &err, out);
    afmt_cli_loaded_close(&l);
    return valid ? AFMT_EXIT_OK : AFMT_EXIT_INVALID;
}

static void info_usage(FILE *f)
{
    fprintf(f,
"Usage: afmt info [OPTION]... FILE...\n"
"Describe each FILE, a semantic od: every header field the format's spec\n"
"reads, in file order, with its byte offset, width, type, value and the\n"
"spec's doc for it; then each array (element type, shape, storage order,\n"
"byte range of its data), each warning, and the verdict.  An invalid file\n"
"shows its fields up to the one that is wrong.  An archive (.npz) shows\n"
"every member's fields, named below it (archive[\"w.npy\"].header.shape);\n"
"FILE may be one member of it, ARCHIVE:NAME (x.npz:weights or\n"
"x.npz:weights.npy).\n"
"\n"
"  PATH: FORMAT, N bytes, valid|invalid\n"
"      offset  width  type  field                        value\n"
"           0      8  bytes magic                        \"rawarray\"\n"
"          48     16  u64le dims                         [3, 4]\n"
"    array [0] c64[3,4] column-major, bytes 64..160 (96 bytes)\n"
"\n"
"Integer fields are u/i with their bits and byte order (le, be); an array\n"
"field shows its first %d values; bytes are quoted, other than printable\n"
"ASCII as \\xNN.  A text header (npy, safetensors) shows its length field,\n"
"then each value of its entries as written, type text, named by key path:\n"
"header[\"weight\"].dtype \"F32\", header.shape (2, 3).  Of a long repeat\n"
"or map (a GGUF vocabulary, a model's tensors) the first %d entries are\n"
"shown and the rest counted (--json lists them all).  FILE \"-\" is\n"
"standard input.  FILE may be an http:// or https:// URL, as afmt-validate\n"
"takes it: only the byte ranges the checks read are fetched (the header of\n"
"a safetensors, npy or GGUF file, not its tensors).\n"
"\n"
"A model's folder (one holding model.safetensors.index.json or gguf-split's\n"
"PREFIX-00001-of-00003.gguf files) or its index is described as the set\n"
"(as afmt-validate -v checks it): each shard's tensors, each fault of the\n"
"set, and whether the shards make one model.\n"
"\n"
"Options:\n"
"  -f, --format NAME  do not detect: read each FILE as format NAME\n"
"      --spec FILE    do not detect: read each FILE as the format the spec\n"
"                     FILE describes, with afmt's reference interpreter (no\n"
"                     build step; see afmt-validate --help)\n"
"      --json         one JSON object per file: path, format, size, valid,\n"
"                     fields [{field, offset, width, count, type, value\n"
"                     (number, list or string; bytes also as hex; text:\n"
"                     its text as written, quotes kept), value_name (what\n"
"                     the spec calls an integer's value: GGUF's type 8 is\n"
"                     \"string\"; when it names it), doc;\n"
"                     value_truncated past 10000 values}],\n"
"                     array_count, arrays [{index, name, dtype, shape, order,\n"
"                     offset, nbytes}], metadata {offset, nbytes, json}\n"
"                     (a text header's, such as safetensors' __metadata__,\n"
"                     when there is one), error, warnings; a FILE that cannot\n"
"                     be read or whose format is not found has size null\n"
"                     and its error (code io, detect, ...), as\n"
"                     afmt-validate --json has it (closest_match too)\n"
"      --strict       accept exactly what a conforming writer produces\n"
"                     (the default)\n"
"      --lenient      accept what the reference readers tolerate\n"
AFMT_CLI_LIMIT_HELP
"  -h, --help         print this help and exit\n"
"\n"
"Examples (the files are in the afmt sources' examples/ folder):\n"
"  afmt info examples/test.ra\n"
"  afmt info --json examples/model.safetensors\n"
"  afmt info examples/invalid/size_mismatch.ra      # exit 1: invalid\n"
"\n"
"Exit status: 0 every FILE valid, 1 some FILE invalid, 2 usage or I/O\n"
"error.\n", INFO_FIELD_VALUES, INFO_ITEMS_SHOWN);
}

enum { I_HELP = 1, I_FORMAT, I_JSON, I_LENIENT, I_STRICT, I_SPEC };

static const afmt_cli_optdef info_opts[] = {
    { "help", 'h', 0, I_HELP },
    { "format", 'f', 1, I_FORMAT },
    { "spec", 0, 1, I_SPEC },
    { "json", 0, 0, I_JSON },
    { "lenient", 0, 0, I_LENIENT },
    { "strict", 0, 0, I_STRICT },
    AFMT_CLI_LIMIT_OPTDEFS,
    { NULL, 0, 0, 0 }
};

/* What the command line asks for, beside info_ctx's json and spec. */
typedef struct info_args {
    afmt_options opt;
    const afmt_format *forced;   /* --format / --spec, or NULL: detect */
    int *files;                  /* argv indexes of the FILEs, nfiles of them */
    int nfiles;
} info_args;

/* --format or --spec, given once: -1 to go on, else the exit status. */
static int take_format(info_args *a, info_ctx *c, int id, const char *val)
{
    if (a->forced)
        return afmt_cli_usage_error("afmt info", "give one of --format and --spec, once");
    if (id == I_FORMAT) {
        a->forced = afmt_cli_format_arg("afmt info", val);
    } else {
        c->spec = afmt_cli_spec_arg("afmt info", val);
        a->forced = c->spec ? afmt_interp_format(c->spec) : NULL;
    }
    return a->forced ? -1 : afmt_cli_usage_error("afmt info", NULL);
}

/* One option (id, val) or the operand argv[index]: -1 to go on, else the
 * exit status. */
static int take_arg(info_args *a, info_ctx *c, int id, const char *val, int index)
{
    switch (id) {
    case AFMT_CLI_ARGS_ERROR:
        return AFMT_EXIT_ERROR;
    case AFMT_CLI_ARGS_OPERAND:
        a->files[a->nfiles++] = index;
        return -1;
    case I_HELP:
        info_usage(stdout);
        return AFMT_EXIT_OK;
    case I_SPEC:
    case I_FORMAT:
        return take_format(a, c, id, val);
    case I_JSON:
        c->json = 1;
        return -1;
    case I_LENIENT:
        a->opt.mode = AFMT_LENIENT;
        return -1;
    case I_STRICT:
        a->opt.mode = AFMT_STRICT;
        return -1;
    default:
        if (afmt_cli_limit_option("afmt info", id, val, &a->opt.limits) < 0)
            return afmt_cli_usage_error("afmt info", NULL);
        return -1;
    }
}

/* The command line into *a and c: -1 to go on, else the exit status. */
static int parse_args(info_args *a, info_ctx *c, int argc, char **argv, int first)
{
    afmt_cli_args args;
    const char *val;
    int id, rc;

    afmt_cli_args_init(&args, argc, argv, first, info_opts, "afmt info");
    while ((id = afmt_cli_args_next(&args, &val)) != AFMT_CLI_ARGS_END)
        if ((rc = take_arg(a, c, id, val, args.i - 1)) >= 0)
            return rc;
    return a->nfiles ? -1 : afmt_cli_usage_error("afmt info", "no FILE");
}

/* Describe each FILE on standard output, one at a time: the worst exit
 * status (2 over 1 over 0). */
static int info_files(info_ctx *c, const info_args *a, char **argv)
{
    afmt_cli_buf out;
    int i, worst = AFMT_EXIT_OK;

    afmt_cli_buf_init(&c->fields);
    afmt_cli_buf_init(&c->arrays);
    afmt_cli_buf_init(&c->warns);
    afmt_cli_buf_init(&c->meta_copy);
    afmt_cli_buf_init(&out);
    for (i = 0; i < a->nfiles; i++) {
        int r;
        afmt_cli_buf_reset(&out, (size_t)4 << 20);
        fflush(stdout);
        /* a model's folder or index: the set, as afmt-validate -v has it */
        if (a->forced || !afmt_cli_info_model(argv[a->files[i]], &a->opt, c->json, &r))
            r = info_file(c, argv[a->files[i]], a->forced, &a->opt, &out);
        if (out.oom) {
            fprintf(stderr, "afmt info: out of memory formatting the output\n");
            r = AFMT_EXIT_ERROR;
        } else if (out.len && fwrite(out.p, 1, out.len, stdout) != out.len) {
            r = AFMT_EXIT_ERROR;
        }
        if (r == AFMT_EXIT_ERROR || (r == AFMT_EXIT_INVALID && worst == AFMT_EXIT_OK))
            worst = r;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "afmt info: error writing standard output\n");
        worst = AFMT_EXIT_ERROR;
    }
    afmt_cli_buf_free(&c->fields);
    afmt_cli_buf_free(&c->arrays);
    afmt_cli_buf_free(&c->warns);
    afmt_cli_buf_free(&c->meta_copy);
    afmt_cli_buf_free(&out);
    return worst;
}

int afmt_cli_info_main(int argc, char **argv, int first)
{
    info_args a;
    info_ctx *c = calloc(1, sizeof *c);
    int rc;

    memset(&a, 0, sizeof a);
    afmt_options_default(&a.opt);
    a.files = calloc((size_t)(argc > 0 ? argc : 1), sizeof *a.files);
    if (!a.files || !c) {
        free(a.files);
        free(c);
        fprintf(stderr, "afmt info: out of memory\n");
        return AFMT_EXIT_ERROR;
    }
    rc = parse_args(&a, c, argc, argv, first);
    if (rc < 0)
        rc = info_files(c, &a, argv);
    free(a.files);
    free(c);
    return rc;
}
