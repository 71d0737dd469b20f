#!/usr/bin/env bash
# End-to-end tests of afmt dump's Futhark text, afmt convert --text,
# afmt random, afmt info and the closest-match detection messages.
# Usage: tests/e2e/run_cli_tools.sh [BUILD_DIR]   (default: build)
# Prints one "PASS name" or "FAIL name: reason" line per check.  Needs
# python3 (an independent Futhark text reader, binary writers); the
# ../shared samples are an extra set, used when present.
set -u

. "$(dirname "$0")/lib.sh" "$@"
SAMPLES="${AFMT_SAMPLES:-$(cd "$REPO/../shared/samples" 2>/dev/null && pwd || true)}"

# An independent Futhark text reader (Python, not afmt's) and binary
# Futhark writer/reader, shared by the checks below.
cat > "$T/fut.py" << 'EOF'
import math, re, struct, sys
TYPES = {  # name: (binary type name, struct code, size)
    "i8": (b"  i8", "b", 1), "i16": (b" i16", "h", 2), "i32": (b" i32", "i", 4),
    "i64": (b" i64", "q", 8), "u8": (b"  u8", "B", 1), "u16": (b" u16", "H", 2),
    "u32": (b" u32", "I", 4), "u64": (b" u64", "Q", 8), "f16": (b" f16", "e", 2),
    "f32": (b" f32", "f", 4), "f64": (b" f64", "d", 8), "bool": (b"bool", "?", 1)}
BYNAME = {v[0]: k for k, v in TYPES.items()}

def write_bin(path, values):  # values: [(type, shape, flat list)]
    with open(path, "wb") as f:
        for t, shape, flat in values:
            code, size = TYPES[t][1], TYPES[t][2]
            f.write(b"b" + bytes([2, len(shape)]) + TYPES[t][0])
            for d in shape:
                f.write(struct.pack("<q", d))
            f.write(b"".join(struct.pack("<" + code, v) for v in flat))

def read_bin(path):
    data, i, out = open(path, "rb").read(), 0, []
    while i < len(data):
        assert data[i:i + 2] == b"b\x02", (path, i)
        rank, t = data[i + 2], BYNAME[data[i + 3:i + 7]]
        i += 7
        shape = list(struct.unpack_from("<%dq" % rank, data, i)); i += 8 * rank
        n = math.prod(shape); code, size = TYPES[t][1], TYPES[t][2]
        flat = list(struct.unpack_from("<%d%s" % (n, code), data, i)); i += n * size
        out.append((t, shape, flat))
        while i < len(data) and data[i:i + 1] in b" \n": i += 1
    return out

TOKEN = re.compile(r"\s*(empty\((?:\[\d+\])+\w+\)|\[|\]|,|-?f(?:16|32|64)\.(?:nan|inf)|true|false|"
                   r"-?\d+(?:\.\d+)?(?:e-?\d+)?(?:i8|i16|i32|i64|u8|u16|u32|u64|f16|f32|f64))")

def literal(tok):
    if tok in ("true", "false"): return "bool", tok == "true"
    m = re.fullmatch(r"(-?)f(16|32|64)\.(nan|inf)", tok)
    if m: return "f" + m.group(2), (math.nan if m.group(3) == "nan" else
                                    (-math.inf if m.group(1) else math.inf))
    m = re.fullmatch(r"(.*?)(i8|i16|i32|i64|u8|u16|u32|u64|f16|f32|f64)", tok)
    num, t = m.group(1), m.group(2)
    if t[0] == "f":
        v = float(num)
        # round to the type as a Futhark reader does (f64 -> narrower is
        # exact for these shortest spellings: no decimal here sits on a tie)
        return t, struct.unpack("<" + TYPES[t][1], struct.pack("<" + TYPES[t][1], v))[0]
    assert "." not in num and "e" not in num, tok
    return t, int(num)

def parse_line(line):
    toks = TOKEN.findall(line)
    assert "".join(toks).replace(" ", "") == line.strip().replace(" ", ""), ("unparsed", line)
    if toks[0].startswith("empty("):
        m = re.fullmatch(r"empty\(((?:\[\d+\])+)(\w+)\)", toks[0])
        shape = [int(d) for d in re.findall(r"\d+", m.group(1))]
        assert 0 in shape
        return m.group(2), shape, []
    pos, t_seen = 0, set()
    def value():
        nonlocal pos
        if toks[pos] == "[":
            pos += 1; items = [value()]
            while toks[pos] == ",": pos += 1; items.append(value())
            assert toks[pos] == "]"; pos += 1
            shapes = {tuple(s) for s, _ in items}
            assert len(shapes) == 1, "irregular"
            return [len(items)] + list(shapes.pop()), [x for _, f in items for x in f]
        t, v = literal(toks[pos]); pos += 1; t_seen.add(t)
        return [], [v]
    shape, flat = value()
    assert pos == len(toks) and len(t_seen) == 1, line
    return t_seen.pop(), shape, flat

