/* Zip archives through afmt_archive_validate (runtime/archive/afmt_archive.c,
 * afmt_zip*.c): hand-built zips (ar_build.h) in torch.save's form and
 * np.savez's, each layout rule broken once and asserted by code, field and
 * offset, the member rules (captures, presence, refusals, texts, records,
 * storage keys), members parsed by another format with their errors in the
 * archive's terms; every prefix of two valid archives and 4,000 damaged
 * ones refused without a crash; and three files the real writers made
 * (ar_real.h) accepted. */
#include "ar_build.h"
#include "ar_real.h"
#include "check.h"

static const uint8_t rec0[24] = {0, 0, 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40, 0, 0, 0x80, 0x40, 0, 0, 0xa0, 0x40};
static uint8_t npy_w[512], npy_b[512];
static size_t npy_w_len, npy_b_len;

#define B(s) ((const uint8_t *)(s)), (sizeof(s) - 1)
#define TORCH_BASE {"arch/data.pkl", B("0")}, {"arch/data/0", rec0, 24}, {"arch/version", B("3\n")}
static const zb_file t_ok[] = {TORCH_BASE, {"arch/byteorder", B("little")}};
static const zb_file t_big[] = {TORCH_BASE, {"arch/byteorder", B("big")}};
static const zb_file t_middle[] = {TORCH_BASE, {"arch/byteorder", B("middle")}};
static const zb_file t_other[] = {TORCH_BASE, {"arch/byteorder", B("little")}, {"other/version", B("3\n")}};
static const zb_file t_noversion[] = {{"arch/data.pkl", B("0")}, {"arch/data/0", rec0, 24}};
static const zb_file t_script[] = {TORCH_BASE, {"arch/byteorder", B("little")}, {"arch/constants.pkl", B("x")}};
static const zb_file t_code[] = {TORCH_BASE, {"arch/byteorder", B("little")}, {"arch/code/__torch__/m.py", B("x")}};
static const zb_file t_v3[] = {{"arch/data.pkl", B("0")}, {"arch/data/0", rec0, 24}, {"arch/version", B("3")}};
static const zb_file t_v7[] = {{"arch/data.pkl", B("0")}, {"arch/data/0", rec0, 24}, {"arch/version", B("7\n")}};
static const zb_file t_unref[] = {TORCH_BASE, {"arch/byteorder", B("little")}, {"arch/data/1", rec0, 24}};
static const zb_file t_nokey[] = {{"arch/data.pkl", B("0,5")}, {"arch/data/0", rec0, 24}, {"arch/version", B("3\n")}};
static const zb_file t_notes[] = {TORCH_BASE, {"arch/byteorder", B("little")}, {"arch/notes.txt", B("hi")}};
static const zb_file t_dir[] = {TORCH_BASE, {"arch/byteorder", B("little")}, {"arch/", B("")}};
/* npz members are set in main (npy bytes from afmt's writer) */
static zb_file n_ok[2], n_dup[2], n_dotdot[1], n_abs[1], n_bslash[1], n_dslash[1], n_dot[1], n_txt[2];

typedef struct zip_case {
    const char *name;
    const afmt_archive_desc *desc;
    const zb_file *files;
    size_t nfiles;
    zb_layout layout;
    zb_patch patch[4];
    afmt_mode mode;
    afmt_code code;       /* AFMT_OK: accepted */
    const char *field;
    zb_pos offset;
    const char *message;  /* a part of it, or NULL */
    size_t nviews;        /* accepted: the views given */
} zip_case;

#define F(list) list, sizeof list / sizeof list[0]
#define TORCH {.torch = 1}
#define AT(w, m, d) {w, m, d}
#define P(w, m, d, width, v) {{w, m, d}, width, v}
#define S AFMT_STRICT
#define LEN AFMT_LENIENT
#define OK AFMT_OK, NULL, {W_NONE, 0, 0}, NULL
#define NOP {P(W_NONE, 0, 0, 0, 0)}

static const afmt_archive_desc npz_desc_nocrc = {"npz", "archive", AFMT_AR_ZIP, 0x101u, 0, 0x0808, 0, 0, 0, 0,
                                                 npz_extras, 1, 0, 0, 1, 1, npz_rules, 1, AFMT_AR_REST_REFUSE, 0};

