/* Tar archives through afmt_archive_validate (runtime/archive/afmt_tar.c,
 * afmt_tar_pax.c) with a WebDataset-like desc: {key}.ten members parsed
 * by tenbin, the rest ignored.  Hand-built shards (ar_build.h's tar
 * blocks): ustar, GNU, pax long names, GNU long names, base-256 sizes;
 * each broken once and asserted by code, field and offset; from a stream
 * source with a window smaller than an ignored member; every prefix of a
 * valid shard refused. */
#include "ar_build.h"
#include "check.h"

static uint8_t ten[512];
static size_t ten_len;
static char long_key[151];

typedef enum tar_kind {
    T_PLAIN, T_GNU, T_PAX_LONG, T_GNU_LONG, T_BASE256, T_BAD_SUM, T_SIZE_PAST, T_SIZE_PAST_IGNORED, T_NO_END,
    T_ONE_ZERO, T_TRAILING, T_ZERO_RECORD, T_SYMLINK, T_PAD, T_TEN_BROKEN, T_DUP, T_DOTDOT, T_PAX_BAD, T_PAX_SIZE,
    T_V7, T_SIGNED_SUM, T_EMPTY
} tar_kind;

/* Build the shard of a case; *at: an offset the case's error names. */
static void build(tb *t, tar_kind k, uint64_t *at)
{
    char rec[300];
    size_t n;

    t->len = 0;
    *at = 0;
    switch (k) {
    case T_PAX_LONG:
        n = (size_t)snprintf(rec, sizeof rec, "%d path=%s.ten\n", 0, long_key);
        n = (size_t)snprintf(rec, sizeof rec, "%zu path=%s.ten\n", n + 2, long_key);
        tb_header(t, "PaxHeaders/x", n, 'x', 0);
        tb_data(t, rec, n);
        tb_file(t, "truncated-name.ten", ten, ten_len);
        break;
    case T_GNU_LONG:
        snprintf(rec, sizeof rec, "%s.ten", long_key);
        tb_header(t, "././@LongLink", strlen(rec) + 1, 'L', 1);
        tb_data(t, rec, strlen(rec) + 1);
        tb_header(t, "truncated-name.ten", ten_len, '0', 1);
        tb_data(t, ten, ten_len);
        break;
    case T_PAX_BAD:
        tb_header(t, "PaxHeaders/x", 12, 'x', 0);
        tb_data(t, "12 path=a\nxx", 12);
        *at = 512 + 11;
        tb_file(t, "a.ten", ten, ten_len);
        break;
    case T_PAX_SIZE:
        n = (size_t)snprintf(rec, sizeof rec, "%zu size=%zu\n", (size_t)(ten_len < 100 ? 11 : 12), ten_len);
        tb_header(t, "PaxHeaders/x", n, 'x', 0);
        tb_data(t, rec, n);
        tb_header(t, "000000.ten", 0, '0', 0); /* the pax size counts */
        tb_data(t, ten, ten_len);
        break;
    case T_GNU:
        tb_header(t, "000000.ten", ten_len, '0', 1);
        tb_data(t, ten, ten_len);
        break;
    case T_SYMLINK:
        tb_header(t, "link", 0, '2', 0);
        break;
    case T_DOTDOT:
        tb_file(t, "../x.ten", ten, ten_len);
        break;
    case T_EMPTY:
        break;
    default:
        tb_file(t, "000000.ten", ten, ten_len);
        break;
    }
    if (k == T_PLAIN || k == T_NO_END || k == T_ONE_ZERO || k == T_TRAILING || k == T_ZERO_RECORD || k == T_DUP ||
        k == T_PAD || k == T_V7 || k == T_SIGNED_SUM)
        tb_file(t, "000000.cls", "3", 1);
    if (k == T_DUP) {
        *at = t->len;
        tb_file(t, "000000.ten", ten, ten_len);
    }
    if (k == T_BASE256) {
        size_t h = t->len;
        unsigned sum = 0, i;
        tb_file(t, "000001.ten", ten, ten_len);
        memset(t->buf + h + 124, 0, 12); /* the size in base-256 */
        t->buf[h + 124] = 0x80;
        afmt_store_u32be(t->buf + h + 132, (uint32_t)ten_len);
        memset(t->buf + h + 148, ' ', 8);
        for (i = 0; i < 512; i++)
            sum += t->buf[h + i];
        snprintf((char *)t->buf + h + 148, 8, "%06o", sum);
    }
    if (k == T_SIZE_PAST || k == T_SIZE_PAST_IGNORED) {
        size_t h = t->len;
        tb_header(t, k == T_SIZE_PAST ? "000002.ten" : "000002.cls", 100000, '0', 0);
        *at = h + 512;
    }
    if (k == T_NO_END) {
        *at = t->len;
        return;
    }
    if (k == T_ONE_ZERO) {
        memset(t->buf + t->len, 0, 512);
        t->len += 512;
        *at = t->len;
        return;
    }
    tb_end(t);
    if (k == T_TRAILING) {
        *at = t->len;
        memcpy(t->buf + t->len, "junk", 4);
        t->len += 4;
    }
    if (k == T_ZERO_RECORD) {
        memset(t->buf + t->len, 0, 512 * 16 + 100);
        t->len += 512 * 16 + 100;
    }
    if (k == T_BAD_SUM)
        t->buf[10] ^= 1; /* the name, after the checksum was made */
    if (k == T_SIGNED_SUM) {
        unsigned i;
        int sum = 0;
        t->buf[400] = 0xff; /* a high byte in the header, then the signed sum */
        memset(t->buf + 148, ' ', 8);
        for (i = 0; i < 512; i++)
            sum += (int8_t)t->buf[i];
        snprintf((char *)t->buf + 148, 8, "%06o", sum);
    }
    if (k == T_V7) {
        unsigned sum = 0, i;
        memset(t->buf + 257, 0, 8);
        memset(t->buf + 148, ' ', 8);
        for (i = 0; i < 512; i++)
            sum += t->buf[i];
        snprintf((char *)t->buf + 148, 8, "%06o", sum);
    }
    if (k == T_PAD) {
        *at = 512 + ten_len;
        t->buf[512 + ten_len] = 'p';
    }
    if (k == T_TEN_BROKEN) {
        t->buf[512] = 'X'; /* tenbin's magic */
        *at = 512;
    }
}

