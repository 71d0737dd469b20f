/* Unit tests of the non-executing pickle machine (runtime/pickle/afmt_pickle*.c)
 * under a description equal to FORMATS.md's torch profile (pickle_asm.h,
 * which also assembles the pickles from pickletools-like text):
 * - valid pickles as torch.save writes them (a state dict of two tensors,
 *   shared storage: a transpose and a slice, tied weights, a 0-d and an
 *   empty tensor, an OrderedDict with BUILD _metadata, a Parameter, nested
 *   dict/list/tuple/int/float/str/None/bool values, int keys, a list and a
 *   tensor as the root, lenient tolerances), each checked by everything the
 *   walk reports: views, key-values and fields, offsets included;
 * - refused pickles, each by code, field and absolute offset;
 * - every prefix of every valid pickle (refused cleanly) and three
 *   one-byte mutants per byte (a verdict, never a crash: run it under
 *   ASan/UBSan too);
 * - generated pickles at the limits (nesting 32/33, a batch of 1001, a
 *   DAG of 2^21 key paths), callbacks and resolvers that fail,
 *   descriptions that differ (keys by text, no BUILD, a list root refused);
 * - the writer: torch.save's exact bytes for {'w': f32[2,3]}, round trips
 *   through the machine, its refusals. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afmt_internal.h"
#include "pickle/afmt_pickle.h"
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

/* {'w': f32[2,3]} without its SETITEM and STOP; W23_TAIL: from after the key */
#define W23_TAIL REB "q2 ( ( X'storage' q3" FS "q4 X'0' q5 X'cpu' q6 K6 t q7 Q K0 K2 K3 t2 q8 K3 K1 t2 q9 F" OD \
                 "q10 ) R q11 t q12 R q13"
#define W23 "P2 } q0 X'w' q1" W23_TAIL

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
    { "more floats as repr prints them",
      "P2 ] q0 ( G100 G0.0001 G123.456 G5e-324 Ginf G-inf Gnan G1.7976931348623157e308 e .", AFMT_STRICT, { 0 }, 0,
      "F:0=100.0;K:0=f100@106;F:1=0.0001;K:1=f0.0001@115;F:2=123.456;K:2=f123.456@124;F:3=5e-324;K:3=f5e-324@133;"
      "F:4=inf;K:4=finf@142;F:5=-inf;K:5=f-inf@151;F:6=nan;K:6=fnan@160;F:7=1.7976931348623157e+308;"
      "K:7=f1.7976931348623157e+308@169;" },
    { "strings with escapes and quotes as repr prints them", "P2 ] q0 ( Xh:0a095c q1 Xh:2722 q2 Xh:c3a9 q3 Xh:27 q4 e .",
      AFMT_STRICT, { 0 }, 0,
      "F:0='\\n\\t\\\\';K:0=s\n\t\\@106;F:1='\\'\"';K:1=s'\"@116;F:2='\xc3\xa9';K:2=s\xc3\xa9@125;"
      "F:3=\"'\";K:3=s'@134;" },
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

/* ------------------------------------------------------------ refused pickles */

typedef struct bad_case {
    const char *name;
    const char *src;
    afmt_mode mode;
    afmt_code code;
    const char *field;     /* exactly */
    int op;                /* the blamed opcode's ordinal (its offset is expected), or -1: */
    uint64_t offset;       /* this absolute offset */
    const char *says;      /* a part of the message */
    uint64_t rec[NREC];
    int bad_bool;          /* record 0's byte 3 is 2 */
    uint64_t max_depth, max_items;
} bad_case;

/* W23 with another middle: REDUCE is op 38, BINPERSID op 20 */
#define W23_PID(key, loc) "P2 } q0 X'w' q1" REB "q2 ( ( X'storage' q3" FS "q4 X'" key "' q5 X'" loc "' q6 K6 t q7 Q"
#define W23_AT(first, view) W23_PID("0", "cpu") " " first " " view " F" OD "q10 ) R q11 t q12 R q13"
#define W23_VIEW(view) W23_AT("K0", view)
/* the two-tensor prefix: its first REDUCE is op 39, then 'b' from op 41 */
#define W2 "P2 } q0 ( X'w' q1" REB "q2 ( ( X'storage' q3" FS "q4 X'0' q5 X'cpu' q6 K6 t q7 Q K0 K2 K3 t2 q8 K3 K1" \
           " t2 q9 F" OD "q10 ) R q11 t q12 R q13 X'b' q14 h2 ( ( h3"

