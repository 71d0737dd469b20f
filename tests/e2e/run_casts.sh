#!/usr/bin/env bash
# afmt convert --dtype: a refused cast names the element by its logical
# index (as afmt dump orders the values), and --allow-lossy does what
# --help and the man page say it does.  One PASS/FAIL line per check.
set -u
SUITE=casts
. "$(dirname "$0")/lib.sh" "$@"
MAN="$REPO/docs/afmt.1"

# Arrays with one value that does not fit i8, at a known logical index,
# in column-major RawArray (storage index != logical) and row-major Futhark.
python3 - "$T" << 'PY'
import struct, sys
t = sys.argv[1]
def ra(dims, vals):
    data = struct.pack("<%dq" % len(vals), *vals)
    return (b"rawarray" + struct.pack("<5Q", 0, 1, 8, len(data), len(dims)) +
            b"".join(struct.pack("<Q", d) for d in dims) + data)
def fut(dims, vals, tag=b" i64", fmt="q"):
    return (b"b\x02" + bytes([len(dims)]) + tag + b"".join(struct.pack("<q", d) for d in dims) +
            struct.pack("<%d%s" % (len(vals), fmt), *vals))
def colmajor(dims, bad):
    # storage index of a logical index in column-major order
    k, stride = 0, 1
    for i, d in zip(bad, dims):
        k += i * stride
        stride *= d
    return k
for name, dims, bad in (("c2", (2, 2), (0, 1)), ("c3", (2, 3, 4), (1, 2, 3)), ("c4", (3, 1, 2, 2), (2, 0, 1, 0))):
    n = 1
    for d in dims:
        n *= d
    v = [0] * n
    v[colmajor(dims, bad)] = 300
    open("%s/%s.ra" % (t, name), "wb").write(ra(dims, v))
    open("%s/%s.want" % (t, name), "w").write("[" + ",".join(map(str, bad)) + "]")
v = [0] * 6
v[3] = -1000  # row-major [2,3]: [1,0]
open("%s/r2.bin" % t, "wb").write(fut((2, 3), v))
open("%s/r2.want" % t, "w").write("[1,0]")
vals = [300.7, -1e9, float("nan"), 2.9, -2.9, -0.5, 1e40]
open("%s/lossy.bin" % t, "wb").write(fut((len(vals),), vals, b" f64", "d"))
PY

for base in c2 c3 c4 r2; do
    src=$(ls "$T/$base".ra "$T/$base".bin 2> /dev/null | head -1)
    want=$(cat "$T/$base.want")
    "$AFMT" dump "$src" > /dev/null 2>&1
    for to in rawarray futhark; do
        "$AFMT" convert --to $to --dtype i8 "$src" "$T/out.$to" > "$T/out" 2>&1
        rc=$?
        check "$base to $to: refused with exit 1" test "$rc" = 1
        check "$base to $to: names element $want" grep -qF "element $want: value" "$T/out"
    done
done

# --allow-lossy: what the documentation says
"$AFMT" convert --to futhark --dtype i8 --allow-lossy "$T/lossy.bin" "$T/l8.bin" > /dev/null 2>&1
check "lossy to i8: saturates, truncates toward 0, NaN is 0" \
    test "$("$AFMT" dump "$T/l8.bin")" = "[127i8, -128i8, 0i8, 2i8, -2i8, 0i8, 127i8]"
"$AFMT" convert --to futhark --dtype u8 --allow-lossy "$T/lossy.bin" "$T/lu8.bin" > /dev/null 2>&1
check "lossy to u8: saturates at 0 and 255" \
    test "$("$AFMT" dump "$T/lu8.bin")" = "[255u8, 0u8, 0u8, 2u8, 0u8, 0u8, 255u8]"
"$AFMT" convert --to futhark --dtype f32 --allow-lossy "$T/lossy.bin" "$T/lf.bin" > /dev/null 2>&1
check "lossy to f32: too large becomes inf" sh -c "'$AFMT' dump '$T/lf.bin' | grep -q ', f32.inf\]$'"
"$AFMT" convert --help > "$T/help" 2>&1
check "--help says integer targets saturate" grep -q "saturates" "$T/help"
check "--help does not say casts wrap" sh -c "! grep -q 'wrap' '$T/help'"
check "--help says fractions truncate toward 0" grep -q "truncate" "$T/help"
check "the man page says integer targets saturate" grep -q "saturates" "$MAN"
check "the man page says nothing wraps" grep -q "nothing wraps" "$MAN"