typedef struct tar_case {
    const char *name;
    tar_kind kind;
    afmt_mode mode;
    afmt_code code;
    const char *field;
    int at_end;          /* the offset is the shard's length, else the builder's *at (+ delta) */
    uint64_t delta;
    const char *message;
    size_t nviews;
} tar_case;

#define S AFMT_STRICT
#define L AFMT_LENIENT
static const tar_case cases[] = {
    {"ustar shard", T_PLAIN, S, AFMT_OK, NULL, 0, 0, NULL, 1},
    {"only the two zero blocks", T_EMPTY, S, AFMT_OK, NULL, 0, 0, NULL, 0},
    {"GNU header", T_GNU, S, AFMT_OK, NULL, 0, 0, NULL, 1},
    {"pax long name (150-byte key)", T_PAX_LONG, S, AFMT_OK, NULL, 0, 0, NULL, 1},
    {"GNU long name (150-byte key)", T_GNU_LONG, S, AFMT_OK, NULL, 0, 0, NULL, 1},
    {"base-256 size", T_BASE256, S, AFMT_OK, NULL, 0, 0, NULL, 2},
    {"pax size overrides the header's", T_PAX_SIZE, S, AFMT_OK, NULL, 0, 0, NULL, 1},
    {"trailing zero blocks (a GNU record)", T_ZERO_RECORD, S, AFMT_OK, NULL, 0, 0, NULL, 1},
    {"bad checksum", T_BAD_SUM, S, AFMT_E_CONSTRAINT, "archive.block[0].checksum", 0, 148, "but the header's bytes sum", 0},
    {"signed checksum, strict", T_SIGNED_SUM, S, AFMT_E_CONSTRAINT, "archive.block[0].checksum", 0, 148, "signed sum", 0},
    {"signed checksum, lenient", T_SIGNED_SUM, L, AFMT_OK, NULL, 0, 0, NULL, 1},
    {"a parsed member's size past the end", T_SIZE_PAST, S, AFMT_E_TRUNCATED, "archive[\"000002.ten\"].data", 0, 0,
     "needs 100000 bytes for the member's data", 0},
    {"an ignored member's size past the end", T_SIZE_PAST_IGNORED, S, AFMT_E_TRUNCATED, "archive.block[2]", 0, 0,
     "needs 100000 bytes", 0},
    {"no end blocks, strict", T_NO_END, S, AFMT_E_TRUNCATED, "archive.end", 0, 0, "without its two zero blocks", 0},
    {"no end blocks, lenient", T_NO_END, L, AFMT_OK, NULL, 0, 0, NULL, 1},
    {"one zero block, strict", T_ONE_ZERO, S, AFMT_E_TRUNCATED, "archive.block[4]", 0, 0, "after one zero block", 0},
    {"bytes after the end, strict", T_TRAILING, S, AFMT_E_TRAILING, "archive.end", 0, 0, "non-zero bytes after", 0},
    {"bytes after the end, lenient", T_TRAILING, L, AFMT_OK, NULL, 0, 0, NULL, 1},
    {"a symbolic link", T_SYMLINK, L, AFMT_E_UNSUPPORTED, "archive[\"link\"].header.typeflag", 0, 156,
     "a symbolic link (type '2')", 0},
    {"non-zero padding, strict", T_PAD, S, AFMT_E_PADDING, "archive.block[0]", 0, 0, "non-zero padding", 0},
    {"non-zero padding, lenient", T_PAD, L, AFMT_OK, NULL, 0, 0, NULL, 1},
    {"a tenbin member's own error", T_TEN_BROKEN, L, AFMT_E_MAGIC, "archive[\"000000.ten\"].array[0].header_magic", 0, 0,
     "expected \"~TenBin~\", found \"XTenBin~\"", 0},
    {"a duplicate name", T_DUP, S, AFMT_E_CONSTRAINT, "archive[\"000000.ten\"]", 0, 0, "second member of this name", 0},
    {"name ../x.ten", T_DOTDOT, L, AFMT_E_CONSTRAINT, "archive[\"../x.ten\"].header.name", 0, 0, "'..' component", 0},
    {"a malformed pax record", T_PAX_BAD, S, AFMT_E_VALUE, "archive.block[0].pax", 0, 0, "ends with a newline", 0},
    {"a v7 header, strict", T_V7, S, AFMT_E_MAGIC, "archive.block[0].magic", 0, 257, "v7", 0},
    {"a v7 header, lenient", T_V7, L, AFMT_OK, NULL, 0, 0, NULL, 1},
};