#define C AFMT_E_CONSTRAINT
static const bad_case bad_cases[] = {
    /* opcodes torch's pickler never writes */
    { "STACK_GLOBAL", "P2 #93", 0, C, "data.pkl[op 1 STACK_GLOBAL]", 1, 0, "not allowed in data.pkl", {0}, 0, 0, 0 },
    { "INST", "P2 #69", 0, C, "data.pkl[op 1 INST]", 1, 0, "not allowed", {0}, 0, 0, 0 },
    { "OBJ", "P2 ( #6f", 0, C, "data.pkl[op 2 OBJ]", 2, 0, "not allowed", {0}, 0, 0, 0 },
    { "NEWOBJ", "P2 #81", 0, C, "data.pkl[op 1 NEWOBJ]", 1, 0, "not allowed", {0}, 0, 0, 0 },
    { "MEMOIZE", "P2 ) #94", 0, C, "data.pkl[op 2 MEMOIZE]", 2, 0, "not allowed", {0}, 0, 0, 0 },
    { "FRAME", "P2 #950900000000000000", 0, C, "data.pkl[op 1 FRAME]", 1, 0, "not allowed", {0}, 0, 0, 0 },
    { "a byte that is no opcode", "P2 #ff", 0, C, "data.pkl[op 1 0xff]", 1, 0, "not allowed", {0}, 0, 0, 0 },
    /* GLOBALs */
    { "GLOBAL posix system", "P2 c:posix:system q0 ) R .", 0, C, "data.pkl[op 1 GLOBAL]", 1, 0,
      "GLOBAL 'posix system' is not allowed: the allowlist is collections OrderedDict, torch._utils "
      "_rebuild_tensor_v2, torch._utils _rebuild_parameter, torch FloatStorage", {0}, 0, 0, 0 },
    { "GLOBAL torch.serialization.os system", "P2 c:torch.serialization.os:system", 0, C, "data.pkl[op 1 GLOBAL]", 1, 0,
      "GLOBAL 'torch.serialization.os system' is not allowed", {0}, 0, 0, 0 },
    { "GLOBAL builtins eval", "P2 } q0 c:builtins:eval", 0, C, "data.pkl[op 3 GLOBAL]", 3, 0,
      "GLOBAL 'builtins eval' is not allowed", {0}, 0, 0, 0 },
    { "GLOBAL _rebuild_tensor_v3, refused by name", "P2 c:torch._utils:_rebuild_tensor_v3", 0, AFMT_E_UNSUPPORTED,
      "data.pkl[op 1 GLOBAL]", 1, 0, "'torch._utils _rebuild_tensor_v3' is refused: torch's UntypedStorage", {0}, 0,
      0, 0 },
    /* REDUCE */
    { "REDUCE of _rebuild_tensor_v2 with 5 arguments", "P2" REB "q0 ( K0 K0 K0 K0 K0 t q1 R .", 0, C,
      "data.pkl[op 11 REDUCE]", 11, 0, "'torch._utils _rebuild_tensor_v2' with 5 arguments: it takes 6", {0}, 0, 0, 0 },
    { "REDUCE with an int for the storage", "P2" REB "q0 ( K0 K0 ) ) F" OD "q1 ) R q2 t q3 R .", 0, C,
      "data.pkl[op 16 REDUCE]", 16, 0, "argument 1 of 6 must be a storage reference (BINPERSID), found the int 0",
      {0}, 0, 0, 0 },
    { "REDUCE with a negative dimension", W23_VIEW("J-1 K3 t2 q8 K3 K1 t2 q9"), 0, C, "data.pkl[op 38 REDUCE]", 38, 0,
      "argument 3 of 6 must be a tuple of ints >= 0, found a tuple holding the int -1", {24}, 0, 0, 0 },
    { "REDUCE of a class (FloatStorage(2**40))", "P2" FS "q0 L000000000001 t1 q1 R .", 0, C, "data.pkl[op 6 REDUCE]",
      6, 0, "a class that names an element type", {0}, 0, 0, 0 },
    { "REDUCE of a str", "P2 X'f' q0 ) R .", 0, C, "data.pkl[op 4 REDUCE]", 4, 0,
      "REDUCE calls the str 'f' (made by op 1 BINUNICODE at offset 102)", {0}, 0, 0, 0 },
    { "OrderedDict called with an argument", "P2" OD "q0 K1 t1 q1 R", 0, C, "data.pkl[op 6 REDUCE]", 6, 0,
      "with 1 argument: it takes 0", {0}, 0, 0, 0 },
    /* filling containers */
    { "SETITEM on a tensor (CVE-2026-24747)", W23 " X'x' q14 K1 s", 0, C, "data.pkl[op 43 SETITEM]", 43, 0,
      "SETITEM on a tensor (made by torch._utils _rebuild_tensor_v2 at offset 261)", {24}, 0, 0, 0 },
    { "SETITEMS on a tensor", W23 " ( X'x' q14 K1 X'y' q15 K2 u", 0, C, "data.pkl[op 47 SETITEMS]", 47, 0,
      "SETITEMS on a tensor (made by torch._utils _rebuild_tensor_v2 at offset 261): SETITEMS fills a dict", {24}, 0,
      0, 0 },
    { "APPEND on a dict", "P2 } q0 K1 a", 0, C, "data.pkl[op 4 APPEND]", 4, 0,
      "APPEND on a dict (made by op 1 EMPTY_DICT at offset 102): APPEND fills a list", {0}, 0, 0, 0 },
    { "APPEND on a tuple", "P2 ) K1 a", 0, C, "data.pkl[op 3 APPEND]", 3, 0, "APPEND on a tuple", {0}, 0, 0, 0 },
    { "SETITEM on a dict got back after it was complete", "P2 } q0 X'd' q1 } q2 s h2 X'k' q3 K1 s .", 0, C,
      "data.pkl[op 12 SETITEM]", 12, 0, "already complete", {0}, 0, 0, 0 },
    { "SETITEMS of an odd count", "P2 } q0 ( X'a' q1 u", 0, C, "data.pkl[op 6 SETITEMS]", 6, 0, "come in pairs", {0},
      0, 0, 0 },
    { "a float dict key", "P2 } q0 G1.5 K1 s", 0, C, "data.pkl[op 5 SETITEM]", 5, 0,
      "a dict key is the float 1.5", {0}, 0, 0, 0 },
    { "a GLOBAL as a dict value", "P2 } q0 X'k' q1" FS "q2 s", 0, C, "data.pkl[op 7 SETITEM]", 7, 0,
      "into a dict (made by op 1 EMPTY_DICT at offset 102): a container holds only plain values and tensors", {0}, 0,
      0, 0 },
    { "a duplicate key", "P2 } q0 ( X'a' q1 K1 X'a' q2 K2 u .", 0, C, "data.pkl[op 10 SETITEMS]", 10, 0,
      "duplicate key 'a' in a dict (made by op 1 EMPTY_DICT at offset 102): set first by op 10 SETITEMS at offset 126",
      {0}, 0, 0, 0 },
    { "a duplicate key got back by BINGET", "P2 } q0 X'a' q1 K1 s h1 K2 s .", 0, C, "data.pkl[op 9 SETITEM]", 9, 0,
      "duplicate key 'a' in a dict (made by op 1 EMPTY_DICT at offset 102): set first by op 6 SETITEM", {0}, 0, 0, 0 },
    { "a duplicate int key", "P2 } q0 ( K7 K1 K7 K2 u .", 0, C, "data.pkl[op 8 SETITEMS]", 8, 0, "duplicate key 7",
      {0}, 0, 0, 0 },
    /* the memo */
    { "BINGET of a slot never put", "P2 } q0 h1", 0, C, "data.pkl[op 3 BINGET]", 3, 0,
      "memo slot 1 was never put (1 slot is put so far)", {0}, 0, 0, 0 },
    { "a memo put out of order", "P2 } q1", 0, C, "data.pkl[op 2 BINPUT]", 2, 0, "the next memo slot is 0", {0}, 0, 0,
      0 },
    { "a memo put out of order, lenient too", "P2 } q1", AFMT_LENIENT, C, "data.pkl[op 2 BINPUT]", 2, 0,
      "the next memo slot is 0", {0}, 0, 0, 0 },
    { "a dict not put in the memo", "P2 } K1", 0, C, "data.pkl[op 2 BININT1]", 2, 0,
      "a dict (made by op 1 EMPTY_DICT at offset 102) is not put in the memo", {0}, 0, 0, 0 },
    { "a memo put of an int", "P2 } q0 K1 q1", 0, C, "data.pkl[op 4 BINPUT]", 4, 0, "BINPUT 1 of the int 1", {0}, 0,
      0, 0 },
    { "a cycle: BINGET of the dict being filled", "P2 } q0 X'self' q1 h0 s .", 0, C, "data.pkl[op 5 BINGET]", 5, 0,
      "still being filled: a container inside itself", {0}, 0, 0, 0 },
    { "a cycle through a list", "P2 } q0 X'l' q1 ] q2 h0 a s .", 0, C, "data.pkl[op 7 BINGET]", 7, 0,
      "still being filled", {0}, 0, 0, 0 },
    /* STOP and the stream */
    { "two values at STOP", "P2 } q0 } q1 .", 0, C, "data.pkl[op 5 STOP]", 5, 0, "STOP with 2 values on the stack",
      {0}, 0, 0, 0 },
    { "a MARK left open at STOP", "P2 ( } q0 .", 0, C, "data.pkl[op 4 STOP]", 4, 0,
      "STOP with 1 MARK still open (the last at offset 102)", {0}, 0, 0, 0 },
    { "bytes after STOP", "P2 } q0 . #00", 0, AFMT_E_TRAILING, "data.pkl", -1, 106, "1 bytes after STOP", {0}, 0, 0,
      0 },
    { "an empty pickle", "", 0, AFMT_E_TRUNCATED, "data.pkl", -1, 100, "ends after 0 opcodes without STOP", {0}, 0, 0,
      0 },
    { "no STOP", "P2 } q0", 0, AFMT_E_TRUNCATED, "data.pkl", -1, 105, "ends after 3 opcodes without STOP", {0}, 0, 0,
      0 },
    { "no PROTO", "} q0 .", 0, AFMT_E_MAGIC, "data.pkl[op 0 EMPTY_DICT]", 0, 0, "not PROTO 2", {0}, 0, 0, 0 },
    { "protocol 4", "P4", 0, AFMT_E_UNSUPPORTED, "data.pkl[op 0 PROTO]", 0, 0, "pickle protocol 4", {0}, 0, 0, 0 },
    { "PROTO twice", "P2 P2", 0, C, "data.pkl[op 1 PROTO]", 1, 0, "after the first opcode", {0}, 0, 0, 0 },
    { "a str as the result", "P2 X'a' q0 .", 0, C, "data.pkl[op 3 STOP]", 3, 0, "STOP leaves the str 'a'", {0}, 0, 0,
      0 },
    { "a storage id as the result",
      "P2 ( X'storage' q0" FS "q1 X'0' q2 X'cpu' q3 K0 t q4 .", 0, C, "data.pkl[op 13 STOP]", 13, 0,
      "STOP leaves a tuple", {0}, 0, 0, 0 },
    { "a cut BINUNICODE", "P2 #5810000000616263", 0, AFMT_E_TRUNCATED, "data.pkl[op 1 BINUNICODE]", 1, 0,
      "BINUNICODE of 16 bytes: 3 remain", {0}, 0, 0, 0 },
    { "a GLOBAL without its lines", "P2 #63746f726368", 0, AFMT_E_TRUNCATED, "data.pkl[op 1 GLOBAL]", 1, 0,
      "without its two lines", {0}, 0, 0, 0 },
    /* views and storages */
    { "a view past its storage's end", W23_VIEW("K2 K4 t2 q8 K4 K1 t2 q9"), 0, AFMT_E_SIZE, "data.pkl[op 38 REDUCE]",
      38, 0, "the view of shape (2, 4), strides (4, 1) at element 0 ends at element 7, past its storage's 6 elements",
      {24}, 0, 0, 0 },
    { "an empty view at its storage's end", W23_AT("K6", "K0 t1 q8 K1 t1 q9") " s .", 0, 0, NULL, -2, 0, NULL, {24}, 0, 0,
      0 },
    { "an empty view past its storage's end", W23_AT("K7", "K0 t1 q8 K1 t1 q9"), 0, AFMT_E_SIZE,
      "data.pkl[op 36 REDUCE]", 36, 0, "an empty view of shape (0,) at element 7 of a storage of 6 elements", {24}, 0, 0,
      0 },
    { "a 0-d view at the last element", W23_PID("0", "cpu") " K5 ) ) F" OD "q8 ) R q9 t q10 R q11 s .", 0, 0, NULL, -2, 0, NULL, {24}, 0, 0, 0 },
    { "a 0-d view past the last element", W23_PID("0", "cpu") " K6 ) ) F" OD "q8 ) R q9 t q10 R q11", 0, AFMT_E_SIZE, "data.pkl[op 32 REDUCE]", 32, 0,
      "ends at element 6, past its storage's 6 elements", {24}, 0, 0, 0 },
    { "expand's stride 0", W23_AT("K5", "K4 K3 t2 q8 K0 K0 t2 q9") " s .", 0, 0, NULL, -2, 0, NULL, {24}, 0, 0, 0 },
    { "overflowing strides", W23_VIEW("K5 t1 q8 L0000000000000040 t1 q9"), 0, AFMT_E_OVERFLOW,
      "data.pkl[op 36 REDUCE]", 36, 0, "the last element of the view of shape (5,), strides (4611686018427387904,) "
      "at element 0 overflows 64 bits", {24}, 0, 0, 0 },
    { "a shape and strides of two ranks", W23_VIEW("K2 K3 t2 q8 K1 t1 q9"), 0, C, "data.pkl[op 37 REDUCE]", 37, 0,
      "a view of shape (2, 3) has strides (1,): one stride per dimension", {24}, 0, 0, 0 },
    { "a storage count that disagrees with its record", W23 " s .", 0, AFMT_E_SIZE, "data.pkl[storage '0']", -1, 1000,
      "the record has 20 bytes; its BINPERSID (op 20 at offset 209) says 6 f32 elements, 24 bytes", {20}, 0, 0, 0 },
    { "a key used with two classes", W2 " c:torch:LongStorage q15 h5 h6 K6 t q16 Q", 0, C,
      "data.pkl[op 54 BINPERSID]", 54, 0,
      "storage '0' is a LongStorage here but a FloatStorage at its first use (op 21 at offset 210)", {24}, 0, 0, 0 },
    { "a key used with two counts", W2 " h4 h5 h6 K8 t q15 Q", 0, C, "data.pkl[op 53 BINPERSID]", 53, 0,
      "storage '0' holds 8 elements here but 6 at its first use", {24}, 0, 0, 0 },
    { "a key used at two locations", W2 " h4 h5 X'cuda' q15 K6 t q16 Q", 0, C, "data.pkl[op 54 BINPERSID]", 54, 0,
      "storage '0' is at 'cuda' here but at 'cpu' at its first use", {24}, 0, 0, 0 },
    { "keys out of order", W23_PID("1", "cpu"), 0, C, "data.pkl[op 20 BINPERSID]", 20, 0,
      "storage key '1' where key '0' is next", {24}, 0, 0, 0 },
    { "a key with a leading zero", W23_PID("00", "cpu"), 0, C, "data.pkl[op 20 BINPERSID]", 20, 0,
      "item 3 of 5 must be a decimal key without leading zeros, found the str '00'", {24}, 0, 0, 0 },
    { "a location not allowed", W23_PID("0", "tpu"), 0, C, "data.pkl[op 20 BINPERSID]", 20, 0,
      "item 4 of 5 must be a location ('cpu', 'cuda', 'cuda:{n}'), found the str 'tpu'", {24}, 0, 0, 0 },
    { "a location cuda:01", W23_PID("0", "cuda:01"), 0, C, "data.pkl[op 20 BINPERSID]", 20, 0,
      "must be a location", {24}, 0, 0, 0 },
    { "a persistent id of 4 items", "P2 } q0 X'w' q1" REB "q2 ( ( X'storage' q3" FS "q4 X'0' q5 X'cpu' q6 t q7 Q", 0,
      C, "data.pkl[op 19 BINPERSID]", 19, 0, "its id is a tuple of 5", {0}, 0, 0, 0 },
    { "a bool storage holding a 2", "P2 } q0 X'm' q1" REB "q2 ( ( X'storage' q3 c:torch:BoolStorage q4 X'0' q5 X'cpu'"
      " q6 K4 t q7 Q K0 K4 t1 q8 K1 t1 q9 F" OD "q10 ) R q11 t q12 R q13 s .", 0, AFMT_E_VALUE,
      "data.pkl[storage '0']", -1, 1003, "bool element 3 is 0x02", {4}, 1, 0, 0 },
    /* BUILD */
    { "BUILD on a tensor", W23 " } q14 b", 0, C, "data.pkl[op 42 BUILD]", 42, 0, "BUILD on a tensor", {24}, 0, 0, 0 },
    { "BUILD twice", "P2" OD "q0 ) R q1 } q2 b } q3 b .", 0, C, "data.pkl[op 11 BUILD]", 11, 0, "a second BUILD", {0},
      0, 0, 0 },
    { "BUILD on a plain dict", "P2 } q0 } q1 b .", 0, C, "data.pkl[op 5 BUILD]", 5, 0,
      "only a mapping made by REDUCE is built", {0}, 0, 0, 0 },
    /* canonical forms and limits */
    { "BININT for a small int (strict)", "P2 } q0 X'a' q1 J5 s .", 0, C, "data.pkl[op 5 BININT]", 5, 0,
      "BININT of 5: the pickler writes BININT1 below 256", {0}, 0, 0, 0 },
    { "BININT2 for a small int (strict)", "P2 } q0 X'a' q1 M5 s .", 0, C, "data.pkl[op 5 BININT2]", 5, 0,
      "BININT2 of 5", {0}, 0, 0, 0 },
    { "LONG1 of 9 bytes", "P2 } q0 X'a' q1 L000000000000000001 s .", AFMT_LENIENT, AFMT_E_OVERFLOW,
      "data.pkl[op 5 LONG1]", 5, 0, "LONG1 of 9 bytes: integers are read in 64 bits", {0}, 0, 0, 0 },
    { "LONG1 longer than it needs (strict)", "P2 } q0 X'a' q1 L000000800000 s .", 0, C, "data.pkl[op 5 LONG1]", 5, 0,
      "LONG1 of 6 bytes for 2147483648: the pickler writes the 5 bytes it needs", {0}, 0, 0, 0 },
    { "LONG1 of an int32 (strict)", "P2 } q0 X'a' q1 L05 s .", 0, C, "data.pkl[op 5 LONG1]", 5, 0, "LONG1 of 5", {0},
      0, 0, 0 },
    { "MARK TUPLE of 2 (strict)", "P2 } q0 X'a' q1 ( K1 K2 t q2 s .", 0, C, "data.pkl[op 8 TUPLE]", 8, 0,
      "TUPLE of 2 items: the pickler writes TUPLE2", {0}, 0, 0, 0 },
    { "LONG_BINPUT below 256 (strict)", "P2 } r0", 0, C, "data.pkl[op 2 LONG_BINPUT]", 2, 0,
      "LONG_BINPUT 0: the pickler writes BINPUT below 256", {0}, 0, 0, 0 },
    { "a string that is not UTF-8", "P2 } q0 Xh:61ff q1", 0, AFMT_E_VALUE, "data.pkl[op 3 BINUNICODE]", 3, 0,
      "byte 1 (0xff, at offset 111)", {0}, 0, 0, 0 },
    { "a surrogate in UTF-8", "P2 } q0 Xh:eda080 q1", 0, AFMT_E_VALUE, "data.pkl[op 3 BINUNICODE]", 3, 0,
      "is not UTF-8: byte 0", {0}, 0, 0, 0 },
    { "nesting deeper than limits.max_depth (3)", "P2 ] q0 ] q1 ] q2 ] q3 a a a .", 0, AFMT_E_LIMIT,
      "data.pkl[op 11 APPEND]", 11, 0, "values nested deeper than 3 (limits.max_depth)", {0}, 0, 3, 0 },
    { "more values than limits.max_items (3)", "P2 ] q0 ( K1 K2 K3 e .", 0, AFMT_E_LIMIT, "data.pkl[op 6 BININT1]", 6,
      0, "more than 3 values (limits.max_items)", {0}, 0, 0, 3 },
};
#undef C