static const zip_case cases[] = {
    /* the torch form */
    {"torch: stored, aligned, descriptors, zip64 end", &torch_desc, F(t_ok), TORCH, NOP, S, OK, 1},
    {"torch: zip64 end records absent (accepted)", &torch_desc, F(t_ok), {.torch = 1, .no_zip64 = 1}, NOP, S, OK, 1},
    {"torch: zip64 end records absent, required", &torch_desc_zip64, F(t_ok), {.torch = 1, .no_zip64 = 1}, NOP, S,
     AFMT_E_CONSTRAINT, "archive.zip64_locator", AT(W_END, 0, 0), "no zip64 end record", 0},
    {"bytes before the first local header", &torch_desc, F(t_ok), {.torch = 1, .prefix = 5}, NOP, S,
     AFMT_E_CONSTRAINT, "archive[\"arch/data.pkl\"].central.local_offset", AT(W_CENTRAL, 0, 42), "5 bytes before", 0},
    {"bytes after the end record", &torch_desc, F(t_ok), {.torch = 1, .suffix = 3}, NOP, S, AFMT_E_TRAILING,
     "archive.end", AT(W_LEN, 0, -3), "3 bytes after the end", 0},
    {"a gap between members", &torch_desc, F(t_ok), {.torch = 1, .gap = 4}, NOP, S, AFMT_E_CONSTRAINT,
     "archive[\"arch/data/0\"].central.local_offset", AT(W_CENTRAL, 1, 42), "4 bytes between member 0", 0},
    {"an archive comment", &torch_desc, F(t_ok), {.torch = 1, .comment = 5}, NOP, S, AFMT_E_CONSTRAINT,
     "archive.end.comment_length", AT(W_END, 0, 20), "comment of 5 bytes", 0},
    {"local and central names differ", &torch_desc, F(t_ok), TORCH, {P(W_LOCAL, 0, 30, 1, 'X')}, S, AFMT_E_CONSTRAINT,
     "archive[\"arch/data.pkl\"].local.name", AT(W_LOCAL, 0, 30), "names it \"Xrch/data.pkl\"", 0},
    {"local and central flags differ", &torch_desc, F(t_ok), TORCH, {P(W_LOCAL, 1, 6, 2, 0x0800)}, S,
     AFMT_E_CONSTRAINT, "archive[\"arch/data/0\"].local.flags", AT(W_LOCAL, 1, 6), "says flags 0x0800", 0},
    {"local and central methods differ", &torch_desc, F(t_ok), TORCH, {P(W_LOCAL, 1, 8, 2, 8)}, S, AFMT_E_CONSTRAINT,
     "archive[\"arch/data/0\"].local.method", AT(W_LOCAL, 1, 8), "says method 8, the central directory 0", 0},
    {"wrong CRC-32, strict", &torch_desc, F(t_ok), TORCH, {P(W_DATA, 1, 0, 1, 0xaa)}, S, AFMT_E_CONSTRAINT,
     "archive[\"arch/data/0\"].central.crc32", AT(W_CENTRAL, 1, 16), "CRC-32 is 0x", 0},
    {"wrong CRC-32, lenient", &torch_desc, F(t_ok), TORCH, {P(W_DATA, 1, 0, 1, 0xaa)}, LEN, OK, 1},
    {"unaligned data, strict", &torch_desc, F(t_ok), {.torch = 1, .unaligned = 1}, NOP, S, AFMT_E_CONSTRAINT,
     "archive[\"arch/data.pkl\"].data", AT(W_DATA, 0, 0), "not a multiple of 64", 0},
    {"unaligned data, lenient", &torch_desc, F(t_ok), {.torch = 1, .unaligned = 1}, NOP, LEN, OK, 1},
    {"a foreign extra field, strict", &torch_desc, F(t_ok), {.torch = 1, .foreign_extra = 2}, NOP, S,
     AFMT_E_CONSTRAINT, "archive[\"arch/data/0\"].local.extra", AT(W_LOCAL, 1, 30 + 11), "extra field 0x5455", 0},
    {"a foreign extra field, lenient", &torch_desc, F(t_ok), {.torch = 1, .foreign_extra = 2}, NOP, LEN, OK, 1},
    {"an encrypted member", &torch_desc, F(t_ok), TORCH, {P(W_CENTRAL, 1, 8, 2, 0x0809), P(W_LOCAL, 1, 6, 2, 0x0809)},
     S, AFMT_E_UNSUPPORTED, "archive[\"arch/data/0\"].central.flags", AT(W_CENTRAL, 1, 8), "encrypted", 0},
    {"a deflated member, strict", &torch_desc, F(t_ok), {.torch = 1, .deflate = 3}, NOP, S, AFMT_E_CONSTRAINT,
     "archive[\"arch/version\"].central.method", AT(W_CENTRAL, 2, 10), "method 8 (deflated)", 0},
    {"a deflated member, lenient", &torch_desc, F(t_ok), {.torch = 1, .deflate = 3}, NOP, LEN, OK, 1},
    {"a deflated record, lenient", &torch_desc, F(t_ok), {.torch = 1, .deflate = 2}, NOP, LEN, OK, 1},
    {"descriptor's CRC-32 differs", &torch_desc, F(t_ok), TORCH, {P(W_DESC, 1, 4, 4, 0x12345678)}, S,
     AFMT_E_CONSTRAINT, "archive[\"arch/data/0\"].descriptor.crc32", AT(W_DESC, 1, 4), "0x12345678", 0},
    {"descriptor without its signature", &torch_desc, F(t_ok), TORCH, {P(W_DESC, 1, 0, 4, 0)}, S, AFMT_E_MAGIC,
     "archive[\"arch/data/0\"].descriptor.signature", AT(W_DESC, 1, 0), "PK\\7\\8", 0},
    {"a local header's signature", &torch_desc, F(t_ok), TORCH, {P(W_LOCAL, 2, 0, 4, 0x04034b51)}, S, AFMT_E_MAGIC,
     "archive[\"arch/version\"].local.signature", AT(W_LOCAL, 2, 0), "PK\\3\\4", 0},
    {"a central entry's signature", &torch_desc, F(t_ok), TORCH, {P(W_CENTRAL, 2, 0, 4, 0)}, S, AFMT_E_MAGIC,
     "archive.central[2]", AT(W_CENTRAL, 2, 0), "PK\\1\\2", 0},
    {"method 12 (bzip2)", &torch_desc, F(t_ok), TORCH, {P(W_CENTRAL, 1, 10, 2, 12), P(W_LOCAL, 1, 8, 2, 12)}, S,
     AFMT_E_UNSUPPORTED, "archive[\"arch/data/0\"].central.method", AT(W_CENTRAL, 1, 10), "method 12", 0},
    {"zip64 count of 2^62", &torch_desc, F(t_ok), TORCH,
     {P(W_END, 0, 8, 2, 0xffff), P(W_END, 0, 10, 2, 0xffff), P(W_Z64, 0, 24, 8, UINT64_C(1) << 62),
      P(W_Z64, 0, 32, 8, UINT64_C(1) << 62)},
     S, AFMT_E_SIZE, "archive.zip64_end.entries", AT(W_Z64, 0, 32), "4611686018427387904 entries cannot fit", 0},
    /* the member rules */
    {"two values of {prefix}", &torch_desc, F(t_other), TORCH, NOP, S, AFMT_E_CONSTRAINT,
     "archive[\"other/version\"]", AT(W_CENTRAL, 4, 46), "{prefix} is \"other\", but member 0", 0},
    {"a required member missing", &torch_desc, F(t_noversion), TORCH, NOP, S, AFMT_E_CONSTRAINT, "archive",
     AT(W_CD, 0, 0), "no member of the form \"{prefix}/version\"", 0},
    {"TorchScript constants.pkl refused", &torch_desc, F(t_script), TORCH, NOP, LEN, AFMT_E_UNSUPPORTED,
     "archive[\"arch/constants.pkl\"]", AT(W_CENTRAL, 4, 46), "TorchScript archive holds code: constants.pkl", 0},
    {"TorchScript code/ refused ({*file})", &torch_desc, F(t_code), TORCH, NOP, LEN, AFMT_E_UNSUPPORTED,
     "archive[\"arch/code/__torch__/m.py\"]", AT(W_CENTRAL, 4, 46), "code/", 0},
    {"version \"3\", strict", &torch_desc, F(t_v3), TORCH, NOP, S, AFMT_E_VALUE, "archive[\"arch/version\"]",
     AT(W_DATA, 2, 0), "\"3\": readers take it", 0},
    {"version \"3\", lenient", &torch_desc, F(t_v3), TORCH, NOP, LEN, OK, 1},
    {"version \"7\\n\"", &torch_desc, F(t_v7), TORCH, NOP, LEN, AFMT_E_VALUE, "archive[\"arch/version\"]",
     AT(W_DATA, 2, 0), "\"7\\x0a\" (2 bytes) is not \"3\\x0a\"", 0},
    {"byteorder \"big\"", &torch_desc, F(t_big), TORCH, NOP, S, OK, 1},
    {"byteorder \"middle\"", &torch_desc, F(t_middle), TORCH, NOP, S, AFMT_E_VALUE, "archive[\"arch/byteorder\"]",
     AT(W_DATA, 3, 0), "is not one of \"little\"", 0},
    {"a record nobody refers to", &torch_desc, F(t_unref), TORCH, NOP, S, AFMT_E_CONSTRAINT,
     "archive[\"arch/data/1\"]", AT(W_DATA, 4, 0), "no values member refers to", 0},
    {"a storage key with no record", &torch_desc, F(t_nokey), TORCH, NOP, S, AFMT_E_CONSTRAINT,
     "archive[\"arch/data.pkl\"]", AT(W_DATA, 0, 0), "storage key \"5\" names no record of the archive (\"arch/data/5\")",
     0},
    {"a member of no rule, strict", &torch_desc, F(t_notes), TORCH, NOP, S, AFMT_E_CONSTRAINT,
     "archive[\"arch/notes.txt\"]", AT(W_CENTRAL, 4, 46), "no rule of torch allows", 0},
    {"a member of no rule, lenient", &torch_desc, F(t_notes), TORCH, NOP, LEN, OK, 1},
    {"a directory entry, strict", &torch_desc, F(t_dir), TORCH, NOP, S, AFMT_E_CONSTRAINT, "archive[\"arch/\"]",
     AT(W_CENTRAL, 4, 46), "a directory entry", 0},
    {"a directory entry, lenient (re-zipped)", &torch_desc, F(t_dir), TORCH, NOP, LEN, OK, 1},
    /* the np.savez form */
    {"npz: stored, zip64 local fields", &npz_desc, F(n_ok), {0}, NOP, S, OK, 2},
    {"npz: a deflated member", &npz_desc, F(n_ok), {.deflate = 1}, NOP, S, OK, 2},
    {"npz: no member at all (np.savez())", &npz_desc, NULL, 0, {0}, NOP, S, OK, 0},
    {"npz: central sizes and offset in a zip64 field", &npz_desc, F(n_ok), {.central_zip64 = 2}, NOP, S, OK, 2},
    {"torch: the same, with its descriptor", &torch_desc, F(t_ok), {.torch = 1, .central_zip64 = 2}, NOP, S, OK, 1},
    {"a zip64 field too short for what it must give", &npz_desc, F(n_ok), {.central_zip64 = 2},
     {P(W_CENTRAL, 1, 30, 2, 20), P(W_CENTRAL, 1, 46 + 5 + 2, 2, 16)}, S, AFMT_E_CONSTRAINT, "archive[\"b.npy\"].central.extra",
     AT(W_CENTRAL, 1, 46 + 5), "24 bytes of sizes, offset or disk are all ones, and a too short zip64", 0},
    {"torch: no member at all", &torch_desc, NULL, 0, TORCH, NOP, S, AFMT_E_CONSTRAINT, "archive", AT(W_CD, 0, 0),
     "no member of the form \"{prefix}/data.pkl\"", 0},
    {"central directory offset past the end", &npz_desc, F(n_ok), {0}, {P(W_END, 0, 16, 4, 0x7fffffff)}, S,
     AFMT_E_CONSTRAINT, "archive.end.cd_offset", AT(W_END, 0, 16), "at offset 2147483647 does not end", 0},
    {"more entries than the directory holds", &npz_desc, F(n_ok), {0}, {P(W_END, 0, 8, 2, 1000), P(W_END, 0, 10, 2, 1000)},
     S, AFMT_E_SIZE, "archive.end.entries", AT(W_END, 0, 10), "1000 entries cannot fit", 0},
    {"zip64 sizes over 2^32 claimed, absent", &npz_desc, F(n_ok), {.huge = 1}, NOP, S, AFMT_E_TRUNCATED,
     "archive[\"w.npy\"].data", AT(W_DATA, 0, 0), "4294967301 bytes of data", 0},
    {"a stored member whose sizes differ", &npz_desc, F(n_ok), {0}, {P(W_CENTRAL, 0, 20, 4, 7)}, S, AFMT_E_SIZE,
     "archive[\"w.npy\"].central.compressed_size", AT(W_CENTRAL, 0, 20), "holds 7", 0},
    {"a duplicate name", &npz_desc, F(n_dup), {0}, NOP, S, AFMT_E_CONSTRAINT, "archive[\"w.npy\"]",
     AT(W_CENTRAL, 1, 0), "second member of this name (members 0 and 1)", 0},
    {"name ../x.npy", &npz_desc, F(n_dotdot), {0}, NOP, LEN, AFMT_E_CONSTRAINT, "archive[\"../x.npy\"].central.name",
     AT(W_CENTRAL, 0, 46), "'..' component", 0},
    {"name /abs.npy", &npz_desc, F(n_abs), {0}, NOP, LEN, AFMT_E_CONSTRAINT, "archive[\"/abs.npy\"].central.name",
     AT(W_CENTRAL, 0, 46), "absolute", 0},
    {"name a\\b.npy", &npz_desc, F(n_bslash), {0}, NOP, LEN, AFMT_E_CONSTRAINT,
     "archive[\"a\\\\b.npy\"].central.name", AT(W_CENTRAL, 0, 47), "backslash", 0},
    {"name a//b.npy", &npz_desc, F(n_dslash), {0}, NOP, LEN, AFMT_E_CONSTRAINT, "archive[\"a//b.npy\"].central.name",
     AT(W_CENTRAL, 0, 48), "empty component", 0},
    {"name a/./b.npy", &npz_desc, F(n_dot), {0}, NOP, LEN, AFMT_E_CONSTRAINT, "archive[\"a/./b.npy\"].central.name",
     AT(W_CENTRAL, 0, 48), "'.' component", 0},
    {"a member no npz rule allows", &npz_desc, F(n_txt), {0}, NOP, LEN, AFMT_E_CONSTRAINT, "archive[\"x.txt\"]",
     AT(W_CENTRAL, 1, 46), "no rule of npz allows", 0},
    /* w.npy is 152 bytes (afmt's npy writer); its zip64 local field's sizes at local + 39 and + 47 */
    {"a deflated member inflates to fewer bytes than claimed", &npz_desc, F(n_ok), {.deflate = 1},
     {P(W_CENTRAL, 0, 24, 4, 153), P(W_LOCAL, 0, 39, 8, 153)}, S, AFMT_E_SIZE,
     "archive[\"w.npy\"].central.uncompressed_size", AT(W_CENTRAL, 0, 24), "inflates to 152 bytes, the archive says 153",
     0},
    {"a deflated member inflates to more bytes than claimed", &npz_desc, F(n_ok), {.deflate = 1},
     {P(W_CENTRAL, 0, 24, 4, 151), P(W_LOCAL, 0, 39, 8, 151)}, S, AFMT_E_SIZE,
     "archive[\"w.npy\"].central.uncompressed_size", AT(W_CENTRAL, 0, 24), "more than the 151 bytes", 0},
    {"a claim past deflate's 1032:1", &npz_desc, F(n_ok), {.deflate = 1},
     {P(W_CENTRAL, 0, 24, 4, 1000000), P(W_LOCAL, 0, 39, 8, 1000000)}, S, AFMT_E_SIZE,
     "archive[\"w.npy\"].central.uncompressed_size", AT(W_CENTRAL, 0, 24), "1000000 bytes claimed from 157", 0},
    {"a corrupt deflate stream", &npz_desc, F(n_ok), {.deflate = 1}, {P(W_DATA, 0, 0, 1, 7)}, S, AFMT_E_VALUE,
     "archive[\"w.npy\"].data", AT(W_DATA, 0, 0), "block type 3", 0},
    {"an npy member's own error", &npz_desc_nocrc, F(n_ok), {0}, {P(W_DATA, 0, 0, 1, 0)}, S, AFMT_E_MAGIC,
     "archive[\"w.npy\"].magic_byte", AT(W_DATA, 0, 0), "expected 147, found 0", 0},
    {"a deflated npy member's own error", &npz_desc_nocrc, F(n_ok), {.deflate = 1}, {P(W_DATA, 0, 5, 1, 0)}, S,
     AFMT_E_MAGIC, "archive[\"w.npy\"].magic_byte", AT(W_DATA, 0, 0), "(at byte 0 of the inflated member)", 0},
};

