/* What one validation keeps of what it has read, in all (issue 35, point
 * 5): GGUF's "unique" keys are compared where they lie in a buffer, not
 * copied, so a file of large keys validates under a limits.max_kept_bytes
 * far below their sum, and a duplicate among them is still found; a
 * stream, whose window drops the keys, copies them, and those copies are
 * held to the same limit, which names itself when they pass it; a file
 * read by offset (afmt_src_seekable) copies none: it reads a key again
 * where it lies when it must compare one its window has dropped.
 *
 * The files are written by the GGUF writer (20 keys of 256 KiB, one u8
 * value each, one tensor), then a key's bytes are overwritten where a
 * case needs a duplicate.  Each case names the source (buffer or a stream
 * of a given window), the limit, and the verdict: the code, the field,
 * the offset (found by walking the written file) and words of the
 * message. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afmt.h"
#include "common/afmt_bytes.h"
#include "gguf.h"
#include "check.h"

enum { NKEYS = 20, KEY_BYTES = 256 << 10 };

/* The GGUF file of the cases: NKEYS distinct keys of KEY_BYTES bytes
 * ("k00xxx...", "k01xxx..."), each with a u8 value; NULL on failure. */
static uint8_t *write_file(uint64_t *len, afmt_error *err)
{
    static const float data[4] = {1, 2, 3, 4};
    afmt_kv kvs[NKEYS];
    afmt_array a;
    afmt_write_options w;
    afmt_sink sink;
    uint8_t *keys = malloc((size_t)NKEYS * KEY_BYTES), *buf = NULL;
    size_t i;
    if (!keys) return NULL;
    memset(keys, 'x', (size_t)NKEYS * KEY_BYTES);
    for (i = 0; i < NKEYS; i++) {
        uint8_t *k = keys + i * KEY_BYTES;
        k[0] = 'k';
        k[1] = (uint8_t)('0' + i / 10);
        k[2] = (uint8_t)('0' + i % 10);
        memset(&kvs[i], 0, sizeof kvs[i]);
        kvs[i].key = k;
        kvs[i].key_len = KEY_BYTES;
        kvs[i].value.kind = AFMT_VALUE_UINT;
        kvs[i].value.width = 1;
        kvs[i].value.u = i;
    }
    afmt_array_init(&a, AFMT_F32);
    a.rank = 1;
    a.dims[0] = 4;
    a.count = 4;
    a.nbytes = 16;
    a.data = (const uint8_t *)data;
    snprintf(a.name, sizeof a.name, "t");
    memset(&w, 0, sizeof w);
    w.kv = kvs;
    w.n_kv = NKEYS;
    if (afmt_gguf_encoded_size(&a, 1, &w, len, err) == 0 && (buf = malloc(*len)) != NULL) {
        afmt_sink_buffer(&sink, buf, *len);
        if (afmt_gguf_write(&a, 1, &w, &sink, err) != 0 || sink.written != *len) {
            free(buf);
            buf = NULL;
        }
    }
    free(keys);
    return buf;
}

/* The offset of key-value i's key (its u64 length) in a file of u8
 * values: magic, version, tensor_count and kv_count take 24 bytes, each
 * key-value 8 + its key + 4 (type) + 1 (value). */
static uint64_t key_offset(const uint8_t *buf, unsigned i)
{
    uint64_t at = 24;
    while (i--) at += 8 + afmt_load_u64le(buf + at) + 4 + 1;
    return at;
}

typedef struct mem_reader {
    const uint8_t *p;
    uint64_t len, at;
} mem_reader;

/* A stream over memory, in reads of at most 64 KiB (as a pipe gives). */
static int mem_read(void *ctx, uint8_t *buf, size_t n, size_t *got)
{
    mem_reader *r = ctx;
    uint64_t left = r->len - r->at;
    if (n > 65536) n = 65536;
    if (n > left) n = (size_t)left;
    memcpy(buf, r->p + r->at, n);
    r->at += n;
    *got = n;
    return 0;
}

/* A file read by offset (afmt_src_seekable), from memory. */
static int mem_pread(void *ctx, uint8_t *buf, size_t n, uint64_t off, size_t *got)
{
    mem_reader *r = ctx;
    uint64_t left = off < r->len ? r->len - off : 0;
    if (n > left) n = (size_t)left;
    memcpy(buf, r->p + off, n);
    *got = n;
    return 0;
}

/* window 0: a buffer; else a stream of that window, or with seekable a
 * file read by offset through it. */
