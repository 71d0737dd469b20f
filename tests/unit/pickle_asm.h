/* Helpers of tests/unit/test_pickle.c (header-only): a description equal
 * to FORMATS.md's torch profile, and a tiny assembler of pickle opcodes so
 * that each case reads like pickletools.dis output.
 *
 * Assembly: tokens separated by spaces, one opcode each:
 *   P2                 PROTO 2
 *   } ] ) ( t s u a e R b Q . N   the one-byte opcodes of the same character
 *   T F                NEWTRUE, NEWFALSE
 *   t1 t2 t3           TUPLE1-3
 *   q5 r5 h5 j5        BINPUT, LONG_BINPUT, BINGET, LONG_BINGET 5
 *   K6 M300 J-1        BININT1, BININT2, BININT
 *   L0000008000        LONG1 of these bytes (hex, least significant first)
 *   G0.5               BINFLOAT
 *   X'text'            BINUNICODE (no spaces inside); Xh:ff41 of these bytes
 *   c:module:name      GLOBAL
 *   #9305              raw bytes (hex): one opcode with its argument
 * pk_asm also records where each token starts, so that a case names the
 * opcode an error must blame by its ordinal.
 */
#ifndef AFMT_TEST_PICKLE_ASM_H
#define AFMT_TEST_PICKLE_ASM_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/afmt_bytes.h"
#include "pickle/afmt_pickle.h"

/* Fragments the cases share. */
#define REB " c:torch._utils:_rebuild_tensor_v2 "
#define OD " c:collections:OrderedDict "
#define FS " c:torch:FloatStorage "
#define PARAM " c:torch._utils:_rebuild_parameter "

#define PK_ASM_MAX 70000
#define PK_ASM_OPS 20000

typedef struct pk_asm {
    uint8_t b[PK_ASM_MAX];
    size_t n;
    size_t op_at[PK_ASM_OPS]; /* where opcode k starts */
    size_t nops;
    int bad;                  /* a token the assembler does not know */
} pk_asm;