static void test_refused(void)
{
    size_t i;
    afmt_error err;
    char name[160];
    for (i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        afmt_options opt;
        uint64_t want_at;
        int rc, ok;
        snprintf(name, sizeof name, "refused: %s", c->name);
        if (pk_assemble(&as, c->src) != 0 || (c->op >= 0 && (size_t)c->op >= as.nops)) { CHECK(name, 0); continue; }
        afmt_options_default(&opt);
        if (c->max_depth) opt.limits.max_depth = c->max_depth;
        if (c->max_items) opt.limits.max_items = c->max_items;
        memset(ctx.rec, 0, sizeof ctx.rec);
        if (c->bad_bool) ctx.rec[0][3] = 2;
        rc = run_bytes(&torch_desc, as.b, as.n, c->mode, &ctx, c->rec, &opt, &err);
        if (c->op == -2) { /* accepted: the boundary of a refusal */
            snprintf(name, sizeof name, "accepted: %s", c->name);
            if (rc != 0) printf("# %s: %s at %" PRIu64 ": %s\n", name, err.field, err.offset, err.message);
            CHECK(name, rc == 0);
            continue;
        }
        want_at = c->op >= 0 ? BASE + as.op_at[c->op] : c->offset;
        ok = rc != 0 && err.code == c->code && strcmp(err.field, c->field) == 0 && err.offset == want_at &&
             strstr(err.message, c->says) != NULL;
        if (!ok)
            printf("# %s: rc %d, %s (want %s), '%s' at %" PRIu64 " (want '%s' at %" PRIu64 "): %s\n", name, rc,
                   afmt_code_name(err.code), afmt_code_name(c->code), err.field, err.offset, c->field, want_at,
                   err.message);
        CHECK(name, ok);
    }
}

