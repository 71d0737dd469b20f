/* afmt CLI: afmt convert's typed metadata (convert.h): GGUF's key-values
 * kept GGUF -> GGUF exactly (types, order), carried to and from
 * safetensors' __metadata__ where they are strings; what a target cannot
 * keep is said on stderr, by key, never dropped silently. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cli.h"
#include "convert.h"
#include "json_out.h"

int afmt_cli_convert_collect_kv(void *ctx, const afmt_kv *kv, uint64_t offset)
{
    afmt_cli_convert_input *c = ctx;
    afmt_kv *copy;
    afmt_error err;
    (void)offset;
    if (c->n_kv == c->kv_cap) {
        size_t cap = c->kv_cap ? c->kv_cap * 2 : 16;
        afmt_kv *p = realloc(c->kv, cap * sizeof *p);
        afmt_kv **b = realloc(c->kv_blocks, cap * sizeof *b);
        if (p) c->kv = p;
        if (b) c->kv_blocks = b;
        if (!p || !b) {
            c->oom = 1;
            return 1;
        }
        c->kv_cap = cap;
    }
    if (afmt_kv_copy(kv, 1, &copy, &err) != 0) {
        c->oom = 1;
        return 1;
    }
    c->kv_blocks[c->n_kv] = copy;
    c->kv[c->n_kv++] = *copy;
    return 0;
}

void afmt_cli_convert_kv_free(afmt_cli_convert_input *c)
{
    size_t i;
    for (i = 0; i < c->n_kv; i++) free(c->kv_blocks[i]);
    free(c->kv_blocks);
    free(c->kv);
    free(c->json_kv_bytes);
    c->kv = NULL;
    c->kv_blocks = NULL;
    c->json_kv_bytes = NULL;
    c->n_kv = c->kv_cap = 0;
}

/* ------------------------------------------------------------ JSON strings */

static void put_utf8(uint8_t **o, unsigned long cp)
{
    uint8_t *p = *o;
    if (cp < 0x80) {
        *p++ = (uint8_t)cp;
    } else if (cp < 0x800) {
        *p++ = (uint8_t)(0xc0 | cp >> 6);
        *p++ = (uint8_t)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *p++ = (uint8_t)(0xe0 | cp >> 12);
        *p++ = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        *p++ = (uint8_t)(0x80 | (cp & 0x3f));
    } else {
        *p++ = (uint8_t)(0xf0 | cp >> 18);
        *p++ = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
        *p++ = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        *p++ = (uint8_t)(0x80 | (cp & 0x3f));
    }
    *o = p;
}

static int hex4(const uint8_t *s, const uint8_t *end, unsigned long *v)
{
    int i;
    *v = 0;
    if (end - s < 4) return -1;
    for (i = 0; i < 4; i++) {
        int c = s[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        *v = *v * 16 + (unsigned long)d;
    }
    return 0;
}

/* The JSON string at *s (its opening quote) decoded into *o (UTF-8, at
 * most as many bytes as its text), *s past its closing quote; -1 if it is
 * not one (the header was validated: this does not happen). */
static int json_string(const uint8_t **s, const uint8_t *end, uint8_t **o)
{
    const uint8_t *p = *s;
    if (p >= end || *p != '"') return -1;
    for (p++; p < end && *p != '"'; p++) {
        unsigned long cp, lo;
        if (*p != '\\') {
            *(*o)++ = *p;
            continue;
        }
        if (++p >= end) return -1;
        switch (*p) {
        case 'b': *(*o)++ = '\b'; break;
        case 'f': *(*o)++ = '\f'; break;
        case 'n': *(*o)++ = '\n'; break;
        case 'r': *(*o)++ = '\r'; break;
        case 't': *(*o)++ = '\t'; break;
        case 'u':
            if (hex4(p + 1, end, &cp) != 0) return -1;
            p += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && end - p > 6 && p[1] == '\\' && p[2] == 'u' && hex4(p + 3, end, &lo) == 0 &&
                lo >= 0xdc00 && lo < 0xe000) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                p += 6;
            }
            put_utf8(o, cp);
            break;
        default: *(*o)++ = *p; break; /* \" \\ \/ */
        }
    }
    if (p >= end) return -1;
    *s = p + 1;
    return 0;
}