def same(a, b):
    if isinstance(a, float) and math.isnan(a): return isinstance(b, float) and math.isnan(b)
    if isinstance(a, float) and a == 0: return b == 0 and math.copysign(1, a) == math.copysign(1, b)
    return a == b

if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "compare":  # compare TEXT BIN: every value equal, in order
        text = [l for l in open(sys.argv[2]).read().split("\n") if l.strip()]
        vals = read_bin(sys.argv[3])
        assert len(text) == len(vals), (len(text), len(vals))
        for line, (t, shape, flat) in zip(text, vals):
            tt, ts, tf = parse_line(line)
            assert (tt, ts) == (t, shape), (line[:80], t, shape)
            assert len(tf) == len(flat) and all(same(x, y) for x, y in zip(tf, flat)), line[:80]
EOF

# ------------------------------------------------------------------ dump
python3 - "$T" << 'EOF'
import math, os, random, struct, sys
sys.path.insert(0, sys.argv[1]); import fut
r = random.Random(7)
def f32(x): return struct.unpack("<f", struct.pack("<f", x))[0]
def rbits(code, n):
    size = struct.calcsize(code)
    out = []
    while len(out) < n:
        v = struct.unpack("<" + code, r.getrandbits(8 * size).to_bytes(size, "little"))[0]
        if isinstance(v, float) and math.isnan(v):
            continue  # NaN payloads are not kept by text: canonical NaNs below
        out.append(v)
    return out
values = [
    ("i32", [2, 3], [0, 1, 2, 3, 4, -5]),
    ("i8", [4], [-128, 127, 0, -1]),
    ("i16", [2, 0], []),
    ("i32", [0, 3], []),
    ("u64", [], [2**64 - 1]),
    ("i64", [2], [-2**63, 2**63 - 1]),
    ("u8", [3], [0, 255, 7]), ("u16", [1], [65535]), ("u32", [1], [2**32 - 1]),
    ("bool", [2, 2], [True, False, False, True]),
    ("f32", [5], [0.1, -0.0, math.inf, -math.inf, math.nan]),
    ("f64", [4], [0.1, 1e300, 5e-324, -2.5]),
    ("f16", [3], [1.5, 65504.0, 2**-24]),
    ("f32", [50], [f32(x) for x in rbits("f", 50)]),
    ("f64", [10, 5], rbits("d", 50)),
    ("f16", [40], rbits("e", 40)),
    ("f64", [], [3.0]),
]
fut.write_bin(os.path.join(sys.argv[1], "many.bin"), values)
fut.write_bin(os.path.join(sys.argv[1], "one.bin"), [("i32", [2, 3], [0, 1, 2, 3, 4, 5])])
EOF
run "$AFMT" dump "$T/one.bin"
expect_rc dump-text-exit-0 0
expect_out dump-text-i32 "[[0i32, 1i32, 2i32], [3i32, 4i32, 5i32]]"
run "$AFMT" dump "$T/many.bin"
expect_rc dump-text-many-exit-0 0
printf '%s\n' "$OUT" > "$T/many.txt"
if [ "$(wc -l < "$T/many.txt")" -eq 17 ]; then pass dump-text-one-value-a-line; else
    fail dump-text-one-value-a-line "$(wc -l < "$T/many.txt") lines for 17 values"; fi
expect_out_has dump-text-empty "empty([2][0]i16)"
expect_out_has dump-text-empty-first-dim "empty([0][3]i32)"
expect_out_has dump-text-specials "[0.1f32, -0.0f32, f32.inf, -f32.inf, f32.nan]"
expect_out_has dump-text-scalar "18446744073709551615u64"
expect_out_has dump-text-int-ends "[-9223372036854775808i64, 9223372036854775807i64]"
expect_out_has dump-text-f64-shortest "[0.1f64, 1e300f64, 5e-324f64, -2.5f64]"
expect_out_has dump-text-f64-scalar "3.0f64"
# An independent reader (tests' Python) gets every value back.
if python3 "$T/fut.py" compare "$T/many.txt" "$T/many.bin" 2> "$T/py.err"; then
    pass dump-text-independent-reader; else fail dump-text-independent-reader "$(tail -2 "$T/py.err")"; fi