/* ------------------------------------------------------------ prefixes and mutants */

/* Did a failed run fail cleanly: a code and a field? */
static int clean_failure(const afmt_error *err)
{
    return err->code != AFMT_OK && err->field[0] != '\0' && err->message[0] != '\0';
}

/* Every prefix of every valid pickle fails cleanly; every one-byte mutant
 * (each byte xor 0xff, plus 1 and minus 1) runs to a verdict, and a refused
 * one fails cleanly. */
static void test_prefixes_and_mutants(void)
{
    static uint8_t buf[PK_ASM_MAX];
    size_t i, k, total = 0;
    afmt_error err;
    char name[160];
    for (i = 0; i < sizeof valid_cases / sizeof valid_cases[0]; i++) {
        const valid_case *c = &valid_cases[i];
        int prefixes_ok = 1, mutants_ok = 1;
        if (pk_assemble(&as, c->src) != 0) continue;
        for (k = 0; k < as.n; k++)
            if (run_bytes(&torch_desc, as.b, k, c->mode, &ctx, c->rec, NULL, &err) == 0 || !clean_failure(&err)) {
                printf("# prefix %zu of '%s': %s\n", k, c->name, err.message);
                prefixes_ok = 0;
            }
        for (k = 0; k < as.n; k++) {
            static const int change[3] = { 0xff, 1, -1 };
            int j;
            for (j = 0; j < 3; j++) {
                memcpy(buf, as.b, as.n);
                buf[k] = (uint8_t)(j == 0 ? buf[k] ^ 0xff : buf[k] + change[j]);
                if (run_bytes(&torch_desc, buf, as.n, c->mode, &ctx, c->rec, NULL, &err) != 0 && !clean_failure(&err))
                    mutants_ok = 0;
                total++;
            }
        }
        snprintf(name, sizeof name, "every prefix of '%s' (%zu) is refused", c->name, as.n);
        CHECK(name, prefixes_ok);
        snprintf(name, sizeof name, "every mutant of '%s' (%zu) gets a verdict", c->name, 3 * as.n);
        CHECK(name, mutants_ok);
    }
    printf("# %zu mutants run\n", total);
}

