#!/usr/bin/env bash
# DAPHNE's .meta sidecar: afmt writes it beside a DAPHNE file and checks one
# it finds.  One PASS/FAIL line per check (counted by tests/run.sh).
set -u
SUITE=sidecar
. "$(dirname "$0")/lib.sh" "$@"
# inputs from the repository alone: corpus/ copies and a file made here
S="$REPO/corpus"
python3 "$HERE/make_f64_ra.py" "$T/f64_4x4.ra"

"$AFMT" convert "$T/f64_4x4.ra" "$T/m.dbdf" --to daphne > "$T/out" 2>&1
check "convert to daphne writes OUT.meta" test -f "$T/m.dbdf.meta"
check "the sidecar says rows, cols, value type" grep -q '"numRows":4,"numCols":4,"valueType":"f64"' "$T/m.dbdf.meta"
"$VALIDATE" "$T/m.dbdf" > "$T/out" 2>&1
check "a file and its own sidecar validate" grep -q "ok daphne f64\[4,4\]" "$T/out"

printf '{"numRows":5,"numCols":4,"valueType":"f64","numNonZeros":0}' > "$T/m.dbdf.meta"
"$VALIDATE" "$T/m.dbdf" > "$T/out" 2>&1
rc=$?
check "a sidecar with other rows makes the file invalid (exit 1)" test "$rc" = 1
check "the rejection names the sidecar key" grep -q "m.dbdf.meta:numRows at offset 0: sidecar says 5 rows, the file has 4" "$T/out"

printf '{"numRows":4,"numCols":4,"valueType":"si32","numNonZeros":0}' > "$T/m.dbdf.meta"
"$VALIDATE" "$T/m.dbdf" > "$T/out" 2>&1
check "a sidecar with another value type is caught" grep -q 'valueType.*"si32", the file holds f64' "$T/out"

printf '{"numRows":4,"numCols":4,"valueType":"f64"' > "$T/m.dbdf.meta"
"$VALIDATE" "$T/m.dbdf" > "$T/out" 2>&1
check "a broken sidecar is reported with its byte offset" grep -q "m.dbdf.meta:sidecar at offset [0-9]*: sidecar JSON" "$T/out"

rm -f "$T/m.dbdf.meta"
"$VALIDATE" "$T/m.dbdf" > "$T/out" 2>&1
check "no sidecar: nothing to check" grep -q "ok daphne" "$T/out"

"$AFMT" convert "$S/daphne/frame_2x2.dbdf" "$T/f.dbdf" > "$T/out" 2>&1
check "a frame's sidecar has its schema" grep -q '"schema":\[{"label":"h","valueType":"si64"},{"label":"?c","valueType":"f64"}\]' "$T/f.dbdf.meta"
"$VALIDATE" "$T/f.dbdf" > "$T/out" 2>&1
check "a frame and its sidecar validate" grep -q "ok daphne i64\[2\]" "$T/out"
printf '{"numRows":2,"numCols":2,"schema":[{"label":"h","valueType":"si64"}]}' > "$T/f.dbdf.meta"
"$VALIDATE" "$T/f.dbdf" > "$T/out" 2>&1
check "a schema with too few columns is caught" grep -q "f.dbdf.meta:schema" "$T/out"

"$AFMT" convert "$S/daphne/csr_f64_3x4.dbdf" "$T/c.dbdf" > "$T/out" 2>&1
check "a CSR matrix converted to DAPHNE stays CSR, byte for byte" cmp -s "$T/c.dbdf" "$S/daphne/csr_f64_3x4.dbdf"
check "its sidecar counts the non-zeros" grep -q '"numNonZeros":3' "$T/c.dbdf.meta"
"$AFMT" convert "$S/daphne/csr_f64_3x4.dbdf" "$T/c.ra" > "$T/out" 2>&1
"$AFMT" dump --list "$T/c.ra" > "$T/dump" 2>&1
check "a CSR matrix converted to RawArray is dense, same values" sh -c "tr '\n' ' ' < '$T/dump' | grep -q 'f64\[3,4\] column-major 0 2.5 0 -1 0 0 0 0 7 0 0 0'"

# afmt dump and afmt convert refuse exactly what afmt-validate refuses for a
# sidecar that disagrees with its file (or is broken), with the same reason.
"$AFMT" convert "$T/f64_4x4.ra" "$T/s.dbdf" --to daphne > /dev/null 2>&1
"$AFMT" convert "$S/daphne/frame_2x2.dbdf" "$T/sf.dbdf" > /dev/null 2>&1
while IFS='|' read -r file meta reason; do
    printf '%s' "$meta" > "$T/$file.meta"
    for cmd in validate dump convert; do
        case $cmd in
        validate) "$VALIDATE" "$T/$file" > "$T/out" 2>&1 ;;
        dump) "$AFMT" dump "$T/$file" > "$T/out" 2>&1 ;;
        convert) rm -f "$T/conv.ra"; "$AFMT" convert "$T/$file" "$T/conv.ra" > "$T/out" 2>&1 ;;
        esac
        rc=$?
        check "$reason: $cmd refuses (exit 1)" test "$rc" = 1
        check "$reason: $cmd says why" grep -q "$file.meta:" "$T/out"
        [ "$cmd" = convert ] && check "$reason: convert writes nothing" test ! -e "$T/conv.ra"
    done
done << 'CASES'
s.dbdf|{"numRows":5,"numCols":4,"valueType":"f64","numNonZeros":0}|other rows
s.dbdf|{"numRows":4,"numCols":3,"valueType":"f64","numNonZeros":0}|other cols
s.dbdf|{"numRows":4,"numCols":4,"valueType":"si32","numNonZeros":0}|other value type
s.dbdf|{"numRows":4,"numCols":4,"valueType":"f64"|broken JSON
sf.dbdf|{"numRows":2,"numCols":2,"schema":[{"label":"h","valueType":"si64"}]}|frame schema too short
CASES

# A sidecar lies beside a file on disk: an archive member has none, even
# when a file of the member's name and its sidecar sit in the directory
# the tool runs in (it used to read that unrelated .meta).
mkdir -p "$T/tarcase"
"$AFMT" convert "$T/f64_4x4.ra" "$T/tarcase/m.dbdf" --to daphne > /dev/null 2>&1
python3 -c 'import sys, tarfile; t = tarfile.open(sys.argv[1], "w"); t.add(sys.argv[2], arcname="m.dbdf"); t.close()' \
    "$T/tarcase/shard.tar" "$T/tarcase/m.dbdf"
printf '{"numRows":5,"numCols":4,"valueType":"f64","numNonZeros":0}' > "$T/tarcase/m.dbdf.meta"
(cd "$T/tarcase" && "$VALIDATE" shard.tar) > "$T/out" 2>&1
if grep -q "libarchive" "$T/out"; then
    echo "SKIP sidecar: archive member: libarchive is not installed"
else
    check "an archive member is not checked against a .meta on disk" grep -q "shard.tar:m.dbdf: ok daphne" "$T/out"
fi
(cd "$T/tarcase" && "$VALIDATE" m.dbdf) > "$T/out" 2>&1
check "the file on disk still is (its sidecar disagrees)" grep -q "m.dbdf.meta:numRows" "$T/out"

exit $FAILED