static int run_case(const zip_case *c, zb *z)
{
    afmt_error err;
    seen s;
    size_t i;
    int rc;

    zb_build(z, c->files, c->nfiles, &c->layout);
    for (i = 0; i < 4 && c->patch[i].at.where != W_NONE; i++)
        zb_apply(z, &c->patch[i]);
    rc = ar_validate(c->desc, z->buf, z->len, c->mode, &s, &err);
    if (c->code == AFMT_OK) {
        int ok = rc == 0 && s.n == c->nviews && (c->mode == AFMT_LENIENT) == (strstr(c->name, "lenient") != NULL) &&
                 (c->mode != AFMT_LENIENT || s.warnings > 0);
        if (!ok)
            printf("# %s: rc %d, %zu views, %zu warnings: %s at %" PRIu64 ": %s\n", c->name, rc, s.n, s.warnings,
                   err.field, err.offset, err.message);
        return ok;
    }
    if (rc == 0 || err.code != c->code || strcmp(err.field, c->field) != 0 || err.offset != zb_at(z, c->offset) ||
        strcmp(err.format, c->desc->format) != 0 || (c->message && !strstr(err.message, c->message))) {
        printf("# %s: rc %d code %s field %s offset %" PRIu64 " (want %s %s %" PRIu64 "): %s\n", c->name, rc,
               afmt_code_name(err.code), err.field, err.offset, afmt_code_name(c->code), c->field,
               zb_at(z, c->offset), err.message);
        return 0;
    }
    return 1;
}