/* ------------------------------------------------------------ generated pickles */

/* n lists, each appended to the one before: nesting n deep. */
static void nested_lists(char *out, size_t size, int n)
{
    size_t o = (size_t)snprintf(out, size, "P2");
    int k;
    for (k = 0; k < n; k++) o += (size_t)snprintf(out + o, size - o, " ] q%d", k);
    for (k = 1; k < n; k++) o += (size_t)snprintf(out + o, size - o, " a");
    snprintf(out + o, size - o, " .");
}

static void test_generated(void)
{
    static char src[40000];
    afmt_error err;
    size_t o, k;
    int rc;

    nested_lists(src, sizeof src, 32);
    rc = pk_assemble(&as, src) == 0 ? run_bytes(&torch_desc, as.b, as.n, AFMT_STRICT, &ctx, NULL, NULL, &err) : -1;
    CHECK("lists nested 32 deep (the default limits.max_depth) are accepted", rc == 0);
    nested_lists(src, sizeof src, 33);
    rc = pk_assemble(&as, src) == 0 ? run_bytes(&torch_desc, as.b, as.n, AFMT_STRICT, &ctx, NULL, NULL, &err) : 0;
    CHECK("lists nested 33 deep are refused at the last APPEND",
          rc != 0 && err.code == AFMT_E_LIMIT && strcmp(err.field, "data.pkl[op 98 APPEND]") == 0 &&
          err.offset == BASE + as.op_at[98] && strstr(err.message, "deeper than 32"));

    /* a batch of 1001: strict refuses it, lenient warns */
    o = (size_t)snprintf(src, sizeof src, "P2 ] q0 (");
    for (k = 0; k < 1001; k++) o += (size_t)snprintf(src + o, sizeof src - o, " K%zu", k % 200);
    snprintf(src + o, sizeof src - o, " e .");
    rc = pk_assemble(&as, src) == 0 ? run_bytes(&torch_desc, as.b, as.n, AFMT_STRICT, &ctx, NULL, NULL, &err) : 0;
    CHECK("APPENDS of 1001 items is refused in strict mode",
          rc != 0 && err.code == AFMT_E_CONSTRAINT && strcmp(err.field, "data.pkl[op 1005 APPENDS]") == 0 &&
          err.offset == BASE + as.op_at[1005] && strstr(err.message, "APPENDS of 1001 items"));
    rc = run_bytes(&torch_desc, as.b, as.n, AFMT_LENIENT, &ctx, NULL, NULL, &err);
    CHECK("APPENDS of 1001 items is warned about in lenient mode", rc == 0 && ctx.warnings == 1);

    /* a tuple of two copies of a tuple of two copies of ...: 2^21 key paths from 20 values */
    o = (size_t)snprintf(src, sizeof src, "P2 K1 K1 t2 q0");
    for (k = 1; k < 20; k++) o += (size_t)snprintf(src + o, sizeof src - o, " h%zu t2 q%zu", k - 1, k);
    snprintf(src + o, sizeof src - o, " .");
    {
        afmt_options opt;
        afmt_options_default(&opt);
        opt.limits.max_items = 100000;
        rc = pk_assemble(&as, src) == 0 ? run_bytes(&torch_desc, as.b, as.n, AFMT_STRICT, &ctx, NULL, &opt, &err) : 0;
        CHECK("a result of 2^21 key paths from 20 values passes limits.max_items, refused before the walk",
              rc != 0 && err.code == AFMT_E_LIMIT && strcmp(err.field, "data.pkl[op 60 TUPLE2]") == 0 &&
              err.offset == BASE + as.op_at[60] && strstr(err.message, "2097151 key paths") && ctx.outn == 0);
    }
}

