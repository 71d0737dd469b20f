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
    blame bl = blame_at(it->name, "AFMT_NO_INDEX", "c->pos");
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
    line(m, "if (afmt_lz4_prove(c, \"%s\", nbytes_%s, n_%s, %s.size)) return -1;", it->name, it->name, it->name, lk->c);
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
    line(m, "if (afmt_payload_size(A_%s, %s.enc, &nbytes_%s, err) != 0) return -1;", it->name, lk->c, it->name);
    line(m, "if (compressed_%s) {", it->name);
    m->indent++;
    line(m, "/* the stored length is the compressed one: compress now, write later */");
    m->writer_owns = 1;
    line(m, "free(*owned);");
    line(m, "*owned = NULL;");
    /* the block holds the plain elements in the payload's byte order */
    line(m, "if (afmt_lz4_compress_payload(A_%s, %s, owned, &nbytes_%s, err) != 0) return -1;", it->name,
         endian_c(m, it->array.payload_big), it->name);
    m->indent--;
    line(m, "}");
}

/* Writer: the compressed bytes, or the plain payload. */
static void lz4_write_payload(emitter *m, item *it, sym *lk, const char *endian)
{
    line(m, "if (compressed_%s) {", it->name);
    line(m, "    if (afmt_sink_put(sink, *owned, nbytes_%s, err) != 0) return -1;", it->name);
    line(m, "} else if (afmt_sink_payload(sink, A_%s, %s, %s.enc, err) != 0) {", it->name, endian, lk->c);
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