static const uint8_t *skip_ws(const uint8_t *s, const uint8_t *end)
{
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) s++;
    return s;
}

/* The string key-values of a JSON object of strings (safetensors'
 * __metadata__, validated): in c->kv, their bytes in c->json_kv_bytes. */
static int kv_from_json(afmt_cli_convert_input *c)
{
    const uint8_t *s = c->metadata, *end = s + c->metadata_len;
    uint8_t *o;
    if (!(c->json_kv_bytes = malloc(c->metadata_len + 1))) return -1;
    o = c->json_kv_bytes;
    s = skip_ws(s, end);
    if (s >= end || *s++ != '{') return -1;
    for (;;) {
        afmt_kv kv;
        s = skip_ws(s, end);
        if (s < end && *s == '}') return 0;
        memset(&kv, 0, sizeof kv);
        kv.key = o;
        if (json_string(&s, end, &o) != 0) return -1;
        kv.key_len = (uint64_t)(o - kv.key);
        s = skip_ws(s, end);
        if (s >= end || *s++ != ':') return -1;
        s = skip_ws(s, end);
        kv.value.kind = AFMT_VALUE_STRING;
        kv.value.str = o;
        if (json_string(&s, end, &o) != 0) return -1;
        kv.value.len = (uint64_t)(o - kv.value.str);
        if (afmt_cli_convert_collect_kv(c, &kv, 0) != 0) return -1;
        s = skip_ws(s, end);
        if (s < end && *s == ',') s++;
    }
}

/* ------------------------------------------------------------ to the target */

/* A dropped key is said, the first few by name and the rest by count (a
 * checkpoint's plain values are hundreds: nn.Module's _metadata). */
#define NOTES_BY_NAME 32

static void note_dropped(const char *in, const afmt_kv *kv, const char *why, size_t *said)
{
    if ((*said)++ < NOTES_BY_NAME)
        fprintf(stderr, "afmt convert: note: %s: metadata key '%.*s' dropped: %s\n", in,
                (int)(kv->key_len < 200 ? kv->key_len : 200), (const char *)kv->key, why);
}

static void note_more(const char *in, size_t said)
{
    if (said > NOTES_BY_NAME)
        fprintf(stderr, "afmt convert: note: %s: %zu more metadata keys dropped likewise\n", in, said - NOTES_BY_NAME);
}

int afmt_cli_convert_kv_options(afmt_cli_convert_input *c, const afmt_format *target, afmt_write_options *wopt,
                                afmt_cli_buf *json)
{
    size_t i, said = 0;
    int any = 0;
    if (target->kv_metadata) {
        /* a JSON object of strings becomes string key-values */
        if (c->n_kv == 0 && c->metadata && kv_from_json(c) != 0) {
            fprintf(stderr, "afmt convert: %s: its metadata could not be read as an object of strings\n", c->path);
            return -1;
        }
        wopt->kv = c->kv;
        wopt->n_kv = c->n_kv;
        wopt->metadata = NULL;
        wopt->metadata_len = 0;
        return 0;
    }
    if (c->n_kv == 0) return 0;
    if (!target->json_metadata) {
        for (i = 0; i < c->n_kv; i++) note_dropped(c->path, &c->kv[i], "the target format keeps no metadata", &said);
        note_more(c->path, said);
        return 0;
    }
    /* string key-values become the JSON object; the others are said */
    afmt_cli_buf_putc(json, '{');
    for (i = 0; i < c->n_kv; i++) {
        const afmt_kv *kv = &c->kv[i];
        if (kv->value.kind != AFMT_VALUE_STRING) {
            note_dropped(c->path, kv, "the target's metadata holds strings only", &said);
            continue;
        }
        if (any++) afmt_cli_buf_putc(json, ',');
        afmt_cli_json_str(json, (const char *)kv->key, (size_t)kv->key_len);
        afmt_cli_buf_putc(json, ':');
        afmt_cli_json_str(json, (const char *)kv->value.str, (size_t)kv->value.len);
    }
    afmt_cli_buf_putc(json, '}');
    note_more(c->path, said);
    if (json->oom) {
        fprintf(stderr, "afmt convert: out of memory\n");
        return -1;
    }
    if (any) {
        wopt->metadata = (const uint8_t *)json->p;
        wopt->metadata_len = json->len;
    }
    return 0;
}