/* ------------------------------------------------------------ descriptions and callbacks */

static int stop_at_first(void *c, const afmt_array *a)
{
    (void)c;
    (void)a;
    return 1;
}

static int failing_resolve(void *c, const char *key, size_t key_len, afmt_ar_storage *out, afmt_error *err)
{
    (void)c;
    (void)out;
    return afmt_fail(err, AFMT_E_CONSTRAINT, NULL, "archive[\"data/0\"]", AFMT_NO_INDEX, 77, "no record %.*s",
                     (int)key_len, key);
}

static void test_callbacks(void)
{
    afmt_error err;
    afmt_visitor vis;
    afmt_pickle_desc free_keys;
    int rc;

    pk_assemble(&as, W23 " s .");
    memset(&vis, 0, sizeof vis);
    vis.on_array = stop_at_first;
    ctx.rec_bytes[0] = 24;
    rc = afmt_pickle_member(&torch_desc, as.b, as.n, BASE, resolve, &ctx, NULL, &vis, NULL, &err);
    CHECK("a visitor that stops makes it AFMT_E_CALLBACK",
          rc != 0 && err.code == AFMT_E_CALLBACK && strstr(err.message, "'w'") && err.offset == BASE + as.op_at[38]);
    rc = afmt_pickle_member(&torch_desc, as.b, as.n, BASE, failing_resolve, &ctx, NULL, NULL, NULL, &err);
    CHECK("the resolver's error is returned as it is",
          rc != 0 && err.code == AFMT_E_CONSTRAINT && strcmp(err.field, "archive[\"data/0\"]") == 0 && err.offset == 77);
    rc = afmt_pickle_member(&torch_desc, as.b, as.n, BASE, NULL, NULL, NULL, NULL, NULL, &err);
    CHECK("a storage without a resolver is AFMT_E_USAGE", rc != 0 && err.code == AFMT_E_USAGE);
    rc = afmt_pickle_member(&torch_desc, as.b, as.n, BASE, resolve, &ctx, NULL, NULL, NULL, &err);
    CHECK("no visitor: a verdict only", rc == 0);

    {
        afmt_pickle_desc more_ops = torch_desc;
        more_ops.ops[0x93] = 1;
        pk_assemble(&as, "P2 } q0 #93");
        rc = run_bytes(&more_ops, as.b, as.n, AFMT_STRICT, &ctx, NULL, NULL, &err);
        CHECK("an opcode a description allows but the machine does not run is AFMT_E_UNSUPPORTED",
              rc != 0 && err.code == AFMT_E_UNSUPPORTED && strcmp(err.field, "data.pkl[op 3 STACK_GLOBAL]") == 0 &&
              err.offset == BASE + 5);
        more_ops = torch_desc;
        more_ops.build_on_dict = 0;
        more_ops.root_kinds = AFMT_PK_ROOT_DICT;
        pk_assemble(&as, "P2" OD "q0 ) R q1 } q2 b .");
        rc = run_bytes(&more_ops, as.b, as.n, AFMT_STRICT, &ctx, NULL, NULL, &err);
        CHECK("BUILD in a description without build_on_dict is refused",
              rc != 0 && err.code == AFMT_E_CONSTRAINT && strcmp(err.field, "data.pkl[op 8 BUILD]") == 0);
        pk_assemble(&as, "P2 ] q0 .");
        rc = run_bytes(&more_ops, as.b, as.n, AFMT_STRICT, &ctx, NULL, NULL, &err);
        CHECK("a list root where only a dict may be is refused",
              rc != 0 && err.code == AFMT_E_CONSTRAINT && strcmp(err.field, "data.pkl[op 3 STOP]") == 0 &&
              strstr(err.message, "the result must be a dict"));
    }

    {
        static char src[2000];
        char key[301];
        memset(key, 'k', 300);
        key[300] = '\0';
        snprintf(src, sizeof src, "P2 } q0 X'%s' q1 %s s .", key, W23_TAIL);
        pk_assemble(&as, src);
        {
            const uint64_t rec[NREC] = { 24 };
            char want[400];
            snprintf(want, sizeof want, "A:%.255s(300):f32[2,3]:s3,1:@1000:24;", key);
            rc = run_bytes(&torch_desc, as.b, as.n, AFMT_STRICT, &ctx, rec, NULL, &err);
            CHECK("a key path of 300 bytes: the view's name is cut to 255, name_len says 300",
                  rc == 0 && strstr(ctx.out, want) != NULL);
        }
    }

    /* keys in any order, by text: storages grouped after STOP */
    free_keys = torch_desc;
    free_keys.key_decimal = 0;
    free_keys.keys_in_order = 0;
    pk_assemble(&as, "P2 } q0 ( X'w' q1" REB "q2 ( ( X'storage' q3" FS "q4 X'b' q5 X'cpu' q6 K3 t q7 Q K0 K3 t1 q8 K1"
                " t1 q9 F" OD "q10 ) R q11 t q12 R q13 X'v' q14 h2 ( ( h3 h4 X'a' q15 h6 K2 t q16 Q K0 K2 t1 q17 K1"
                " t1 q18 F h10 ) R q19 t q20 R q21 X'u' q22 h2 ( ( h3 h4 X'b' q23 h6 K3 t q24 Q K1 K2 t1 q25 K1 t1"
                " q26 F h10 ) R q27 t q28 R q29 u .");
    {
        const uint64_t rec[NREC] = { 8, 12 };
        rc = run_bytes(&free_keys, as.b, as.n, AFMT_STRICT, &ctx, rec, NULL, &err);
        CHECK("keys by text, not in order: each resolved once, in order of first use",
              rc == 0 && strcmp(ctx.resolved, "ba") == 0 &&
              strstr(ctx.out, "A:w:f32[3]:s1:@2000:12;") && strstr(ctx.out, "A:v:f32[2]:s1:@1000:8;") &&
              strstr(ctx.out, "A:u:f32[2]:s1:@2004:8;"));
        rc = run_bytes(&torch_desc, as.b, as.n, AFMT_STRICT, &ctx, rec, NULL, &err);
        CHECK("the same keys under keys_in_order are refused",
              rc != 0 && strcmp(err.field, "data.pkl[op 21 BINPERSID]") == 0);
    }
    /* a key again with another count, found after STOP */
    pk_assemble(&as, "P2 } q0 ( X'w' q1" REB "q2 ( ( X'storage' q3" FS "q4 X'b' q5 X'cpu' q6 K3 t q7 Q K0 K3 t1 q8 K1"
                " t1 q9 F" OD "q10 ) R q11 t q12 R q13 X'v' q14 h2 ( ( h3 h4 h5 h6 K4 t q15 Q K0 K2 t1 q16 K1"
                " t1 q17 F h10 ) R q18 t q19 R q20 u .");
    {
        const uint64_t rec[NREC] = { 8, 12 };
        rc = run_bytes(&free_keys, as.b, as.n, AFMT_STRICT, &ctx, rec, NULL, &err);
        CHECK("keys by text: a key again with another count is refused at its BINPERSID",
              rc != 0 && err.code == AFMT_E_CONSTRAINT && strcmp(err.field, "data.pkl[op 51 BINPERSID]") == 0 &&
              err.offset == BASE + as.op_at[51] && strstr(err.message, "holds 4 elements here but 3"));
    }
}

