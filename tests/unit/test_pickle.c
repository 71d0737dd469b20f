/* Unit tests of the non-executing pickle machine (runtime/afmt_pickle*.c)
 * under a description equal to FORMATS.md's torch profile (pickle_asm.h):
 * hand-assembled pickles that torch.save writes (state dicts, shared
 * storages, 0-d and empty tensors, an OrderedDict with BUILD _metadata, a
 * Parameter, nested plain values), each checked by everything the walk
 * reports (views, key-values, fields); pickles refused, each by code, field
 * and absolute offset; every prefix of every valid pickle and every
 * one-byte mutant of it run (none may crash, no prefix may pass); and the
 * writer, byte for byte and back through the machine. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afmt_internal.h"
#include "afmt_pickle.h"
#include "check.h"
#include "pickle_asm.h"

#define BASE 100            /* the pickle's offset in the (imagined) archive */
#define NREC 4
#define REC_CAP 1024

/* ------------------------------------------------------------ running a pickle */

typedef struct run_ctx {
    uint8_t rec[NREC][REC_CAP];   /* records "0".."3" (or "a".."d"), at offsets 1000, 2000, ... */
    uint64_t rec_bytes[NREC];
    char out[16384];              /* everything the walk reported, in order */
    size_t outn;
    int warnings;
    char resolved[32];            /* the keys resolve was asked for, in order */
    int bad_pointer;              /* a view's data and offset disagree */
} run_ctx;