/* What the valid archives give: names, places, byte order. */
static void view_checks(zb *z)
{
    afmt_error err;
    seen s;
    zb_layout torch = TORCH, deflated = {.deflate = 1};
    int ok;

    zb_build(z, F(t_ok), &torch);
    ok = ar_validate(&torch_desc, z->buf, z->len, AFMT_STRICT, &s, &err) == 0 && s.n == 1 &&
         strcmp(s.v[0].name, "t.0") == 0 && s.v[0].offset == z->data[1] && s.v[0].nbytes == 24 &&
         s.v[0].endian == AFMT_LITTLE && s.v[0].has_data;
    CHECK("torch: the record's view, at its data, little-endian", ok);
    zb_build(z, F(t_big), &torch);
    ok = ar_validate(&torch_desc, z->buf, z->len, AFMT_STRICT, &s, &err) == 0 && s.n == 1 && s.v[0].endian == AFMT_BIG;
    CHECK("torch: byteorder \"big\" makes the records big-endian", ok);
    zb_build(z, F(n_ok), &(zb_layout){0});
    ok = ar_validate(&npz_desc, z->buf, z->len, AFMT_STRICT, &s, &err) == 0 && s.n == 2 &&
         strcmp(s.v[0].name, "w") == 0 && strcmp(s.v[1].name, "b") == 0 && s.v[0].index == 0 && s.v[1].index == 1 &&
         s.v[0].offset == z->data[0] + npy_w_len - 24 && s.v[1].offset == z->data[1] + npy_b_len - 12 &&
         s.v[0].dims[0] == 2 && s.v[0].dims[1] == 3;
    CHECK("npz: views named by {name}, numbered, at absolute offsets", ok);
    zb_build(z, F(n_ok), &deflated);
    ok = ar_validate(&npz_desc, z->buf, z->len, AFMT_STRICT, &s, &err) == 0 && s.n == 2 && s.v[0].has_data &&
         s.v[0].offset == z->data[0] && s.v[0].first == 0.0f && s.v[1].offset == z->data[1] + npy_b_len - 12 &&
         s.v[1].first == 1.0f;
    CHECK("npz: a deflated member's view has its data, at the compressed data's offset", ok);
}