# A shape the target cannot hold is refused in its users' words (the spec's
# "holds"), with what the array is: never an expression of the spec.
for dims in 3 2,3,4 4,1,1,2; do
    rank=$(echo "$dims" | tr ',' '\n' | wc -l)
    python3 -c "
import struct, sys
dims = [int(x) for x in '$dims'.split(',')]
n = 1
for d in dims: n *= d
sys.stdout.buffer.write(b'b\x02' + bytes([len(dims)]) + b' i32' + b''.join(struct.pack('<q', d) for d in dims) + bytes(4 * n))
" > "$T/shape.bin"
    for to in daphne inebin; do
        "$AFMT" convert --to $to "$T/shape.bin" "$T/shape.out" > "$T/out" 2>&1
        rc=$?
        check "rank $rank to $to: refused with exit 1" test "$rc" = 1
        check "rank $rank to $to: says what $to holds" grep -qF "$to holds 2-d matrices" "$T/out"
        check "rank $rank to $to: says what the array is" grep -qF "this array is $rank-d: i32[$dims]" "$T/out"
        check "rank $rank to $to: no spec expression in the message" sh -c "! grep -q '\`' '$T/out'"
    done
done

# Opaque elements (RawArray eltype 0) round-trip into a format that can
# hold them, byte for byte, whatever their size; the others refuse them.
for spec in 1:2 3:2,3 16:4 5:1,1,2; do
    elbyte=${spec%%:*}
    dims=${spec#*:}
    python3 -c "
import struct, sys
dims = [int(x) for x in '$dims'.split(',')]
n = 1
for d in dims: n *= d
data = bytes((7 * i + 3) % 256 for i in range($elbyte * n))
sys.stdout.buffer.write(b'rawarray' + struct.pack('<5Q', 0, 0, $elbyte, len(data), len(dims)) +
                        b''.join(struct.pack('<Q', d) for d in dims) + data + b'meta')
" > "$T/opaque.ra"
    rm -f "$T/opaque2.ra"
    "$AFMT" convert "$T/opaque.ra" "$T/opaque2.ra" > "$T/out" 2>&1
    rc=$?
    check "opaque elbyte $elbyte [$dims]: rawarray to rawarray exits 0" test "$rc" = 0
    check "opaque elbyte $elbyte [$dims]: byte for byte" cmp -s "$T/opaque.ra" "$T/opaque2.ra"
    "$AFMT" convert --to futhark "$T/opaque.ra" "$T/opaque.bin" > "$T/out" 2>&1
    rc=$?
    check "opaque elbyte $elbyte [$dims]: futhark refuses (exit 1)" test "$rc" = 1
    check "opaque elbyte $elbyte [$dims]: futhark says why" grep -q "cannot hold elements of type opaque" "$T/out"
    # safetensors has opaque types, but by name: bytes of unknown meaning
    # would be given one
    "$AFMT" convert --to safetensors "$T/opaque.ra" "$T/opaque.safetensors" > "$T/out" 2>&1
    rc=$?
    check "opaque elbyte $elbyte [$dims]: safetensors refuses (exit 1)" test "$rc" = 1
    check "opaque elbyte $elbyte [$dims]: safetensors says why" \
        grep -q "safetensors cannot hold elements of type opaque (no type name: only their size is known)" "$T/out"
done

# The storage form is kept where the target can hold it, and a change is
# said on standard error.
CORPUS="$(dirname "$0")/../../corpus"
python3 -c "
import struct, sys
vals = [i // 7 for i in range(4096)]
sys.stdout.buffer.write(b'b\x02\x02 i32' + struct.pack('<2q', 64, 64) + struct.pack('<4096i', *vals))
" > "$T/big.bin"
"$AFMT" convert --compress "$T/big.bin" "$T/z.ra" > "$T/out" 2>&1
check "--compress writes a compressed RawArray" python3 -c "
import struct, sys
d = open('$T/z.ra', 'rb').read()
sys.exit(0 if struct.unpack('<Q', d[8:16])[0] & 2 and len(d) < 4096 * 4 else 1)"
check "--compress keeps the values" test "$("$AFMT" dump "$T/z.ra")" = "$("$AFMT" dump "$T/big.bin")"
"$AFMT" convert "$T/z.ra" "$T/z2.ra" > "$T/out" 2>&1
check "a compressed RawArray converted to RawArray stays compressed" python3 -c "
import struct, sys
d = open('$T/z2.ra', 'rb').read()
sys.exit(0 if struct.unpack('<Q', d[8:16])[0] & 2 else 1)"
check "... with the same values" test "$("$AFMT" dump "$T/z2.ra")" = "$("$AFMT" dump "$T/big.bin")"
"$AFMT" convert --no-compress "$T/z.ra" "$T/z3.ra" > "$T/out" 2>&1
check "--no-compress writes it uncompressed" python3 -c "
import struct, sys
d = open('$T/z3.ra', 'rb').read()
sys.exit(0 if struct.unpack('<Q', d[8:16])[0] & 2 == 0 else 1)"
"$AFMT" convert --to futhark "$T/z.ra" "$T/z.bin" > "$T/out" 2>&1
check "compressed to futhark says it is written uncompressed" grep -q "futhark cannot store compressed data: written uncompressed" "$T/out"
"$AFMT" convert --dtype f32 "$CORPUS/daphne/csr_f64_3x4.dbdf" "$T/c32.dbdf" > "$T/out" 2>&1
check "--dtype on a CSR matrix keeps it CSR" python3 -c "
import sys
d = open('$T/c32.dbdf', 'rb').read()
sys.exit(0 if d[1] == 2 and len(d) == 53 + 8 * 4 + 3 * 8 + 3 * 4 else 1)"
"$AFMT" convert --to futhark --dtype f32 "$CORPUS/daphne/csr_f64_3x4.dbdf" "$T/c32.bin" > /dev/null 2>&1
check "... with the same values" test "$("$AFMT" dump "$T/c32.dbdf")" = "$("$AFMT" dump "$T/c32.bin")"
"$AFMT" convert "$CORPUS/daphne/csr_f64_3x4.dbdf" "$T/c.ra" > "$T/out" 2>&1
check "CSR to RawArray says it is written dense" grep -q "sparse (CSR); rawarray holds it only dense: written dense" "$T/out"

# complex32 (two f16, RawArray eltype 4 elbyte 4) is an element type of its
# own: validated, dumped, cast exactly to and from c64, round-tripped.
python3 -c "
import struct, sys
parts = [1.5, -2.0, 0.25, 65504.0, -0.0, 3.0]   # exact in f16: (re, im) x 3
data = struct.pack('<6e', *parts)
sys.stdout.buffer.write(b'rawarray' + struct.pack('<5Q', 0, 4, 4, len(data), 1) + struct.pack('<Q', 3) + data)
" > "$T/c32.ra"
"$AFMT" dump --list "$T/c32.ra" > "$T/out" 2>&1
check "c32: dump --list shows the values" grep -q "65504" "$T/out"
"$AFMT" convert "$T/c32.ra" "$T/c32b.ra" > /dev/null 2>&1
check "c32: rawarray round trip byte for byte" cmp -s "$T/c32.ra" "$T/c32b.ra"
"$AFMT" convert --dtype c64 "$T/c32.ra" "$T/c64.ra" > "$T/out" 2>&1
check "c32 to c64 is exact (exit 0)" test $? = 0
"$AFMT" convert --dtype c32 "$T/c64.ra" "$T/c32c.ra" > /dev/null 2>&1
check "c64 back to c32 gives the same bytes" cmp -s "$T/c32.ra" "$T/c32c.ra"
python3 -c "
import struct, sys
parts = [0.1, 0.0]
data = struct.pack('<2f', *parts)
sys.stdout.buffer.write(b'rawarray' + struct.pack('<5Q', 0, 4, 8, len(data), 1) + struct.pack('<Q', 1) + data)
" > "$T/c64inexact.ra"
"$AFMT" convert --dtype c32 "$T/c64inexact.ra" "$T/x.ra" > "$T/out" 2>&1
check "c64 0.1 to c32 is refused as lossy (exit 1)" test $? = 1
check "... naming c32" grep -q "does not fit c32" "$T/out"
"$AFMT" convert --to tenbin "$T/c32.ra" "$T/x.ten" > "$T/out" 2>&1
check "c32 to tenbin is refused with the type" grep -q "tenbin cannot hold elements of type c32" "$T/out"

exit $FAILED