/* ------------------------------------------------------------ the writer */

typedef struct rt_ctx {
    const afmt_array *arrays;
    size_t n, seen;
    int bad;
} rt_ctx;

/* Record k holds array k's elements, at offset 1000 (k + 1); no data. */
static int rt_resolve(void *c, const char *key, size_t key_len, afmt_ar_storage *out, afmt_error *err)
{
    const rt_ctx *r = c;
    char buf[24];
    size_t k;
    snprintf(buf, sizeof buf, "%.*s", (int)(key_len < 20 ? key_len : 20), key);
    k = (size_t)strtoul(buf, NULL, 10);
    if (k >= r->n) return afmt_fail(err, AFMT_E_CONSTRAINT, NULL, "archive", AFMT_NO_INDEX, 0, "no record %s", buf);
    memset(out, 0, sizeof *out);
    out->nbytes = r->arrays[k].count * afmt_dtype_get(r->arrays[k].dtype)->size;
    out->offset = 1000 * (uint64_t)(k + 1);
    return 0;
}

/* Each view is the array written at its index: name, type, shape,
 * torch's contiguous strides, its own record. */
static int rt_on_array(void *c, const afmt_array *v)
{
    rt_ctx *r = c;
    const afmt_array *a = &r->arrays[r->seen < r->n ? r->seen : 0];
    uint64_t stride = 1;
    uint32_t k;
    if (r->seen >= r->n || v->index != r->seen || strcmp(v->name, a->name) != 0 || v->dtype != a->dtype ||
        v->rank != a->rank || v->count != a->count || !v->strided || v->offset != 1000 * (uint64_t)(r->seen + 1))
        r->bad = 1;
    for (k = a->rank; k-- > 0;) {
        if (v->dims[k] != a->dims[k] || v->strides[k] != stride) r->bad = 1;
        stride *= a->dims[k] ? a->dims[k] : 1;
    }
    r->seen++;
    return 0;
}

static uint8_t wbuf[1 << 20];