/* limits.max_decoded_bytes holds for the whole run, before inflating. */
static void limits(zb *z)
{
    zb_layout deflated = {.deflate = 2};
    afmt_options opt;
    afmt_visitor vis;
    afmt_src src;
    afmt_error err;
    uint64_t pos = 0;
    uint32_t narrays = 0;
    seen s;
    int ok;

    zb_build(z, F(n_ok), &deflated);
    afmt_options_default(&opt);
    opt.limits.max_decoded_bytes = npy_b_len - 1;
    seen_visitor(&s, &vis);
    afmt_src_buffer(&src, z->buf, z->len);
    ok = afmt_archive_validate(&npz_desc, &src, z->len, &pos, &narrays, &opt, &vis, NULL, &err) != 0 &&
         err.code == AFMT_E_LIMIT && strcmp(err.field, "archive[\"b.npy\"].central.uncompressed_size") == 0 &&
         err.offset == z->central[1] + 24 && strstr(err.message, "limits.max_decoded_bytes") && s.n == 1;
    CHECK("limits.max_decoded_bytes refuses a member before inflating it", ok);
    opt.limits.max_decoded_bytes = npy_b_len;
    pos = 0;
    narrays = 0;
    ok = afmt_archive_validate(&npz_desc, &src, z->len, &pos, &narrays, &opt, &vis, NULL, &err) == 0 &&
         pos == z->len && narrays == 2;
    CHECK("... and takes one of exactly that size; *pos ends at the archive's end, *narrays counts", ok);
    /* a stored member with a wrong CRC-32: refused, but not when only the structure is wanted */
    zb_build(z, F(n_ok), &(zb_layout){0});
    z->buf[z->data[0] + npy_w_len - 1] ^= 1;
    afmt_options_default(&opt);
    afmt_src_buffer(&src, z->buf, z->len);
    pos = narrays = 0;
    ok = afmt_archive_validate(&npz_desc, &src, z->len, &pos, &narrays, &opt, &vis, NULL, &err) != 0 &&
         strcmp(err.field, "archive[\"w.npy\"].central.crc32") == 0;
    opt.check_values = 0;
    pos = narrays = 0;
    ok = ok && afmt_archive_validate(&npz_desc, &src, z->len, &pos, &narrays, &opt, &vis, NULL, &err) == 0;
    CHECK("check_values 0: a stored member's CRC-32 is not computed", ok);
}