# text -> binary -> text: afmt reads its own text back to the same bytes,
# and prints the same text again.
run "$AFMT" convert --from futhark "$T/many.txt" "$T/back.bin" --to futhark
expect_rc text-to-binary-exit-0 0
if cmp -s "$T/back.bin" "$T/many.bin"; then pass text-to-binary-same-bytes; else
    fail text-to-binary-same-bytes "$(cmp "$T/back.bin" "$T/many.bin" 2>&1)"; fi
run "$AFMT" dump "$T/back.bin"
if [ "$OUT" = "$(cat "$T/many.txt")" ]; then pass text-binary-text-identity; else
    fail text-binary-text-identity "second dump differs"; fi
# afmt-validate reads the text as futhark (with --format).
run "$VALIDATE" --format futhark "$T/many.txt"
expect_out_has dump-text-validates "ok futhark i32[2,3] row-major (+16 more)"
# --list keeps the per-element listing.
run "$AFMT" dump --list "$T/one.bin"
expect_out dump-list "# [0] i32[2,3] row-major
0
1
2
3
4
5"
# Types Futhark text lacks are refused with a way out.
python3 - "$T" << 'EOF'
import struct, sys
# RawArray c64[1] (eltype 4 = complex, elbyte 8)
hdr = b"rawarray" + struct.pack("<6Q", 0, 4, 8, 8, 1, 1)
open(sys.argv[1] + "/c.ra", "wb").write(hdr + struct.pack("<2f", 1.0, 2.0))
EOF
run "$AFMT" dump "$T/c.ra"
expect_rc dump-text-complex-exit-1 1
expect_err_has dump-text-complex-message "Futhark text has no c64 values"
expect_err_has dump-text-complex-hint "'afmt dump --list' lists them"

# ------------------------------------------------------------------ convert --text
run "$AFMT" convert "$T/many.bin" "$T/conv.txt" --to futhark --text
expect_rc convert-text-exit-0 0
if cmp -s "$T/conv.txt" "$T/many.txt"; then pass convert-text-is-dump; else
    fail convert-text-is-dump "convert --text differs from dump"; fi
run "$AFMT" convert "$T/many.bin" "$T/conv2.txt" --text
expect_rc convert-text-implies-futhark 0
run "$AFMT" convert "$T/one.bin" "$T/x.ten" --to tenbin --text
expect_rc convert-text-other-format-exit-2 2
expect_err_has convert-text-other-format-message "--text is Futhark's text form"
run "$AFMT" convert "$T/c.ra" "$T/c.txt" --to futhark --text
expect_rc convert-text-complex-exit-1 1
if [ -e "$T/c.txt" ]; then fail convert-text-complex-no-file "c.txt was written"; else
    pass convert-text-complex-no-file; fi

