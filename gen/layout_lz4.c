/* afmt-gen: LZ4-compressed payloads as a module (spec/LANGUAGE.md,
 * "Compressed payloads"; gen/layout.h, encoding_module).
 *
 * An array item with "compressed": <truth expression> and "stored": <bytes>
 * holds, when the expression is true, one LZ4 block of that many bytes
 * that must decompress to exactly the bytes its dims give.  The validator
 * proves that without writing any output; the writer compresses into its
 * scratch buffer and writes that.  Nothing here is tied to one format. */
#include <stdlib.h>
#include "layout.h"

/* Validator: open `if (compressed_<a>) { nbytes = stored; prove the block }
 * else {` around the plain size emit_array computes. */
static void lz4_validate_size_open(emitter *m, item *it, sym *lk)
{
    blame bl = blame_at(it->name, "AFMT_NO_INDEX", "pos");
    /* flags say the payload is one LZ4 block of stored_bytes: prove it
     * decodes to exactly the bytes the dims give, without output */
    char *cz = emit_bool(m, &bl, it->array.compressed, it->array.compressed_text), *st;
    line(m, "const int compressed_%s = %s;", it->name, cz);
    free(cz);
    line(m, "if (compressed_%s) {", it->name);
    m->indent++;
    st = emit_u64(m, &bl, it->array.stored, it->array.stored_text);
    line(m, "nbytes_%s = %s;", it->name, st);
    free(st);
    line(m, "uint64_t plain_%s;", it->name);
    line(m, "if (!afmt_mul_u64(n_%s, %s_size, &plain_%s)) {", it->name, lk->c, it->name);
    m->indent++;
    emit_fail(m, &bl, "overflow", LEN_NONE, "\"the decompressed size overflows 64 bits\"", NULL);
    m->indent--;
    line(m, "}");
    line(m, "if (plain_%s > opt->limits.max_decoded_bytes) {", it->name);
    m->indent++;
    {
        char *args = xprintf("plain_%s, opt->limits.max_decoded_bytes", it->name);
        emit_fail(m, &bl, "limit", LEN_NONE, "\"decompresses to %\" PRIu64 \" bytes, more than the limit of %\" PRIu64 \"\"", args);
        free(args);
    }
    m->indent--;
    line(m, "}");
    {
        char *nb = xprintf("nbytes_%s", it->name);
        need_bytes(m, &bl, nb, "compressed data");
        free(nb);
    }
    line(m, "uint64_t lz4_bad = 0;");
    line(m, "const char *lz4_why = \"\";");
    line(m, "const int lz4_rc = afmt_lz4_block_check(AFMT_B(src, pos), nbytes_%s, plain_%s, &lz4_bad, &lz4_why);", it->name,
         it->name);
    line(m, "if (lz4_rc != 0) {");
    m->indent++;
    bl = blame_at(it->name, "AFMT_NO_INDEX", "pos + lz4_bad");
    line(m, "if (lz4_rc == -2) {");
    m->indent++;
    {
        char *args = xprintf("lz4_why, plain_%s", it->name);
        emit_fail(m, &bl, "size", LEN_NONE, "\"LZ4 block %s: it must decompress to %\" PRIu64 \" bytes\"", args);
        free(args);
    }
    m->indent--;
    line(m, "}");
    emit_fail(m, &bl, "value", LEN_NONE, "\"malformed LZ4 block: %s\"", "lz4_why");
    m->indent--;
    line(m, "}");
    bl = blame_at(it->name, "AFMT_NO_INDEX", "pos");
    m->indent--;
    line(m, "} else {");
    m->indent++;
}

static void lz4_validate_size_close(emitter *m, item *it, sym *lk)
{
    (void)it;
    (void)lk;
    m->indent--;
    line(m, "}");
}

/* Validator: a compressed payload is handed over as such. */
static void lz4_view(emitter *m, item *it, sym *lk)
{
    (void)lk;
    line(m, "if (compressed_%s) a_%s.encoding = AFMT_ENC_LZ4_BLOCK;", it->name, it->name);
}

/* Validator: bool values are scanned only in a plain payload. */
static char *lz4_scan_guard(const item *it)
{
    return xprintf(" && !compressed_%s", it->name);
}

/* Writer: the payload's size, compressing it when the flag says so (the
 * stored length is the compressed one: compress now, write later). */
static void lz4_write_size(emitter *m, item *it, sym *lk)
{
    blame bl = blame_at(it->name, "AFMT_NO_INDEX", "0");
    char *cz = emit_bool(m, &bl, it->array.compressed, it->array.compressed_text);
    line(m, "const int compressed_%s = %s;", it->name, cz);
    free(cz);
    line(m, "if (afmt_payload_size(A_%s, %s_enc, &nbytes_%s, err) != 0) return -1;", it->name, lk->c, it->name);
    line(m, "if (compressed_%s) {", it->name);
    m->indent++;
    line(m, "/* the stored length is the compressed one: compress now, write later */");
    line(m, "free(*owned);");
    line(m, "*owned = NULL;");
    line(m, "if (afmt_lz4_compress(A_%s->data, nbytes_%s, owned, &nbytes_%s, err) != 0) return -1;", it->name, it->name,
         it->name);
    m->indent--;
    line(m, "}");
}

/* Writer: the compressed bytes, or the plain payload. */
static void lz4_write_payload(emitter *m, item *it, sym *lk, const char *endian)
{
    line(m, "if (compressed_%s) {", it->name);
    line(m, "    if (afmt_sink_put(sink, *owned, nbytes_%s, err) != 0) return -1;", it->name);
    line(m, "} else if (afmt_sink_payload(sink, A_%s, %s, %s_enc, err) != 0) {", it->name, endian, lk->c);
    line(m, "    return -1;");
    line(m, "}");
}

const encoding_module encoding_lz4 = {
    "lz4",
    lz4_validate_size_open,
    lz4_validate_size_close,
    lz4_view,
    lz4_scan_guard,
    lz4_write_size,
    lz4_write_payload,
};

const encoding_module *encoding_of(const item *array)
{
    return array->kind == IT_ARRAY && array->array.compressed ? &encoding_lz4 : NULL;
}