/* The files numpy and torch wrote. */
static void real_files(void)
{
    afmt_error err;
    seen s;
    int ok;

    ok = ar_validate(&npz_desc, real_npz, sizeof real_npz - 1, AFMT_STRICT, &s, &err) == 0 && s.n == 2 &&
         strcmp(s.v[0].name, "w") == 0 && strcmp(s.v[1].name, "b") == 0;
    if (!ok)
        printf("# np.savez: %s at %" PRIu64 ": %s\n", err.field, err.offset, err.message);
    CHECK("np.savez's file (numpy 2.4.6)", ok);
    ok = ar_validate(&npz_desc, real_npz_deflated, sizeof real_npz_deflated - 1, AFMT_STRICT, &s, &err) == 0 &&
         s.n == 2 && s.v[0].dims[0] == 2 && s.v[0].dims[1] == 3 && s.v[0].has_data && s.v[1].dims[0] == 3;
    if (!ok)
        printf("# np.savez_compressed: %s at %" PRIu64 ": %s\n", err.field, err.offset, err.message);
    CHECK("np.savez_compressed's file (numpy 2.4.6)", ok);
    ok = ar_validate(&torch_desc_sd, real_torch, sizeof real_torch - 1, AFMT_STRICT, &s, &err) == 0 && s.n == 2 &&
         s.v[0].nbytes == 24 && s.v[1].nbytes == 12 && s.v[1].first == 1.0f && s.warnings == 0;
    if (!ok)
        printf("# torch.save: %s at %" PRIu64 ": %s\n", err.field, err.offset, err.message);
    CHECK("torch.save's file (torch 2.13), strict", ok);
}