static int run_case(const tar_case *c, tb *t)
{
    afmt_error err;
    seen s;
    uint64_t at;
    int rc;

    build(t, c->kind, &at);
    rc = ar_validate(&wds_desc, t->buf, t->len, c->mode, &s, &err);
    if (c->code == AFMT_OK) {
        int ok = rc == 0 && s.n == c->nviews && (c->mode != AFMT_LENIENT || s.warnings > 0) &&
                 (c->kind != T_PAX_LONG && c->kind != T_GNU_LONG ? 1 : strcmp(s.v[0].name, long_key) == 0);
        if (!ok)
            printf("# %s: rc %d, %zu views, %zu warnings: %s at %" PRIu64 ": %s\n", c->name, rc, s.n, s.warnings,
                   err.field, err.offset, err.message);
        return ok;
    }
    at = c->at_end ? t->len : at + c->delta;
    if (rc == 0 || err.code != c->code || strcmp(err.field, c->field) != 0 || err.offset != at ||
        (c->message && !strstr(err.message, c->message))) {
        printf("# %s: rc %d code %s field %s offset %" PRIu64 " (want %s %s %" PRIu64 "): %s\n", c->name, rc,
               afmt_code_name(err.code), err.field, err.offset, afmt_code_name(c->code), c->field, at, err.message);
        return 0;
    }
    return 1;
}

/* A stream source over buf, handing out at most 4 KiB per read. */
typedef struct mem_stream {
    const uint8_t *p;
    size_t len, at;
} mem_stream;