/* Write arrays[0..n), then run the result: 0 when every view came back. */
static int round_trip(const afmt_array *arrays, size_t n, uint64_t *written, afmt_error *err)
{
    afmt_sink sink;
    afmt_visitor vis;
    rt_ctx r;
    afmt_sink_buffer(&sink, wbuf, sizeof wbuf);
    if (afmt_pickle_write_state_dict(&torch_desc, arrays, n, &sink, err) != 0) return -1;
    *written = sink.written;
    memset(&r, 0, sizeof r);
    r.arrays = arrays;
    r.n = n;
    memset(&vis, 0, sizeof vis);
    vis.ctx = &r;
    vis.on_array = rt_on_array;
    if (afmt_pickle_member(&torch_desc, wbuf, sink.written, 0, rt_resolve, &r, NULL, &vis, NULL, err) != 0)
        return -1;
    return r.bad || r.seen != n ? -1 : 0;
}

static void make_array(afmt_array *a, const char *name, afmt_dtype dtype, uint32_t rank, const uint64_t *dims)
{
    uint32_t k;
    afmt_array_init(a, dtype);
    snprintf(a->name, sizeof a->name, "%s", name);
    a->rank = rank;
    a->count = 1;
    for (k = 0; k < rank; k++) {
        a->dims[k] = dims[k];
        a->count *= dims[k];
    }
}

static void test_writer(void)
{
    static afmt_array arrays[1001];
    static const uint64_t d23[] = { 2, 3 }, d3[] = { 3 }, d20[] = { 2, 0 }, big[] = { UINT64_C(1) << 31 };
    afmt_sink sink;
    afmt_error err;
    uint64_t n;
    size_t k;
    int rc;

    /* byte for byte what torch.save({'w': torch.zeros(2, 3)}) pickles */
    make_array(&arrays[0], "w", AFMT_F32, 2, d23);
    afmt_sink_buffer(&sink, wbuf, sizeof wbuf);
    rc = afmt_pickle_write_state_dict(&torch_desc, arrays, 1, &sink, &err);
    pk_assemble(&as, W23 " s .");
    CHECK("writer: {'w': f32[2,3]} is the bytes torch.save writes",
          rc == 0 && sink.written == as.n && memcmp(wbuf, as.b, as.n) == 0);
    if (rc == 0) {
        printf("# {'w': f32[2,3]}: %" PRIu64 " bytes:", sink.written);
        for (k = 0; k < sink.written; k++) printf("%s%02x", k % 32 ? " " : "\n#   ", wbuf[k]);
        printf("\n");
    }

    make_array(&arrays[0], "encoder.weight", AFMT_F16, 2, d23);
    make_array(&arrays[1], "encoder.bias", AFMT_I64, 1, d3);
    make_array(&arrays[2], "step", AFMT_I64, 0, NULL);
    make_array(&arrays[3], "empty", AFMT_BOOL, 2, d20);
    make_array(&arrays[4], "big", AFMT_I8, 1, big);
    CHECK("writer: round trip of f16[2,3], i64[3], a 0-d i64, an empty bool[2,0], an i8[2^31] (LONG1)",
          round_trip(arrays, 5, &n, &err) == 0);

    for (k = 0; k < 1001; k++) {
        char name[32];
        snprintf(name, sizeof name, "layer.%zu", k);
        make_array(&arrays[k], name, k % 2 ? AFMT_F32 : AFMT_BF16, 1, d3);
    }
    rc = round_trip(arrays, 1000, &n, &err);
    CHECK("writer: 1000 arrays (memo past 256: LONG_BINPUT/GET) come back, strict, ending with batch_dict_exact's "
          "empty MARK SETITEMS",
          rc == 0 && n > 3 && memcmp(wbuf + n - 3, "(u.", 3) == 0);
    rc = round_trip(arrays, 1001, &n, &err);
    CHECK("writer: 1001 arrays: a batch of 1000 and one of 1", rc == 0 && n > 3 && memcmp(wbuf + n - 2, "u.", 2) == 0);
    rc = round_trip(arrays, 0, &n, &err);
    CHECK("writer: no arrays: an empty dict", rc == 0 && n == 6 && memcmp(wbuf, "\x80\x02}q\x00.", 6) == 0);

    make_array(&arrays[0], "w", AFMT_U16, 1, d3);
    afmt_sink_buffer(&sink, wbuf, sizeof wbuf);
    rc = afmt_pickle_write_state_dict(&torch_desc, arrays, 1, &sink, &err);
    CHECK("writer: u16 has no storage class: AFMT_E_TYPE naming array[0]",
          rc != 0 && err.code == AFMT_E_TYPE && strcmp(err.field, "array[0]") == 0 && sink.written == 0);
    make_array(&arrays[0], "w", AFMT_F32, 1, d3);
    make_array(&arrays[1], "b", AFMT_F32, 1, d3);
    make_array(&arrays[2], "w", AFMT_F32, 1, d3);
    rc = afmt_pickle_write_state_dict(&torch_desc, arrays, 3, &sink, &err);
    /* one rule for every writer of named arrays (docs/API.md): name[I], the later one */
    CHECK("writer: a name used twice: AFMT_E_CONSTRAINT naming name[2]",
          rc != 0 && err.code == AFMT_E_CONSTRAINT && strcmp(err.field, "name[2]") == 0 &&
          strstr(err.message, "array 0's too"));
    snprintf(arrays[2].name, sizeof arrays[2].name, "\xff");
    rc = afmt_pickle_write_state_dict(&torch_desc, arrays, 3, &sink, &err);
    CHECK("writer: a name that is not UTF-8 is refused", rc != 0 && err.code == AFMT_E_TYPE &&
          strcmp(err.field, "array[2]") == 0);
    afmt_sink_buffer(&sink, wbuf, 100);
    make_array(&arrays[0], "w", AFMT_F32, 2, d23);
    rc = afmt_pickle_write_state_dict(&torch_desc, arrays, 1, &sink, &err);
    CHECK("writer: a sink too small fails with its error", rc != 0 && err.code == AFMT_E_IO);
}

int main(void)
{
    pk_torch_desc(&torch_desc);
    test_valid();
    test_refused();
    test_prefixes_and_mutants();
    test_generated();
    test_callbacks();
    test_writer();
    CHECK_DONE();
}