static int pk_hex(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static void pk_byte(pk_asm *a, unsigned v)
{
    if (a->n < PK_ASM_MAX) a->b[a->n++] = (uint8_t)v;
    else a->bad = 1;
}

static void pk_hexbytes(pk_asm *a, const char *s, size_t n)
{
    size_t i;
    if (n % 2) { a->bad = 1; return; }
    for (i = 0; i < n; i += 2) {
        int hi = pk_hex(s[i]), lo = pk_hex(s[i + 1]);
        if (hi < 0 || lo < 0) { a->bad = 1; return; }
        pk_byte(a, (unsigned)(hi * 16 + lo));
    }
}

static void pk_u32(pk_asm *a, uint32_t v)
{
    pk_byte(a, v & 0xff); pk_byte(a, v >> 8 & 0xff); pk_byte(a, v >> 16 & 0xff); pk_byte(a, v >> 24);
}

/* One token t[0..n). */
static void pk_token(pk_asm *a, const char *t, size_t n)
{
    char num[64];
    const char *one = "})](tsuaeRbQ.N";
    snprintf(num, sizeof num, "%.*s", (int)(n > 1 && n < 60 ? n - 1 : 0), t + 1);
    if (a->nops < PK_ASM_OPS) a->op_at[a->nops++] = a->n;
    if (n == 1 && strchr(one, t[0])) { pk_byte(a, (unsigned char)t[0]); return; }
    if (n == 1 && t[0] == 'T') { pk_byte(a, 0x88); return; }
    if (n == 1 && t[0] == 'F') { pk_byte(a, 0x89); return; }
    if (n == 2 && t[0] == 't' && t[1] >= '1' && t[1] <= '3') { pk_byte(a, 0x84u + (unsigned)(t[1] - '0')); return; }
    switch (t[0]) {
    case 'P': pk_byte(a, 0x80); pk_byte(a, (unsigned)atoi(num)); return;
    case 'q': pk_byte(a, 'q'); pk_byte(a, (unsigned)atoi(num)); return;
    case 'h': pk_byte(a, 'h'); pk_byte(a, (unsigned)atoi(num)); return;
    case 'r': pk_byte(a, 'r'); pk_u32(a, (uint32_t)strtoul(num, NULL, 10)); return;
    case 'j': pk_byte(a, 'j'); pk_u32(a, (uint32_t)strtoul(num, NULL, 10)); return;
    case 'K': pk_byte(a, 'K'); pk_byte(a, (unsigned)atoi(num)); return;
    case 'M': pk_byte(a, 'M'); pk_byte(a, (unsigned)atoi(num) & 0xff); pk_byte(a, ((unsigned)atoi(num) >> 8) & 0xff); return;
    case 'J': pk_byte(a, 'J'); pk_u32(a, (uint32_t)(int32_t)strtol(num, NULL, 10)); return;
    case 'L': pk_byte(a, 0x8a); pk_byte(a, (unsigned)(n - 1) / 2); pk_hexbytes(a, t + 1, n - 1); return;
    case 'G': {
        double d = strtod(num, NULL);
        uint64_t bits;
        int k;
        memcpy(&bits, &d, sizeof bits);
        pk_byte(a, 'G');
        for (k = 7; k >= 0; k--) pk_byte(a, (unsigned)(bits >> (8 * k)) & 0xff);
        return;
    }
    case 'X': {
        if (n >= 3 && t[1] == 'h' && t[2] == ':') {
            pk_byte(a, 'X');
            pk_u32(a, (uint32_t)(n - 3) / 2);
            pk_hexbytes(a, t + 3, n - 3);
            return;
        }
        if (n < 3 || t[1] != '\'' || t[n - 1] != '\'') break;
        pk_byte(a, 'X');
        pk_u32(a, (uint32_t)(n - 3));
        for (size_t i = 2; i + 1 < n; i++) pk_byte(a, (unsigned char)t[i]);
        return;
    }
    case 'c': {
        const char *colon = memchr(t + 2, ':', n - 2);
        if (n < 2 || t[1] != ':' || !colon) break;
        pk_byte(a, 'c');
        for (const char *p = t + 2; p < colon; p++) pk_byte(a, (unsigned char)*p);
        pk_byte(a, '\n');
        for (const char *p = colon + 1; p < t + n; p++) pk_byte(a, (unsigned char)*p);
        pk_byte(a, '\n');
        return;
    }
    case '#': pk_hexbytes(a, t + 1, n - 1); return;
    default: break;
    }
    fprintf(stderr, "# pk_asm: unknown token '%.*s'\n", (int)n, t);
    a->bad = 1;
}

/* Assemble src into a (from empty); 0, or -1 for a token it does not know. */
static int pk_assemble(pk_asm *a, const char *src)
{
    a->n = 0;
    a->nops = 0;
    a->bad = 0;
    while (*src) {
        const char *e;
        while (*src == ' ' || *src == '\n') src++;
        if (!*src) break;
        e = src;
        while (*e && *e != ' ' && *e != '\n') e++;
        pk_token(a, src, (size_t)(e - src));
        src = e;
    }
    return a->bad ? -1 : 0;
}

/* ------------------------------------------------------------ the torch profile */

static const afmt_pk_arg pk_rebuild_args[] = {
    AFMT_PK_ARG_STORAGE, AFMT_PK_ARG_UINT, AFMT_PK_ARG_UINT_TUPLE, AFMT_PK_ARG_UINT_TUPLE,
    AFMT_PK_ARG_BOOL, AFMT_PK_ARG_EMPTY_DICT,
};
static const afmt_pk_arg pk_param_args[] = { AFMT_PK_ARG_TENSOR, AFMT_PK_ARG_BOOL, AFMT_PK_ARG_EMPTY_DICT };

#define PK_CLASS(name, dt) { "torch", name, AFMT_PK_ROLE_CLASS, NULL, 0, -1, -1, -1, -1, dt, 1, NULL }
static const afmt_pk_global pk_torch_globals[] = {
    { "collections", "OrderedDict", AFMT_PK_ROLE_DICT, NULL, 0, -1, -1, -1, -1, AFMT_DTYPE_INVALID, 0, NULL },
    { "torch._utils", "_rebuild_tensor_v2", AFMT_PK_ROLE_TENSOR, pk_rebuild_args, 6, 0, 1, 2, 3,
      AFMT_DTYPE_INVALID, 0, NULL },
    { "torch._utils", "_rebuild_parameter", AFMT_PK_ROLE_WRAP, pk_param_args, 3, -1, -1, -1, -1,
      AFMT_DTYPE_INVALID, 0, NULL },
    PK_CLASS("FloatStorage", AFMT_F32), PK_CLASS("DoubleStorage", AFMT_F64), PK_CLASS("HalfStorage", AFMT_F16),
    PK_CLASS("BFloat16Storage", AFMT_BF16), PK_CLASS("LongStorage", AFMT_I64), PK_CLASS("IntStorage", AFMT_I32),
    PK_CLASS("ShortStorage", AFMT_I16), PK_CLASS("CharStorage", AFMT_I8), PK_CLASS("ByteStorage", AFMT_U8),
    PK_CLASS("BoolStorage", AFMT_BOOL), PK_CLASS("ComplexFloatStorage", AFMT_C64),
    PK_CLASS("ComplexDoubleStorage", AFMT_C128),
    { "torch._utils", "_rebuild_tensor_v3", AFMT_PK_ROLE_REFUSE, NULL, 0, -1, -1, -1, -1, AFMT_DTYPE_INVALID, 0,
      "torch's UntypedStorage tensors (float8, uint16-64) are not supported" },
};

static const char *const pk_locations[] = { "cpu", "cuda", "cuda:{n}" };
static const afmt_pk_pid_elem pk_torch_pid[] = {
    { AFMT_PK_PID_TEXT, "storage", NULL, 0 },
    { AFMT_PK_PID_CLASS, NULL, NULL, 0 },
    { AFMT_PK_PID_KEY, NULL, NULL, 0 },
    { AFMT_PK_PID_LOCATION, NULL, pk_locations, 3 },
    { AFMT_PK_PID_COUNT, NULL, NULL, 0 },
};

/* The 31 opcodes of FORMATS.md's torch section. */
static void pk_torch_desc(afmt_pickle_desc *d)
{
    static const uint8_t ops[] = { '}', ']', ')', '(', 'q', 'r', 'h', 'j', 'X', 'J', 'K', 'M', 0x8a, 'G', 'N',
                                   0x88, 0x89, 't', 0x85, 0x86, 0x87, 's', 'u', 'a', 'e', 'c', 'R', 'b', 'Q', '.',
                                   0x80 };
    size_t i;
    memset(d, 0, sizeof *d);
    d->name = "data.pkl";
    d->protocol_min = d->protocol_max = 2;
    for (i = 0; i < sizeof ops; i++) d->ops[ops[i]] = 1;
    d->canonical = 1;
    d->memo_in_order = 1;
    d->globals = pk_torch_globals;
    d->nglobals = sizeof pk_torch_globals / sizeof pk_torch_globals[0];
    d->pid = pk_torch_pid;
    d->npid = 5;
    d->key_decimal = 1;
    d->keys_in_order = 1;
    d->build_on_dict = 1;
    d->dict_keys = AFMT_PK_KEY_STR | AFMT_PK_KEY_INT;
    d->root_kinds = AFMT_PK_ROOT_DICT | AFMT_PK_ROOT_LIST | AFMT_PK_ROOT_TUPLE | AFMT_PK_ROOT_TENSOR;
}

#endif /* AFMT_TEST_PICKLE_ASM_H */