static int validate(const uint8_t *buf, uint64_t len, uint64_t window, int seekable, uint64_t kept, afmt_error *err)
{
    afmt_options opt;
    afmt_options_default(&opt);
    opt.limits.max_kept_bytes = kept;
    if (window == 0) return afmt_gguf_validate(buf, len, &opt, NULL, err);
    {
        afmt_src src;
        mem_reader r = {buf, len, 0};
        uint8_t *win = malloc((size_t)window);
        int rc;
        if (!win) return -2;
        if (seekable)
            afmt_src_seekable(&src, win, window, len, mem_pread, &r);
        else
            afmt_src_stream(&src, win, window, mem_read, &r);
        rc = afmt_gguf_validate_src(&src, &opt, NULL, err);
        free(win);
        return rc;
    }
}

int main(void)
{
    /* dup: the key that is made a copy of key 2 (-1: none); want_key: the
     * key-value whose key is blamed (offset: its length field; "end": the
     * end of its bytes, where the cursor stood when the copies passed the
     * limit) */
    static const struct {
        const char *name;
        uint64_t window; /* 0: a buffer */
        int seekable;    /* the window a file's, read by offset */
        uint64_t kept;   /* limits.max_kept_bytes */
        int dup;
        afmt_code code;
        int want_key, at_end;
        const char *says;
    } cases[] = {
        {"a buffer: 5 MiB of keys under a 64 KiB limit (records only, no copies)", 0, 0, 64 << 10, -1, AFMT_OK, 0, 0,
         NULL},
        {"a buffer: a duplicate of kv[2]'s key in kv[17], found without copies", 0, 0, 64 << 10, 17,
         AFMT_E_CONSTRAINT, 17, 0, "kv[2].key (offset "},
        {"a buffer: a duplicate in kv[3]", 0, 0, 64 << 10, 3, AFMT_E_CONSTRAINT, 3, 0, "kv[2].key (offset "},
        {"a buffer: 20 records of 40 bytes and 64 slots of 4 pass a 1 KiB limit at kv[19], naming it", 0, 0, 1 << 10,
         -1, AFMT_E_LIMIT, 19, 1, "would take 1056 bytes in all, more than the limit of 1024 (limits.max_kept_bytes)"},
        {"a stream: copies of 5 MiB of keys under an 8 MiB limit", 8 << 20, 0, 8 << 20, -1, AFMT_OK, 0, 0, NULL},
        {"a stream: a duplicate in kv[17] found in the copies", 8 << 20, 0, 8 << 20, 17, AFMT_E_CONSTRAINT, 17, 0,
         "kv[2].key (offset "},
        {"a stream: copies past a 1 MiB limit at kv[3], naming it", 8 << 20, 0, 1 << 20, -1, AFMT_E_LIMIT, 3, 1,
         "more than the limit of 1048576 (limits.max_kept_bytes)"},
        {"a file read by offset: 5 MiB of keys under a 64 KiB limit (no copies: read again where they lie)", 8 << 20,
         1, 64 << 10, -1, AFMT_OK, 0, 0, NULL},
        {"a file read by offset: a duplicate in kv[17], without copies", 8 << 20, 1, 64 << 10, 17,
         AFMT_E_CONSTRAINT, 17, 0, "kv[2].key (offset "},
    };
    afmt_error err;
    uint64_t len;
    uint8_t *file = write_file(&len, &err);
    size_t i;
    CHECK("kept: a GGUF file of 20 keys of 256 KiB written", file != NULL);
    if (!file) {
        printf("  %s\n", err.message);
        CHECK_DONE();
    }
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *buf = malloc((size_t)len);
        uint64_t want_off;
        int rc, ok;
        char name[300], field[32];
        if (!buf) return 1;
        memcpy(buf, file, (size_t)len);
        if (cases[i].dup >= 0)
            memcpy(buf + key_offset(buf, (unsigned)cases[i].dup) + 8, buf + key_offset(buf, 2) + 8, KEY_BYTES);
        want_off = key_offset(buf, (unsigned)cases[i].want_key) + (cases[i].at_end ? 8 + KEY_BYTES : 0);
        rc = validate(buf, len, cases[i].window, cases[i].seekable, cases[i].kept, &err);
        snprintf(name, sizeof name, "kept: %s", cases[i].name);
        snprintf(field, sizeof field, "kv[%d].key", cases[i].want_key);
        if (cases[i].code == AFMT_OK)
            ok = rc == 0;
        else
            ok = rc != 0 && err.code == cases[i].code && strcmp(err.field, field) == 0 && err.offset == want_off &&
                 strstr(err.message, cases[i].says) != NULL;
        CHECK(name, ok);
        if (!ok)
            printf("  got %s at %s, offset %" PRIu64 " (expected %s at %s, offset %" PRIu64 "): %s\n",
                   rc == 0 ? "valid" : afmt_code_name(err.code), rc == 0 ? "-" : err.field,
                   rc == 0 ? 0 : err.offset, afmt_code_name(cases[i].code), field, want_off,
                   rc == 0 ? "" : err.message);
        free(buf);
    }
    free(file);
    CHECK_DONE();
}