static void say(run_ctx *c, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void say(run_ctx *c, const char *fmt, ...)
{
    va_list ap;
    int k;
    if (c->outn >= sizeof c->out - 1) return;
    va_start(ap, fmt);
    k = vsnprintf(c->out + c->outn, sizeof c->out - c->outn, fmt, ap);
    va_end(ap);
    if (k > 0) c->outn += (size_t)k < sizeof c->out - c->outn ? (size_t)k : sizeof c->out - c->outn - 1;
}

static int resolve(void *ctx, const char *key, size_t key_len, afmt_ar_storage *out, afmt_error *err)
{
    run_ctx *c = ctx;
    int i = -1;
    size_t n = strlen(c->resolved);
    if (key_len == 1 && key[0] >= '0' && key[0] < '0' + NREC) i = key[0] - '0';
    if (key_len == 1 && key[0] >= 'a' && key[0] < 'a' + NREC) i = key[0] - 'a';
    if (i < 0)
        return afmt_fail(err, AFMT_E_CONSTRAINT, NULL, "archive", AFMT_NO_INDEX, 0, "no record data/%.*s",
                         (int)key_len, key);
    if (n + 1 < sizeof c->resolved) { c->resolved[n] = key[0]; c->resolved[n + 1] = '\0'; }
    out->data = c->rec_bytes[i] <= REC_CAP ? c->rec[i] : NULL;
    out->nbytes = c->rec_bytes[i];
    out->offset = 1000 * (uint64_t)(i + 1);
    out->endian = AFMT_LITTLE;
    return 0;
}

static int on_array(void *ctx, const afmt_array *a)
{
    run_ctx *c = ctx;
    char d[64];
    uint32_t k;
    afmt_array_describe(a, d, sizeof d);
    say(c, "A:%s", a->name);
    if (a->name_len != strlen(a->name)) say(c, "(%" PRIu64 ")", a->name_len);
    say(c, ":%s:s", d);
    for (k = 0; k < a->rank; k++) say(c, "%s%" PRIu64, k ? "," : "", a->strides[k]);
    say(c, ":@%" PRIu64 ":%" PRIu64 ";", a->offset, a->nbytes);
    if (!a->strided || a->index != 0 + (uint32_t)a->index) c->bad_pointer = 1;
    if (a->data) {
        const uint64_t rec = a->offset / 1000 - 1;
        if (rec >= NREC || a->data != c->rec[rec] + (a->offset - 1000 * (rec + 1))) c->bad_pointer = 1;
    }
    return 0;
}

static int on_kv(void *ctx, const afmt_kv *kv, uint64_t offset)
{
    run_ctx *c = ctx;
    say(c, "K:%.*s=", (int)kv->key_len, (const char *)kv->key);
    switch (kv->value.kind) {
    case AFMT_VALUE_INT: say(c, "i%" PRId64, kv->value.i); break;
    case AFMT_VALUE_FLOAT: say(c, "f%s", afmt_float_text(kv->value.f, 8).s); break;
    case AFMT_VALUE_BOOL: say(c, "b%" PRIu64, kv->value.u); break;
    case AFMT_VALUE_STRING: say(c, "s%.*s", (int)kv->value.len, (const char *)kv->value.str); break;
    default: say(c, "?"); break;
    }
    say(c, "@%" PRIu64 ";", offset);
    return 0;
}

static void on_field(void *ctx, const afmt_field_info *f)
{
    run_ctx *c = ctx;
    say(c, "F:%s=%.*s;", f->field, (int)f->width, (const char *)f->bytes);
}

static void on_warning(void *ctx, const afmt_error *w)
{
    (void)w;
    ((run_ctx *)ctx)->warnings++;
}

/* Run bytes[0..n) under d; c's records sized by rec_bytes. */
static int run_bytes(const afmt_pickle_desc *d, const uint8_t *bytes, size_t n, afmt_mode mode, run_ctx *c,
                     const uint64_t *rec_bytes, const afmt_options *base_opt, afmt_error *err)
{
    afmt_options opt;
    afmt_visitor vis;
    afmt_field_visitor fields;
    int i;

    if (base_opt) opt = *base_opt;
    else afmt_options_default(&opt);
    opt.mode = mode;
    memset(&vis, 0, sizeof vis);
    vis.ctx = c;
    vis.on_array = on_array;
    vis.on_kv = on_kv;
    vis.on_warning = on_warning;
    fields.ctx = c;
    fields.on_field = on_field;
    opt.fields = &fields;
    c->outn = 0;
    c->out[0] = '\0';
    c->warnings = 0;
    c->resolved[0] = '\0';
    c->bad_pointer = 0;
    for (i = 0; i < NREC; i++) c->rec_bytes[i] = rec_bytes ? rec_bytes[i] : 0;
    afmt_error_clear(err);
    return afmt_pickle_member(d, bytes, n, BASE, resolve, c, &opt, &vis, NULL, err);
}

static afmt_pickle_desc torch_desc;
static pk_asm as;
static run_ctx ctx;

/* ------------------------------------------------------------ valid pickles */

typedef struct valid_case {
    const char *name;
    const char *src;
    afmt_mode mode;
    uint64_t rec[NREC];
    int warnings;
    const char *want;      /* everything the walk reports */
} valid_case;

#define W23 "P2 } q0 X'w' q1" REB "q2 ( ( X'storage' q3" FS "q4 X'0' q5 X'cpu' q6 K6 t q7 Q K0 K2 K3 t2 q8 K3 K1 t2 q9 F" \
            OD "q10 ) R q11 t q12 R q13"

static const valid_case valid_cases[] = {
    { "one tensor f32[2,3] (torch.save({'w': ...}))", W23 " s .", AFMT_STRICT, { 24 }, 0,
      "F:w=tensor(f32[2,3], stride=(3, 1), offset=0, storage='0');A:w:f32[2,3]:s3,1:@1000:24;" },
    { "a state dict of two tensors",
      "P2 } q0 ( X'w' q1" REB "q2 ( ( X'storage' q3" FS "q4 X'0' q5 X'cpu' q6 K6 t q7 Q K0 K2 K3 t2 q8 K3 K1 t2 q9 F"
      OD "q10 ) R q11 t q12 R q13 X'b' q14 h2 ( ( h3 h4 X'1' q15 h6 K3 t q16 Q K0 K3 t1 q17 K1 t1 q18 F h10 ) R q19 t"
      " q20 R q21 u .", AFMT_STRICT, { 24, 12 }, 0,
      "F:w=tensor(f32[2,3], stride=(3, 1), offset=0, storage='0');A:w:f32[2,3]:s3,1:@1000:24;"
      "F:b=tensor(f32[3], stride=(1,), offset=0, storage='1');A:b:f32[3]:s1:@2000:12;" },
    { "shared storage: a transpose and a slice at offset 4",
      "P2 } q0 ( X'w' q1" REB "q2 ( ( X'storage' q3" FS "q4 X'0' q5 X'cpu' q6 K6 t q7 Q K0 K2 K3 t2 q8 K3 K1 t2 q9 F"
      OD "q10 ) R q11 t q12 R q13 X't' q14 h2 ( ( h3 h4 h5 h6 K6 t q15 Q K0 K3 K2 t2 q16 K1 K3 t2 q17 F h10 ) R q18 t"
      " q19 R q20 X's' q21 h2 ( ( h3 h4 h5 h6 K6 t q22 Q K4 K2 t1 q23 K1 t1 q24 F h10 ) R q25 t q26 R q27 u .",
      AFMT_STRICT, { 24 }, 0,
      "F:w=tensor(f32[2,3], stride=(3, 1), offset=0, storage='0');A:w:f32[2,3]:s3,1:@1000:24;"
      "F:t=tensor(f32[3,2], stride=(1, 3), offset=0, storage='0');A:t:f32[3,2]:s1,3:@1000:24;"
      "F:s=tensor(f32[2], stride=(1,), offset=4, storage='0');A:s:f32[2]:s1:@1016:8;" },
    { "the same tensor twice (tied weights): a view per key path",
      "P2 } q0 ( X'w' q1" REB "q2 ( ( X'storage' q3" FS "q4 X'0' q5 X'cpu' q6 K6 t q7 Q K0 K2 K3 t2 q8 K3 K1 t2 q9 F"
      OD "q10 ) R q11 t q12 R q13 X'tied' q14 h13 u .", AFMT_STRICT, { 24 }, 0,
      "F:w=tensor(f32[2,3], stride=(3, 1), offset=0, storage='0');A:w:f32[2,3]:s3,1:@1000:24;"
      "F:tied=tensor(f32[2,3], stride=(3, 1), offset=0, storage='0');A:tied:f32[2,3]:s3,1:@1000:24;" },
    { "a 0-d tensor (i64)",
      "P2 } q0 X'x' q1" REB "q2 ( ( X'storage' q3 c:torch:LongStorage q4 X'0' q5 X'cpu' q6 K1 t q7 Q K0 ) ) F" OD
      "q8 ) R q9 t q10 R q11 s .", AFMT_STRICT, { 8 }, 0,
      "F:x=tensor(i64[], stride=(), offset=0, storage='0');A:x:i64[]:s:@1000:8;" },
    { "an empty tensor f32[0,3]",
      "P2 } q0 X'e' q1" REB "q2 ( ( X'storage' q3" FS "q4 X'0' q5 X'cpu' q6 K0 t q7 Q K0 K0 K3 t2 q8 K3 K1 t2 q9 F" OD
      "q10 ) R q11 t q12 R q13 s .", AFMT_STRICT, { 0 }, 0,
      "F:e=tensor(f32[0,3], stride=(3, 1), offset=0, storage='0');A:e:f32[0,3]:s3,1:@1000:0;" },
    { "an OrderedDict with BUILD _metadata (model.state_dict())",
      "P2" OD "q0 ) R q1 X'w' q2" REB "q3 ( ( X'storage' q4" FS "q5 X'0' q6 X'cpu' q7 K6 t q8 Q K0 K2 K3 t2 q9 K3 K1 t2"
      " q10 F h0 ) R q11 t q12 R q13 s } q14 X'_metadata' q15 h0 ) R q16 X'' q17 } q18 X'version' q19 K1 s s s b .",
      AFMT_STRICT, { 24 }, 0,
      "F:w=tensor(f32[2,3], stride=(3, 1), offset=0, storage='0');A:w:f32[2,3]:s3,1:@1000:24;"
      "F:_metadata..version=1;K:_metadata..version=i1@317;" },
    { "a Parameter (nn.Parameter in a dict)",
      "P2 } q0 X'p' q1" PARAM "q2" REB "q3 ( ( X'storage' q4" FS "q5 X'0' q6 X'cuda:0' q7 K6 t q8 Q K0 K6 t1 q9 K1 t1"
      " q10 F" OD "q11 ) R q12 t q13 R q14 T h11 ) R q15 t3 q16 R q17 s .", AFMT_STRICT, { 24 }, 0,
      "F:p=tensor(f32[6], stride=(1,), offset=0, storage='0');A:p:f32[6]:s1:@1000:24;" },
    { "nested plain values, an int key, None, bool, float",
      "P2 } q0 X'cfg' q1 } q2 ( X'lr' q3 G0.1 X'name' q4 X'x' q5 X'n' q6 N X'on' q7 T X'ids' q8 ] q9 ( K1 K2 e"
      " X'pair' q10 K3 X'y' q11 t2 q12 K7 J-1 u s .", AFMT_STRICT, { 0 }, 0,
      "F:cfg.lr=0.1;K:cfg.lr=f0.1@128;F:cfg.name='x';K:cfg.name=sx@148;F:cfg.n=None;F:cfg.on=True;K:cfg.on=b1@174;"
      "F:cfg.ids.0=1;K:cfg.ids.0=i1@189;F:cfg.ids.1=2;K:cfg.ids.1=i2@191;F:cfg.pair.0=3;K:cfg.pair.0=i3@205;"
      "F:cfg.pair.1='y';K:cfg.pair.1=sy@207;F:cfg.7=-1;K:cfg.7=i-1@220;" },
    { "a list root of empty containers",
      "P2 ] q0 ( } q1 ] q2 ) e .", AFMT_STRICT, { 0 }, 0, "F:0={};F:1=[];F:2=();" },
    { "a tensor root", "P2" REB "q0 ( ( X'storage' q1" FS "q2 X'0' q3 X'cpu' q4 K2 t q5 Q K0 K2 t1 q6 K1 t1 q7 F" OD
      "q8 ) R q9 t q10 R q11 .", AFMT_STRICT, { 8 }, 0,
      "F:=tensor(f32[2], stride=(1,), offset=0, storage='0');A::f32[2]:s1:@1000:8;" },
    { "lenient: BININT for a small int, with a warning", "P2 } q0 X'a' q1 J5 s .", AFMT_LENIENT, { 0 }, 1,
      "F:a=5;K:a=i5@113;" },
    { "lenient: MARK TUPLE of 2 and LONG_BINPUT 2, warned",
      "P2 } q0 X'a' q1 ( K1 K2 t r2 s .", AFMT_LENIENT, { 0 }, 2, "F:a.0=1;K:a.0=i1@114;F:a.1=2;K:a.1=i2@116;" },
    { "floats and strings as repr prints them",
      "P2 } q0 ( X'a' q1 G1e16 X'b' q2 G1e15 X'c' q3 G-0.0 X'd' q4 G1e-05 X'e' q5 X'it's' q6 X'f' q7 G2.5 u .",
      AFMT_STRICT, { 0 }, 0,
      "F:a=1e+16;K:a=f1e+16@114;F:b=1000000000000000.0;K:b=f1e+15@131;F:c=-0.0;K:c=f-0@148;F:d=1e-05;K:d=f1e-05@165;"
      "F:e=\"it's\";K:e=sit's@182;F:f=2.5;K:f=f2.5@201;" },
    { "a large int (LONG1 of 5 bytes)", "P2 } q0 X'n' q1 L0000008000 s .", AFMT_STRICT, { 0 }, 0,
      "F:n=2147483648;K:n=i2147483648@113;" },
};

static void test_valid(void)
{
    size_t i;
    afmt_error err;
    for (i = 0; i < sizeof valid_cases / sizeof valid_cases[0]; i++) {
        const valid_case *c = &valid_cases[i];
        int rc;
        if (pk_assemble(&as, c->src) != 0) { CHECK(c->name, 0); continue; }
        rc = run_bytes(&torch_desc, as.b, as.n, c->mode, &ctx, c->rec, NULL, &err);
        if (rc != 0) printf("# %s: %s: %s at %" PRIu64 ": %s\n", c->name, afmt_code_name(err.code), err.field,
                            err.offset, err.message);
        else if (strcmp(ctx.out, c->want) != 0) printf("# %s:\n#  got  %s\n#  want %s\n", c->name, ctx.out, c->want);
        CHECK(c->name, rc == 0 && strcmp(ctx.out, c->want) == 0 && ctx.warnings == c->warnings && !ctx.bad_pointer);
    }
}

int main(void)
{
    pk_torch_desc(&torch_desc);
    test_valid();
    CHECK_DONE();
}