static int mem_read(void *ctx, uint8_t *buf, size_t n, size_t *got)
{
    mem_stream *m = ctx;
    size_t k = m->len - m->at < n ? m->len - m->at : n;
    if (k > 4096)
        k = 4096;
    memcpy(buf, m->p + m->at, k);
    m->at += k;
    *got = k;
    return 0;
}

static int stream_validate(const tb *t, uint8_t *win, size_t cap, seen *s, afmt_error *err)
{
    mem_stream m = {t->buf, t->len, 0};
    afmt_options opt;
    afmt_visitor vis;
    afmt_src src;
    uint64_t pos = 0;
    uint32_t narrays = 0;

    afmt_options_default(&opt);
    seen_visitor(s, &vis);
    afmt_src_stream(&src, win, cap, mem_read, &m);
    return afmt_archive_validate(&wds_desc, &src, AFMT_LEN_UNKNOWN, &pos, &narrays, &opt, &vis, NULL, err);
}

static void streams(tb *t)
{
    static uint8_t win[65536], big[200000];
    afmt_error err;
    seen s;
    int ok;
    size_t i;

    for (i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 7);
    t->len = 0;
    tb_file(t, "000000.cls", big, sizeof big);
    tb_file(t, "000000.ten", ten, ten_len);
    tb_end(t);
    ok = stream_validate(t, win, sizeof win, &s, &err) == 0 && s.n == 1 && !s.v[0].has_data &&
         s.v[0].offset == 512 + 200192 + 512 + (ten_len - 64) && strcmp(s.v[0].name, "000000") == 0;
    if (!ok)
        printf("# stream: %zu views, data %d, offset %" PRIu64 ", name %s; %s at %" PRIu64 ": %s\n", s.n,
               s.v[0].has_data, s.v[0].offset, s.v[0].name, err.field, err.offset, err.message);
    CHECK("a stream with a 64 KiB window reads through a 200 KB ignored member", ok);
    t->len = 0;
    tb_file(t, "big.ten", big, sizeof big);
    tb_end(t);
    ok = stream_validate(t, win, sizeof win, &s, &err) != 0 && err.code == AFMT_E_LIMIT &&
         strcmp(err.field, "archive[\"big.ten\"].data") == 0 && err.offset == 512 && strstr(err.message, "window");
    if (!ok)
        printf("# stream: %s %s at %" PRIu64 ": %s\n", afmt_code_name(err.code), err.field, err.offset, err.message);
    CHECK("a parsed member larger than the stream window is a limit error naming it", ok);
}

static void prefixes(tb *t)
{
    uint64_t at, k;
    int ok = 1;

    build(t, T_PLAIN, &at);
    for (k = 0; k < t->len && ok; k++) {
        afmt_error err;
        seen s;
        uint8_t *copy = malloc(k ? k : 1);
        memcpy(copy, t->buf, k);
        ok = ar_validate(&wds_desc, copy, k, AFMT_STRICT, &s, &err) != 0 && err.offset <= k;
        if (!ok)
            printf("# prefix %" PRIu64 ": %s at %" PRIu64 ": %s\n", k, err.field, err.offset, err.message);
        free(copy);
    }
    CHECK("every prefix of a shard is refused (strict)", ok);
}

int main(void)
{
    static tb t;
    float a[6] = {0, 1, 2, 3, 4, 5};
    afmt_array v;
    afmt_sink sink;
    afmt_error err;
    size_t i;

    afmt_array_init(&v, AFMT_F32);
    v.rank = 2;
    v.dims[0] = 2;
    v.dims[1] = 3;
    v.count = 6;
    v.data = (const uint8_t *)a;
    v.nbytes = sizeof a;
    afmt_sink_buffer(&sink, ten, sizeof ten);
    if (afmt_tenbin_write(&v, 1, NULL, &sink, &err) != 0)
        printf("# tenbin writer: %s\n", err.message);
    ten_len = (size_t)sink.written;
    memset(long_key, 'k', 150);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(cases[i].name, run_case(&cases[i], &t));
    streams(&t);
    prefixes(&t);
    CHECK_DONE();
}