# The samples, when ../shared is there: dump, read back, same bytes.
if [ -n "$SAMPLES" ] && [ -d "$SAMPLES/futhark" ]; then
    for b in "$SAMPLES"/futhark/*.bin; do
        n=$(basename "$b" .bin)
        "$AFMT" dump "$b" > "$T/s.txt" 2> "$T/s.err"
        "$AFMT" convert --from futhark "$T/s.txt" "$T/s.bin" --to futhark 2>> "$T/s.err"
        if cmp -s "$T/s.bin" "$b" && python3 "$T/fut.py" compare "$T/s.txt" "$b" 2>> "$T/s.err"; then
            pass "sample-text-round-trip-$n"; else fail "sample-text-round-trip-$n" "$(tail -2 "$T/s.err")"; fi
        # the sample's own text (futhark dataset's) reads to the same bytes
        if [ -f "$SAMPLES/futhark/$n.txt" ]; then
            "$AFMT" convert --from futhark "$SAMPLES/futhark/$n.txt" "$T/s2.bin" --to futhark 2> "$T/s.err"
            if cmp -s "$T/s2.bin" "$b"; then pass "sample-text-reads-$n"; else
                fail "sample-text-reads-$n" "$(tail -2 "$T/s.err")"; fi
        fi
    done
else
    echo "SKIP cli-tools: no reference samples in ../shared/samples: the sample round trips (set AFMT_SAMPLES to run them)"
fi

# ------------------------------------------------------------------ random
run "$AFMT" random --to futhark '[10][20]f32' -o "$T/r.bin"
expect_rc random-exit-0 0
run "$VALIDATE" "$T/r.bin"
expect_out random-shape-and-type "$T/r.bin: ok futhark f32[10,20] row-major"
# bounds and shapes, read by the tests' own reader
run "$AFMT" random --to futhark --seed 9 --f32-bounds=-1:1 --i8-bounds=-3:3 --u16-bounds=10:12 \
    --f16-bounds=0.1:0.2 --i64-bounds=-9223372036854775808:-9223372036854775800 \
    '[10][20]f32' '[1000]i8' '[500]u16' '[300]f16' '[50]i64' '[0][4]i32' 'bool' '[100]f64' -o "$T/b.bin"
expect_rc random-bounds-exit-0 0
if python3 - "$T" << 'EOF2' 2> "$T/py.err"
import sys; sys.path.insert(0, sys.argv[1]); import fut
vals = fut.read_bin(sys.argv[1] + "/b.bin")
want = [("f32", [10, 20], -1, 1), ("i8", [1000], -3, 3), ("u16", [500], 10, 12),
        ("f16", [300], 0.1, 0.2), ("i64", [50], -2**63, -2**63 + 8), ("i32", [0, 4], 0, 0),
        ("bool", [], False, True), ("f64", [100], 0, 1)]
assert len(vals) == len(want), len(vals)
for (t, shape, flat), (wt, ws, lo, hi) in zip(vals, want):
    assert (t, shape) == (wt, ws), (t, shape, wt, ws)
    assert all(lo <= v <= hi for v in flat), (t, min(flat), max(flat))
# every value of a small range turns up, and not always the same
for t, lo, hi in (("i8", -3, 3), ("u16", 10, 12)):
    flat = [v for tt, _, f in vals if tt == t for v in f]
    assert set(flat) == set(range(lo, hi + 1)), (t, sorted(set(flat)))
f32 = vals[0][2]
assert len(set(f32)) > 190 and min(f32) < -0.8 and max(f32) > 0.8, (min(f32), max(f32))
EOF2
then pass random-bounds-independent-reader; else fail random-bounds-independent-reader "$(tail -2 "$T/py.err")"; fi
# deterministic for a seed, different for another
"$AFMT" random --seed 4 '[64]f64' --to futhark -o "$T/s1.bin"
"$AFMT" random --seed 4 '[64]f64' --to futhark -o "$T/s2.bin"
"$AFMT" random --seed 5 '[64]f64' --to futhark -o "$T/s3.bin"
if cmp -s "$T/s1.bin" "$T/s2.bin"; then pass random-same-seed-same-bytes; else
    fail random-same-seed-same-bytes "two runs with --seed 4 differ"; fi
if cmp -s "$T/s1.bin" "$T/s3.bin"; then fail random-other-seed-other-bytes "--seed 4 and 5 agree"; else
    pass random-other-seed-other-bytes; fi
# any format, the same logical values: RawArray (column-major) against
# futhark, and --text
"$AFMT" random --seed 7 '[3][5]i32' -o "$T/m.ra"
"$AFMT" random --seed 7 '[3][5]i32' -o "$T/m"  # no extension: futhark
run "$VALIDATE" "$T/m.ra"
expect_out random-rawarray "$T/m.ra: ok rawarray i32[3,5] column-major"
if [ "$("$AFMT" dump "$T/m.ra")" = "$("$AFMT" dump "$T/m")" ] && [ -n "$("$AFMT" dump "$T/m")" ]; then
    pass random-same-values-any-format; else fail random-same-values-any-format "ra and futhark differ"; fi
run "$AFMT" random --seed 7 '[3][5]i32' --text
if [ "$OUT" = "$("$AFMT" dump "$T/m")" ]; then pass random-text; else fail random-text "got $OUT"; fi
run "$AFMT" random --to tenbin '[4][4]u8' -o "$T/t.out"
expect_rc random-to-tenbin 0
run "$VALIDATE" --format tenbin "$T/t.out"
expect_out random-tenbin-valid "$T/t.out: ok tenbin u8[4,4] row-major"
for ext in dbdf ine; do
    f=daphne; [ "$ext" = ine ] && f=inebin
    run "$AFMT" random --to "$f" '[4][3]f64' -o "$T/x.$ext"
    run "$VALIDATE" --format "$f" "$T/x.$ext"
    expect_out_has "random-$f-valid" "ok $f f64[4,3]"
done
# OUT's extension names its format, or the output is refused (issue 36
# point 5): .npz is a NumPy archive, .bin torch's unless --to says
run "$AFMT" random --seed 3 '[3]f32' '[2][2]i64' -o "$T/two.npz"
run "$VALIDATE" "$T/two.npz"
expect_out random-npz-by-extension "$T/two.npz:arr_0.npy: ok npy f32[3] row-major
$T/two.npz:arr_1.npy: ok npy i64[2,2] row-major"
if python3 -c "import numpy" 2> /dev/null; then
    run python3 -c "import numpy as np, sys; z = np.load(sys.argv[1]); print(sorted(z.files), z['arr_1'].shape)" "$T/two.npz"
    expect_out random-npz-numpy-reads-it "['arr_0', 'arr_1'] (2, 2)"
fi
run "$AFMT" random '[3]f32' -o "$T/w.bin"
run "$VALIDATE" "$T/w.bin"
expect_out_has random-bin-is-torch "$T/w.bin: ok torch f32[3]"
for bad in two.xyz two.h5; do
    run "$AFMT" random '[3]f32' -o "$T/$bad"
    expect_rc "random-$bad-refused-exit-2" 2
    expect_err_has "random-$bad-refused-message" "no format of this build has the extension '.${bad#two.}' of '$T/$bad'"
    if [ -e "$T/$bad" ]; then fail "random-$bad-not-written" "$bad was written"; else pass "random-$bad-not-written"; fi
done
run "$AFMT" random --to gguf '[3]f32' -o "$T/c.safetensors"
expect_rc random-to-against-extension-exit-2 2
expect_err_has random-to-against-extension-message "'$T/c.safetensors' has the extension of safetensors (.safetensors), but the format asked for is gguf"
run "$AFMT" random --text '[3]f32' -o "$T/c.npz"
expect_rc random-text-to-npz-exit-2 2
run "$AFMT" convert "$T/two.npz" "$T/c.xyz"
expect_rc convert-unknown-extension-exit-2 2
expect_err_has convert-unknown-extension-message "no format of this build has the extension '.xyz'"
run "$AFMT" convert --to npz "$T/two.npz" "$T/c.safetensors"
expect_rc convert-to-against-extension-exit-2 2
expect_err_has convert-to-against-extension-message "has the extension of safetensors (.safetensors), but the format asked for is npz"
run "$AFMT" convert --to futhark "$T/two.npz" "$T/c.bin"
expect_rc convert-to-futhark-bin-exit-0 0
run "$VALIDATE" "$T/c.bin"
expect_out_has convert-to-futhark-bin "$T/c.bin: ok futhark f32[3] row-major (+1 more)"
# refusals: nothing written
run "$AFMT" random '[2]bool' -o "$T/no.ten"
expect_rc random-refused-exit-1 1
expect_err_has random-refused-message "tenbin cannot hold array [0] bool[2]"
if [ -e "$T/no.ten" ]; then fail random-refused-no-file "no.ten was written"; else pass random-refused-no-file; fi
run "$AFMT" random --f32-bounds=2:1 f32 -o "$T/z.bin"
expect_rc random-bad-bounds-exit-2 2
run "$AFMT" random '[2]x' -o "$T/z.bin"
expect_rc random-bad-type-exit-2 2
expect_err_has random-bad-type-message "is not a type such as f32"
run "$AFMT" random --f16-bounds=0.10001:0.10002 f16 -o "$T/z.bin"
expect_rc random-empty-bounds-exit-1 1
expect_err_has random-empty-bounds-message "no f16 value lies between"
run "$AFMT" random --help
expect_out_has random-help "Usage: afmt random"

# ------------------------------------------------------------------ info
# Every header field with offset, width, type, value (and doc), from the
# generated validator; then arrays; an invalid file up to its bad field.
run "$AFMT" info "$T/one.bin"
expect_rc info-exit-0 0
expect_out info-futhark "$T/one.bin: futhark, 47 bytes, valid
      offset  width  type  field                        value
           0      1  bytes value[0].binary_mark         \"b\"
           1      1  u8    value[0].version             2
           2      1  i8    value[0].rank                2
           3      4  bytes value[0].type                \" i32\"
           7     16  i64le value[0].dims                [2, 3]
  array [0] i32[2,3] row-major, bytes 23..47 (24 bytes)"
"$AFMT" random --seed 2 '[2][3]i16' -o "$T/i.ra"
run "$AFMT" info "$T/i.ra"
expect_out_has info-rawarray-doc "          32      8  u64le size                         12  -- data length in bytes"
expect_out_has info-rawarray-dims "          48     16  u64le dims                         [2, 3]"
expect_out_has info-rawarray-array "  array [0] i16[2,3] column-major, bytes 64..76 (12 bytes)"
printf 'b\001\001 i32\001\000\000\000\000\000\000\000\007\000\000\000' > "$T/bad.bin"
run "$AFMT" info --format futhark "$T/bad.bin"
expect_rc info-invalid-exit-1 1
expect_out info-invalid-up-to-bad-field "$T/bad.bin: futhark, 19 bytes, invalid
      offset  width  type  field                        value
           0      1  bytes value[0].binary_mark         \"b\"
           1      1  u8    value[0].version             1
  invalid: value[0].version at offset 1: expected 2, found 1"
"$AFMT" random --to tenbin --seed 3 '[2][2]u8' '[3]f64' -o "$T/two.ten"
run "$AFMT" info --json "$T/two.ten" "$T/one.bin"
expect_rc info-json-exit-0 0
if printf '%s\n' "$OUT" | python3 -c '
import json, sys
objs = [json.loads(l) for l in sys.stdin]
assert [o["path"].rsplit("/", 1)[1] for o in objs] == ["two.ten", "one.bin"], objs
t = objs[0]
assert t["format"] == "tenbin" and t["valid"] is True and t["error"] is None, t
names = [f["field"] for f in t["fields"]]
assert names[:2] == ["array[0].header_magic", "array[0].header_len"], names
dims = [f for f in t["fields"] if f["field"] == "array[1].dims"][0]
assert dims["value"] == [3] and dims["count"] == 1 and dims["type"] == "i64le", dims
magic = t["fields"][0]
assert magic["value"] == "~TenBin~" and magic["hex"] == "7e54656e42696e7e" and magic["width"] == 8, magic
offs = [f["offset"] for f in t["fields"]]
assert offs == sorted(offs), offs
assert [(a["dtype"], a["shape"]) for a in t["arrays"]] == [("u8", [2, 2]), ("f64", [3])], t["arrays"]
for a in t["arrays"]:
    assert a["offset"] + a["nbytes"] <= t["size"], a
' 2> "$T/py.err"; then pass info-json; else fail info-json "$(tail -1 "$T/py.err")"; fi
run "$AFMT" info "$T/nope.bin"
expect_rc info-missing-exit-2 2
run "$AFMT" info --help
expect_out_has info-help "Usage: afmt info"

# ------------------------------------------------------------------ detection
# An input no magic or extension names: the closest format and why it
# failed there, or a hint when a format accepts it (Futhark text).
printf 'b\001\001 i32\001\000\000\000\000\000\000\000\007\000\000\000' > "$T/bad.bin"
printf 'INEBIM\000\000\001\000\000\000\000\000\000\000' > "$T/inebim"
printf '[[1i32, 2i32], [3i32, 4i32]]\n' > "$T/text.txt"
printf 'garbage' > "$T/garbage"
printf '1 2 3 hello' > "$T/text-bad.txt"
run "$VALIDATE" "$T/bad.bin"
expect_rc closest-exit-1 1
expect_out closest-futhark-version "$T/bad.bin: invalid futhark (closest match): value[0].version at offset 1: expected 2, found 1"
run "$VALIDATE" "$T/inebim"
expect_out closest-inebin-magic "$T/inebim: invalid inebin (closest match): magic at offset 0: expected \"INEBIN\", found \"INEBIM\""
# Futhark text has no magic: a file that parses completely as text values
# is found by its content, the same from a path, a redirect and a pipe
# (issue 25, point 9), however long it is.
run "$VALIDATE" "$T/text.txt"
expect_rc text-content-exit-0 0
expect_out text-content "$T/text.txt: ok futhark i32[2,2] row-major"
run sh -c "'$VALIDATE' - < '$T/text.txt'"
expect_out text-content-redirect "-: ok futhark i32[2,2] row-major"
run sh -c "cat '$T/text.txt' | '$VALIDATE' -"
expect_out text-content-pipe "-: ok futhark i32[2,2] row-major"
python3 -c "print('[' + ', '.join('%di64' % i for i in range(2000)) + ']')" > "$T/long.txt"
run sh -c "cat '$T/long.txt' | '$VALIDATE' -"
expect_out text-content-pipe-long "-: ok futhark i64[2000] row-major"
# An empty input is "empty file", from every path and pipe, whatever its
# extension; --format tenbin still reads it (the reference writes it).
: > "$T/empty"
: > "$T/empty.ten"
for cmd in "'$VALIDATE' '$T/empty'" "'$VALIDATE' '$T/empty.ten'" "'$VALIDATE' - < '$T/empty'" \
           "cat '$T/empty' | '$VALIDATE' -" "'$AFMT' info '$T/empty'" "cat '$T/empty' | '$AFMT' info -"; do
    run sh -c "$cmd 2>&1"
    expect_rc "empty-exit-1: $cmd" 1
    expect_out_has "empty: $cmd" ": invalid: empty file (--format tenbin reads it as a tenbin file of no arrays)"
done
run sh -c "cat '$T/empty' | '$AFMT' dump -"
expect_err_has empty-dump-pipe "afmt dump: -: invalid: empty file"
run "$AFMT" convert "$T/empty" "$T/o.npy"
expect_err_has empty-convert "afmt convert: $T/empty: invalid: empty file (--from tenbin reads it"
run "$VALIDATE" --format tenbin "$T/empty"
expect_out empty-format-tenbin "$T/empty: ok tenbin (no arrays)"
run "$VALIDATE" --json "$T/empty"
if printf '%s' "$OUT" | python3 -c '
import json, sys
o = json.loads(sys.stdin.read())
assert o["format"] is None and o["valid"] is False, o
assert o["error"]["code"] == "detect" and o["error"]["offset"] is None, o
' 2> "$T/py.err"; then pass empty-json-no-offset; else fail empty-json-no-offset "$(tail -1 "$T/py.err")"; fi
run "$VALIDATE" --format futhark "$T/text.txt"
expect_out text-with-format "$T/text.txt: ok futhark i32[2,2] row-major"
run "$VALIDATE" "$T/garbage"
expect_out nothing-close "$T/garbage: invalid: no known format matches (magic or extension)"
run "$VALIDATE" "$T/text-bad.txt"
expect_out closest-futhark-text "$T/text-bad.txt: invalid futhark (closest match): value[3].element[0] at offset 6: expected a literal (a number, true, false, fNN.nan or fNN.inf), found 'hello'"
run "$VALIDATE" --json "$T/bad.bin"
if printf '%s' "$OUT" | python3 -c '
import json, sys
o = json.loads(sys.stdin.read())
assert o["format"] is None and o["closest_match"] == "futhark" and o["valid"] is False, o
assert o["error"] == {"code": "constraint", "offset": 1, "field": "value[0].version", "message": "expected 2, found 1"}, o
' 2> "$T/py.err"; then pass closest-json; else fail closest-json "$(tail -1 "$T/py.err")"; fi
# the same from a pipe: only the head is seen, and what it says holds
run sh -c "cat '$T/bad.bin' | '$VALIDATE' -"
expect_out closest-stdin "-: invalid futhark (closest match): value[0].version at offset 1: expected 2, found 1"
run "$AFMT" dump "$T/text.txt"
expect_rc dump-text-content-exit-0 0
expect_out dump-text-content "[[1i32, 2i32], [3i32, 4i32]]"
run sh -c "cat '$T/text.txt' | '$AFMT' dump -"
expect_out dump-text-content-pipe "[[1i32, 2i32], [3i32, 4i32]]"
run "$AFMT" convert "$T/text.txt" "$T/o.ra"
expect_rc convert-text-content 0
run "$AFMT" dump "$T/o.ra"
expect_out convert-text-content-values "[[1i32, 2i32], [3i32, 4i32]]"
run "$AFMT" dump "$T/bad.bin"
expect_err_has dump-closest "$T/bad.bin: invalid futhark (closest match): value[0].version at offset 1"

# --lenient reads a bool byte 2 as true (with a warning); afmt convert
# --lenient converts it as read, and says so (issue 25, point 3).
B2="$REPO/examples/invalid/bool_byte_2.bin"
run "$AFMT" convert "$B2" "$T/b.npy"
expect_rc strict-bool-2-refused 1
run "$AFMT" convert --lenient "$B2" "$T/b.npy"
expect_rc lenient-bool-2-converted 0
expect_err_has lenient-bool-2-warns "bool element is 0x02, not 0 or 1"
expect_err_has lenient-bool-2-says "1 bool byte other than 0 or 1 read as true and written as 1"
run "$AFMT" dump --lenient "$B2"
want=$OUT
run "$AFMT" dump "$T/b.npy"
expect_out lenient-bool-2-same-values "$want"
run "$AFMT" convert --lenient --dtype i8 "$B2" "$T/b8.npy"
run "$AFMT" dump "$T/b8.npy"
expect_out lenient-bool-2-cast "[0i8, 1i8, 1i8]"

# Names that do not fit the output are shortened or dropped, said on
# stderr; --keep-names refuses instead (issue 25, point 13).
python3 -c "
import json, struct
h = {'layer.0.weight': {'dtype': 'F32', 'shape': [2], 'data_offsets': [0, 8]},
     'b': {'dtype': 'F32', 'shape': [1], 'data_offsets': [8, 12]},
     'caf\u00e9': {'dtype': 'F32', 'shape': [1], 'data_offsets': [12, 16]}}
b = json.dumps(h, separators=(',', ':')).encode()
b += b' ' * ((8 - len(b) % 8) % 8)
open('$T/long.safetensors', 'wb').write(struct.pack('<Q', len(b)) + b + struct.pack('<4f', 1, 2, 3, 4))
"
run "$AFMT" convert "$T/long.safetensors" "$T/long.ten"
expect_rc names-shortened-exit-0 0
expect_err_has names-shortened-said 'name "layer.0.weight" shortened to "layer.0."'
expect_err_has names-non-ascii-said 'name "café" shortened to "caf"'
run "$VALIDATE" -v "$T/long.ten"
expect_out_has names-shortened-written "[0] layer.0. f32[2]"
expect_out_has names-short-kept "[1] b f32[1]"
run "$AFMT" dump "$T/long.ten"
expect_out names-values-kept "$(printf '[1.0f32, 2.0f32]\n[3.0f32]\n[4.0f32]')"
run "$AFMT" convert --keep-names "$T/long.safetensors" "$T/long2.ten"
expect_rc keep-names-refuses 1
expect_err_has keep-names-says 'array name "layer.0.weight" does not fit 8 bytes'
check keep-names-writes-nothing test ! -e "$T/long2.ten"
# A set of arrays refused by the writer together names the repetition it
# failed in (the second tensor), not the first array of the set.
python3 -c "
import json, struct
h = {'a': {'dtype': 'F32', 'shape': [2], 'data_offsets': [0, 8]},
     'b' * 100: {'dtype': 'F32', 'shape': [2], 'data_offsets': [8, 16]}}
b = json.dumps(h, separators=(',', ':')).encode()
b += b' ' * ((8 - len(b) % 8) % 8)
open('$T/longname.safetensors', 'wb').write(struct.pack('<Q', len(b)) + b + bytes(16))
"
run "$AFMT" convert --keep-names "$T/longname.safetensors" "$T/longname.gguf"
expect_rc keep-names-gguf-refuses 1
expect_err_has keep-names-gguf-names-tensor 'these 2 arrays cannot be written as one gguf file: tensor[1].name: a tensor name has at most 63 bytes'
check keep-names-gguf-no-array-0 test -z "$(grep -F 'array [0]' "$T/err")"
check keep-names-gguf-writes-nothing test ! -e "$T/longname.gguf"
# A writer's refusal names no offset it does not know: the check of ndim
# (a field at 40) failed before anything was written, and said "ndim at
# offset 0" (issue 37.7).
run "$AFMT" convert corpus/npy/i2_scalar.npy "$T/scalar.nii" --to nifti1
expect_rc convert-scalar-nifti1-refused 1
expect_err_has convert-refusal-names-no-false-offset "cannot be written as nifti1: ndim: dim[0] is the number of dimensions"

# afmt info shows a text header's metadata (safetensors' __metadata__) with
# its byte range, in text and JSON (issue 25, point 5, in part).
run "$AFMT" info "$REPO/examples/model.safetensors"
expect_out_has info-metadata-text '  metadata, bytes 24..39: {"format":"pt"}'
expect_out_has info-metadata-field '          34      4  text  header["__metadata__"]["format"] "pt"'
run "$AFMT" info --json "$REPO/examples/model.safetensors"
if printf '%s' "$OUT" | python3 -c '
import json, sys
o = json.loads(sys.stdin.read())
m = o["metadata"]
raw = open(sys.argv[1], "rb").read()
assert raw[m["offset"]:m["offset"] + m["nbytes"]].decode() == m["json"], m
assert json.loads(m["json"]) == json.loads(raw[8:8 + int.from_bytes(raw[:8], "little")])["__metadata__"], m
' "$REPO/examples/model.safetensors" 2> "$T/py.err"; then pass info-metadata-json; else fail info-metadata-json "$(tail -1 "$T/py.err")"; fi
run "$AFMT" info --json "$REPO/examples/f8_2x3.npy"
check info-no-metadata-key-without-metadata test "${OUT#*\"metadata\"}" = "$OUT"

exit $FAILED