/* Every prefix of a valid archive is refused, at an offset inside it. */
static void prefixes(zb *z)
{
    zb_layout torch = TORCH, plain = {0};
    const struct { const afmt_archive_desc *d; const zb_file *f; size_t n; const zb_layout *l; const char *name; } v[] = {
        {&torch_desc, F(t_ok), &torch, "every prefix of the torch-form archive is refused"},
        {&npz_desc, F(n_ok), &plain, "every prefix of the npz-form archive is refused"},
    };
    size_t i, k;

    for (i = 0; i < 2; i++) {
        int ok = 1;
        zb_build(z, v[i].f, v[i].n, v[i].l);
        for (k = 0; k < z->len && ok; k++) {
            afmt_error err;
            seen s;
            uint8_t *copy = malloc(k ? k : 1);
            memcpy(copy, z->buf, k);
            ok = ar_validate(v[i].d, copy, k, AFMT_LENIENT, &s, &err) != 0 && err.offset <= k;
            if (!ok)
                printf("# prefix %zu: %s at %" PRIu64 ": %s\n", k, err.field, err.offset, err.message);
            free(copy);
        }
        CHECK(v[i].name, ok);
    }
}

/* Damaged archives: one to four bytes changed anywhere; a verdict each. */
static void damaged(zb *z)
{
    zb_layout torch = TORCH;
    uint64_t x = 0x2545f4914f6cdd1du;
    int i, ok = 1, refused = 0;

    for (i = 0; i < 4000 && ok; i++) {
        afmt_error err;
        seen s;
        int k, n = 1 + i % 4;
        zb_build(z, i % 2 ? n_ok : t_ok, i % 2 ? 2 : 4, i % 2 ? &(zb_layout){0} : &torch);
        for (k = 0; k < n; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            z->buf[x % z->len] ^= (uint8_t)(1u << (x >> 60) % 8);
        }
        if (ar_validate(i % 2 ? &npz_desc : &torch_desc, z->buf, z->len, i % 3 ? AFMT_STRICT : AFMT_LENIENT, &s,
                        &err) != 0) {
            refused++;
            ok = err.field[0] != '\0' && strncmp(err.field, "archive", 7) == 0 &&
                 (err.offset == AFMT_NO_OFFSET || err.offset <= z->len);
            if (!ok)
                printf("# damaged %d: %s at %" PRIu64 ": %s\n", i, err.field, err.offset, err.message);
        }
    }
    printf("# %d of 4000 damaged archives refused\n", refused);
    CHECK("4,000 damaged archives: a verdict naming a field of the archive", ok && refused > 3000);
}

int main(void)
{
    static zb z;
    size_t i;

    make_npys(npy_w, &npy_w_len, npy_b, &npy_b_len);
    n_ok[0] = (zb_file){"w.npy", npy_w, npy_w_len};
    n_ok[1] = (zb_file){"b.npy", npy_b, npy_b_len};
    n_dup[0] = n_dup[1] = n_ok[0];
    n_dotdot[0] = (zb_file){"../x.npy", npy_w, npy_w_len};
    n_abs[0] = (zb_file){"/abs.npy", npy_w, npy_w_len};
    n_bslash[0] = (zb_file){"a\\b.npy", npy_w, npy_w_len};
    n_dslash[0] = (zb_file){"a//b.npy", npy_w, npy_w_len};
    n_dot[0] = (zb_file){"a/./b.npy", npy_w, npy_w_len};
    n_txt[0] = n_ok[0];
    n_txt[1] = (zb_file){"x.txt", B("hello")};
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(cases[i].name, run_case(&cases[i], &z));
    CHECK("afmt's npy writer makes the 152-byte w.npy the size cases count on", npy_w_len == 152);
    view_checks(&z);
    limits(&z);
    real_files();
    prefixes(&z);
    damaged(&z);
    CHECK_DONE();
}
