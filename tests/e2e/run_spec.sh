#!/usr/bin/env bash
# --spec FILE (the reference interpreter, interp/) in the tools: for every
# shipped format, afmt-validate, afmt info and afmt dump print the same
# with --spec spec/F.json as with --format F, on every sample file of F
# (and on the other formats' files, which F refuses); a bad spec is a usage
# error with afmt-gen's diagnostics; --spec and --format exclude each
# other; a walk (-r) checks the files the spec's magic or extension claims.
# Usage: tests/e2e/run_spec.sh [BUILD_DIR]; one PASS/FAIL line per check.
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.."
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
V=$BUILD/afmt-validate
A=$BUILD/afmt
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass() { echo "PASS spec-option $*"; }
fail() { echo "FAIL spec-option $*"; }
same() { # what, file a, file b
    if cmp -s "$2" "$3"; then pass "$1"; else fail "$1: $(diff "$2" "$3" | head -4 | tr '\n' ' ')"; fi
}

for spec in spec/*.json; do
    f=$(basename "$spec" .json)
    files=$(find corpus/"$f" tests/"$f" -type f 2>/dev/null | sort | head -200)
    [ -n "$files" ] || continue
    # a spec whose constructs the interpreter does not run yet is refused, saying so
    if "$V" --spec "$spec" /dev/null 2>&1 | grep -q "the interpreter does not run"; then
        echo "SKIP --spec $spec: $("$V" --spec "$spec" /dev/null 2>&1 | head -1)"
        continue
    fi
    # shellcheck disable=SC2086
    for mode in --strict --lenient; do
        "$V" -j1 --json $mode --format "$f" $files corpus/rawarray/* > "$TMP/gen" 2>&1
        echo "rc=$?" >> "$TMP/gen"
        "$V" -j1 --json $mode --spec "$spec" $files corpus/rawarray/* > "$TMP/int" 2>&1
        echo "rc=$?" >> "$TMP/int"
        same "afmt-validate --json $mode: --spec $spec = --format $f ($(echo $files | wc -w) files)" "$TMP/gen" "$TMP/int"
    done
    "$V" -j1 -v --format "$f" $files > "$TMP/gen" 2>&1
    "$V" -j1 -v --spec "$spec" $files > "$TMP/int" 2>&1
    same "afmt-validate -v: --spec $spec = --format $f" "$TMP/gen" "$TMP/int"
    "$A" info --json --format "$f" $files > "$TMP/gen" 2>&1
    echo "rc=$?" >> "$TMP/gen"
    "$A" info --json --spec "$spec" $files > "$TMP/int" 2>&1
    echo "rc=$?" >> "$TMP/int"
    same "afmt info --json: --spec $spec = --format $f" "$TMP/gen" "$TMP/int"
    one=$(echo "$files" | head -1)
    "$A" dump --format "$f" "$one" > "$TMP/gen" 2>&1
    "$A" dump --spec "$spec" "$one" > "$TMP/int" 2>&1
    same "afmt dump: --spec $spec = --format $f ($one)" "$TMP/gen" "$TMP/int"
done

# afmt convert --spec reads with the interpreter, writes a built-in format
if "$A" convert --spec spec/npy.json corpus/npy/f8_2x3.npy "$TMP/x.ten" 2> "$TMP/err" &&
   "$A" convert --from npy corpus/npy/f8_2x3.npy "$TMP/y.ten" 2>> "$TMP/err" && cmp -s "$TMP/x.ten" "$TMP/y.ten"; then
    pass "afmt convert --spec spec/npy.json writes what --from npy writes"
else
    fail "afmt convert --spec: $(head -3 "$TMP/err")"
fi

# the spec's sidecar (DAPHNE's .meta) is checked with --spec as with --format
cp corpus/daphne/dense_f64_2x3.dbdf "$TMP/m.dbdf"
printf '{"numRows":5,"numCols":3,"valueType":"f64","numNonZeros":0}' > "$TMP/m.dbdf.meta"
"$V" --format daphne "$TMP/m.dbdf" > "$TMP/gen" 2>&1
echo "rc=$?" >> "$TMP/gen"
"$V" --spec spec/daphne.json "$TMP/m.dbdf" > "$TMP/int" 2>&1
echo "rc=$?" >> "$TMP/int"
same "a sidecar is checked with --spec as with --format" "$TMP/gen" "$TMP/int"
if grep -q "sidecar says 5 rows" "$TMP/int"; then pass "--spec: the sidecar's rows are checked"; else fail "--spec sidecar: $(cat "$TMP/int")"; fi

# a walk with --spec: files the spec's magic or extension claims
"$V" -r -v --spec spec/tenbin.json corpus/tenbin corpus/npy > "$TMP/walk" 2>&1
if grep -q '\.ten: ok tenbin' "$TMP/walk" && grep -q '\.npy: skipped' "$TMP/walk" && ! grep -q '\.npy: \(ok\|invalid\)' "$TMP/walk"; then
    pass "a walk with --spec checks the spec's files only"
else
    fail "a walk with --spec: $(head -5 "$TMP/walk" | tr '\n' ' ')"
fi

# a bad spec: afmt-gen's diagnostics, then a usage error (exit 2)
"$V" --spec tests/specs/bad/unknown_name.json corpus/npy/f8_2x3.npy > "$TMP/out" 2> "$TMP/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "unknown_name.json: /body/5/check: unknown name 'size'" "$TMP/err" &&
   grep -q "not a usable spec" "$TMP/err" && [ ! -s "$TMP/out" ]; then
    pass "a spec afmt-gen refuses is a usage error with its diagnostics"
else
    fail "bad spec: exit $rc: $(cat "$TMP/err" | head -3)"
fi
# What the refusal says of afmt-gen is true: for every bad spec, the
# interpreter's diagnostics are afmt-gen --check's, which refuses it too;
# every spec afmt-gen accepts (the feature specs) loads.
said=0 untrue=""
for spec in tests/specs/bad/*.json; do
    ASAN_OPTIONS=detect_leaks=0 "$V" --spec "$spec" /dev/null > /dev/null 2> "$TMP/err"
    ASAN_OPTIONS=detect_leaks=0 "$BUILD/afmt-gen" --check "$spec" > /dev/null 2> "$TMP/gen"
    grc=$?
    if grep -qF "'afmt-gen --check $spec' says the same" "$TMP/err"; then
        said=$((said + 1))
        grep -v "^afmt-validate: \|^Try " "$TMP/err" > "$TMP/diag"
        [ "$grc" -ne 0 ] && cmp -s "$TMP/diag" "$TMP/gen" || untrue="$untrue $spec"
    else
        untrue="$untrue $spec(no-such-line)"
    fi
done
if [ "$said" -gt 10 ] && [ -z "$untrue" ]; then
    pass "a refused spec: afmt-gen --check refuses each of $said the same way, as the message says"
else
    fail "a refused spec's message is not true for:$untrue"
fi
for spec in tests/specs/features/*.json; do
    if ASAN_OPTIONS=detect_leaks=0 "$V" --spec "$spec" /dev/null 2>&1 | grep -q "not a usable spec\|does not run"; then
        fail "--spec $spec: refused, though afmt-gen accepts it"
    fi
done
"$V" --spec /nonexistent.json corpus/npy/f8_2x3.npy > /dev/null 2> "$TMP/err"
rc=$?
if [ $rc -eq 2 ]; then pass "a missing spec is a usage error"; else fail "missing spec: exit $rc"; fi
for cmd in "$V --format npy --spec spec/npy.json" "$A info --spec spec/npy.json --format npy" \
           "$A dump --spec spec/npy.json --spec spec/npy.json" "$A convert --from npy --spec spec/npy.json"; do
    # shellcheck disable=SC2086
    $cmd corpus/npy/f8_2x3.npy "$TMP/o.ten" > /dev/null 2> "$TMP/err"
    rc=$?
    if [ $rc -eq 2 ] && grep -q "give one of" "$TMP/err"; then pass "usage error: $cmd"; else fail "$cmd: exit $rc $(head -2 "$TMP/err")"; fi
done

# unary minus of INT64_MIN overflows (spec/LANGUAGE.md), found by the
# interpreter: the generated code negated it (undefined behaviour) and
# accepted the file; tests/run.sh compares the two on tests/specs/negate
"$V" --spec tests/specs/negate/negate.json tests/specs/negate/*.bin > "$TMP/neg" 2>&1
if grep -q 'int64_min.bin: invalid negate: y at offset 8: `-x` overflows 64 bits' "$TMP/neg" &&
   grep -q 'five.bin: ok negate' "$TMP/neg" && grep -q 'minus_five.bin: ok negate' "$TMP/neg"; then
    pass "-x of INT64_MIN overflows; of 5 and -5 it does not"
else
    fail "negate: $(cat "$TMP/neg" | tr '\n' ' ')"
fi

# float fields (tests/specs/features/float_fields.json): every verdict,
# field, offset and value text of tests/specs/floats as expected (NaN,
# inf, -0, a fraction, a lenient equals); tests/run.sh holds the generated
# code to the same on these files (interpreter agreement)
{ "$V" --spec tests/specs/features/float_fields.json tests/specs/floats/*.bin
  "$V" --lenient --spec tests/specs/features/float_fields.json tests/specs/floats/hi_other.bin \
      tests/specs/floats/lo_above_hi.bin; } > "$TMP/floats" 2>&1
same "float fields: verdicts of tests/specs/floats" tests/specs/floats/verdicts.expected "$TMP/floats"
"$A" info --json --spec tests/specs/features/float_fields.json tests/specs/floats/lo_nan.bin > "$TMP/fj" 2>&1
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f={x["field"]:(x["type"],x["value"]) for x in d["fields"]}
assert f["scale"]==("f64be",0.1) and f["lo"]==("f32be","nan") and f["hi"]==("f32le",-2.25) and f["version"]==("f32le",1.5), f' "$TMP/fj" 2> "$TMP/fje"; then
    pass "afmt info --json: float fields as numbers, nan as a string"
else
    fail "afmt info --json floats: $(tail -2 "$TMP/fje")"
fi

# run-time byte order (tests/specs/features/byte_order.json): the same
# header and payload written II (little-endian) and MM (big-endian) both
# valid, with the same values; fields given in the other order refused at
# the field; a field with le/be keeps its order (tests/run.sh holds the
# generated code to the same, interpreter agreement)
"$V" --spec tests/specs/features/byte_order.json tests/specs/byteorder/*.bin > "$TMP/bo" 2>&1
same "byte order chosen at run time: verdicts of tests/specs/byteorder" tests/specs/byteorder/verdicts.expected "$TMP/bo"
for f in ii mm; do
    "$A" dump --spec tests/specs/features/byte_order.json tests/specs/byteorder/$f.bin > "$TMP/$f.dump" 2>&1
    "$A" info --json --spec tests/specs/features/byte_order.json tests/specs/byteorder/$f.bin > "$TMP/$f.json" 2>&1
done
if python3 -c 'import json,sys
ii, mm = (json.load(open(sys.argv[k])) for k in (1, 2))
t = lambda d: {f["field"]: f["type"] for f in d["fields"]}
v = lambda d: {f["field"]: f["value"] for f in d["fields"] if f["field"] != "order"}
assert v(ii) == v(mm), (v(ii), v(mm))
assert t(ii)["version"] == "u16le" and t(mm)["version"] == "u16be" and t(mm)["dims"] == "u32be" and t(mm)["scale"] == "f32be", t(mm)
assert t(mm)["tag"] == "u32le" and t(mm)["order"] == "u16le", t(mm)
assert mm["arrays"] == ii["arrays"], (mm["arrays"], ii["arrays"])' "$TMP/ii.json" "$TMP/mm.json" 2> "$TMP/boe" &&
   cmp -s "$TMP/ii.dump" "$TMP/mm.dump"; then
    pass "byte order chosen at run time: II and MM files give the same fields and values ($(head -c 60 "$TMP/mm.dump"))"
else
    fail "II/MM files differ: $(tail -2 "$TMP/boe") $(diff "$TMP/ii.dump" "$TMP/mm.dump" | head -3)"
fi

# a shape from the first n_dims entries of a fixed-size dims field
# (tests/specs/features/rank_prefix.json): ranks 0 to 4 read, rank 5 of 4
# entries a constraint at n_dims, an unused entry not 1 refused by the
# spec's check, the product of the entries taken checked for overflow
"$V" --spec tests/specs/features/rank_prefix.json tests/specs/rankprefix/*.bin > "$TMP/rp" 2>&1
same "rank prefix shapes: verdicts of tests/specs/rankprefix" tests/specs/rankprefix/verdicts.expected "$TMP/rp"

# bytes after the data: counted in words that agree ("1 byte", "2 bytes";
# it said "1 bytes"), strict and lenient (tests/specs/chunky's sample)
got=$({ "$V" --spec tests/specs/chunky/chunky.json tests/specs/chunky/samples/trailing.chnk
        "$V" -v --lenient --spec tests/specs/chunky/chunky.json tests/specs/chunky/samples/trailing.chnk; } 2>&1)
if printf '%s\n' "$got" | grep -q ': invalid chunky: trailer at offset 137: 1 byte after the end of the data$' &&
   printf '%s\n' "$got" | grep -q 'warning: trailer at offset 137: 1 byte after the end of the data$'; then
    pass "a trailing byte is one byte, strict and lenient"
else
    fail "trailing byte message: $got"
fi

# a format of one's own: the spec of tests/specs/newformat, with no build
if "$V" --spec tests/specs/newformat/toyfmt.json corpus/npy/f8_2x3.npy 2>&1 | grep -q 'invalid toyfmt: magic at offset 0'; then
    pass "a spec that is no shipped format checks files"
else
    fail "toyfmt --spec: $("$V" --spec tests/specs/newformat/toyfmt.json corpus/npy/f8_2x3.npy 2>&1 | head -2)"
fi
