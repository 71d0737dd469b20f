#!/usr/bin/env bash
# The command line as a user meets it, for afmt-validate and every afmt
# command: exit statuses (0 ok, 1 invalid input or a refusal, 2 usage or
# I/O error, as the man pages say), usage errors as one line naming the
# problem plus "Try 'PROG --help' for more information.", I/O errors and
# rejections naming the file (and field, byte offset and reason).
# Usage: tests/e2e/run_usage.sh [BUILD_DIR]   One PASS/FAIL line per check.
set -u
SUITE=usage
. "$(dirname "$0")/lib.sh" "$@"
cd "$T" || exit 1

RA="$REPO/corpus/rawarray/test.ra"
cp "$RA" bad.ra
printf '\377' | dd of=bad.ra bs=1 seek=32 conv=notrunc 2> /dev/null
BAD_WHY="size at offset 32: expected 96 = elbyte * prod(dims), found 255"

# usage errors: PROG | what the first line says | the arguments
while IFS='|' read -r prog says args; do
    [ -z "$prog" ] && continue
    eval "set -- $args"
    if [ "$prog" = afmt-validate ]; then run "$VALIDATE" "$@"; else run "$AFMT" "$@"; fi
    if [ "$prog" = afmt-validate ]; then name="'afmt-validate $args'"; else name="'afmt $args'"; fi
    expect_rc "$name exits 2" 2
    first=$(printf '%s\n' "$ERR" | sed -n 1p)
    second=$(printf '%s\n' "$ERR" | sed -n 2p)
    lines=$(printf '%s\n' "$ERR" | wc -l)
    case "$first" in
        "$prog: "*"$says"*) pass "$name says '$says'" ;;
        *) fail "$name says '$says'" "stderr: $ERR" ;;
    esac
    if [ "$second" = "Try '$prog --help' for more information." ] && [ "$lines" -eq 2 ]; then
        pass "$name: then one 'Try' line"
    else fail "$name: then one 'Try' line" "stderr: $ERR"; fi
    check "$name: nothing on standard output" test -z "$OUT"
done << 'CASES'
afmt|no COMMAND|
afmt|unknown option '-x'|-x
afmt|unknown command 'frobnicate'|frobnicate
afmt formats|unexpected argument 'y'|formats y
afmt formats|unknown option '--bogus'|formats --bogus
afmt info|no FILE|info
afmt info|unknown option '--bogus'|info --bogus x.ra
afmt info|option '-f' needs a value|info -f
afmt info|option '--json' takes no value|info --json=1 x.ra
afmt info|unknown format 'nosuch'|info --format nosuch x.ra
afmt dump|no FILE|dump
afmt dump|one FILE only ('b' is extra)|dump a b
afmt dump|unknown option '--bogus'|dump --bogus a
afmt dump|unknown format 'nosuch'|dump --format nosuch a
afmt dump|option '--format' needs a value|dump a --format
afmt convert|needs IN and OUT|convert a
afmt convert|too many arguments ('c')|convert a b c
afmt convert|unknown option '--bogus'|convert --bogus a b
afmt convert|unknown format 'nosuch'|convert --to nosuch a b
afmt convert|unknown format 'nosuch'|convert --from nosuch a b
afmt convert|unknown element type 'q' (bool, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64, c32, c64, c128)|convert --dtype q a b
afmt convert|standard output has no extension to tell the format by|convert a.ra -
afmt random|no TYPE|random
afmt random|unknown option '--bogus'|random --bogus f32
afmt random|--seed needs a number, not 'x'|random --seed x f32
afmt random|--f32-bounds needs LO:HI, not 'x'|random --f32-bounds=x f32
afmt random|unknown format 'nosuch'|random --to nosuch f32
afmt random|'qq' is not a type such as f32|random qq
afmt validate|unknown option '--bogus'|validate --bogus x.ra
afmt-validate|no input|
afmt-validate|unknown option '--bogus'|--bogus x.ra
afmt-validate|unknown option '-k'|-qk x.ra
afmt-validate|option '-j' needs a value|-j
afmt-validate|-j needs a number of jobs, not 'x'|-j x x.ra
afmt-validate|--max-bytes needs a size|--max-bytes lots x.ra
afmt-validate|--max-rank needs a number from 0 to 255, not '999'|--max-rank 999 x.ra
afmt-validate|unknown format 'nosuch'|--format nosuch x.ra
afmt|unknown command 'convrt' (did you mean 'convert'?)|convrt a b
afmt|unknown command 'ifno' (did you mean 'info'?)|ifno a
afmt|unknown option '--hepl' (did you mean '--help'?)|--hepl
afmt info|unknown option '--jsn' (did you mean '--json'?)|info --jsn x.ra
afmt dump|unknown option '--lst' (did you mean '--list'?)|dump --lst a
afmt-validate|unknown option '--jsn' (did you mean '--json'?)|--jsn x.ra
afmt-validate|unknown option '--recursiv' (did you mean '--recursive'?)|--recursiv x
afmt-validate|unknown option '--zzzzzz'|--zzzzzz x.ra
CASES

# --help: the usage on standard output, nothing on standard error, exit 0.
for args in "--help" "help" "formats --help" "info --help" "dump -h" "convert --help" \
            "random --help" "validate --help" "help convert" "help --help" "help -h" "help help"; do
    run "$AFMT" $args
    expect_rc "'afmt $args' exits 0" 0
    check "'afmt $args' prints the usage only" test "${OUT:0:7}" = "Usage: " -a -z "$ERR"
done
run "$VALIDATE" --help
expect_rc "'afmt-validate --help' exits 0" 0
run "$AFMT" --version
expect_out "'afmt --version'" "afmt $(sed -n 's/.*"afmt \([0-9.]*\)".*/\1/p' "$REPO/docs/afmt.1")"

# afmt formats: a table whose columns line up (each row has a word start
# where the header's EXTENSIONS starts, after a space).
run "$AFMT" formats
col=$(printf '%s\n' "$OUT" | head -1 | awk '{ print index($0, "EXTENSIONS") }')
misaligned=$(printf '%s\n' "$OUT" | awk -v c="$col" \
    'substr($0, c - 1, 1) != " " || substr($0, c, 1) == " " { print }')
check "afmt formats: the columns line up" test -n "$col" -a -z "$misaligned"

# Input errors (exit 2) name the file and the reason; invalid inputs (exit
# 1) name the file, the format, the field, its byte offset and the reason.
# COMMAND | exit status | standard error or output has
while IFS='|' read -r args want has; do
    [ -z "$args" ] && continue
    eval "set -- $args"
    if [ "$1" = afmt-validate ]; then shift; run "$VALIDATE" "$@"; else shift; run "$AFMT" "$@"; fi
    expect_rc "'$args' exits $want" "$want"
    if printf '%s\n%s' "$OUT" "$ERR" | grep -qF -- "$has"; then pass "'$args' says '$has'"
    else fail "'$args' says '$has'" "stdout: ${OUT:0:200}; stderr: ${ERR:0:300}"; fi
done << CASES
afmt-validate nosuch.ra|2|nosuch.ra: error: No such file or directory
afmt-validate .|2|.: error: is a directory (-r checks the files in it)
afmt-validate bad.ra|1|bad.ra: invalid rawarray: $BAD_WHY
afmt-validate bad.ra nosuch.ra|2|bad.ra: invalid rawarray: $BAD_WHY
afmt-validate $RA|0|test.ra: ok rawarray
afmt validate bad.ra|1|bad.ra: invalid rawarray: $BAD_WHY
afmt info nosuch.ra|2|nosuch.ra: error: No such file or directory
afmt info bad.ra|1|invalid: $BAD_WHY
afmt info $RA bad.ra|1|bad.ra: rawarray, 160 bytes, invalid
afmt dump nosuch.ra|2|nosuch.ra: error: No such file or directory
afmt dump bad.ra|1|bad.ra: invalid rawarray: $BAD_WHY
afmt convert nosuch.ra out.bin --to futhark|2|afmt convert: nosuch.ra: error: No such file or directory
afmt convert bad.ra out.bin --to futhark|1|afmt convert: bad.ra: invalid rawarray: $BAD_WHY
afmt convert $RA out.ten|1|afmt convert: $RA: array [0]
afmt convert $RA out.ten|1|tenbin cannot hold elements of type c64
afmt convert $RA no-such-dir/out.ra|2|afmt convert: no-such-dir/out.ra: error: cannot write no-such-dir/out.ra: the folder no-such-dir does not exist
afmt convert $RA no-such-dir/sub/out.ra|2|the folder no-such-dir/sub does not exist
afmt convert $RA $RA/out.ra|2|is not a folder
afmt dump nosuch.ra|2|afmt dump: nosuch.ra: error
afmt dump $REPO/corpus/rawarray/test.ra|1|afmt dump: $RA: array [0] c64[3,4]: Futhark text has no c64 values
CASES

# An error about no byte of an input names no offset (issue 25, point 8).
for args in "afmt dump $RA" "afmt convert nosuch.ra o.npy" "afmt convert $RA no-such-dir/o.ra" \
            "afmt convert $RA o.ten" "afmt-validate nosuch.ra" "afmt info nosuch.ra"; do
    set -- $args
    if [ "$1" = afmt-validate ]; then shift; run "$VALIDATE" "$@"; else shift; run "$AFMT" "$@"; fi
    if printf '%s\n%s' "$OUT" "$ERR" | grep -q "offset 0:"; then
        fail "'$args' names no offset 0" "stdout: ${OUT:0:200}; stderr: ${ERR:0:300}"
    else pass "'$args' names no offset 0"; fi
done

# Binary data is not written to a terminal (a pseudo-terminal here), by
# afmt convert as by afmt random; text is.
for args in "convert $RA - --to npy" "random f32" "convert $REPO/corpus/futhark/i32_2x3.bin - --to futhark --text"; do
    python3 - "$AFMT" $args > tty.out 2>&1 << 'PY'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1]] + sys.argv[2:])
out = b""
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(status))
PY
    rc=$?
    case "$args" in
    *--text) check "'afmt $args' on a terminal prints text" test "$rc" = 0 ;;
    *) if [ "$rc" = 2 ] && grep -q "binary data is not written to a terminal" tty.out; then
           pass "'afmt $args' on a terminal refuses (exit 2)"
       else fail "'afmt $args' on a terminal refuses (exit 2)" "rc $rc: $(head -c 300 tty.out)"; fi ;;
    esac
done
check "a refused conversion leaves no OUT" test ! -e out.bin -a ! -e out.ten

# afmt info --json: one object per FILE, also for one that cannot be read
# (code io, exit 2) or whose format is not found (code detect, exit 1),
# and nothing on standard error for them.
printf 'not an array file at all, just text' > unknown.xyz
for args in "nosuch.ra|2|io" "unknown.xyz|1|detect" "bad.ra|1|constraint" "$RA|0|"; do
    IFS='|' read -r file want code <<< "$args"
    run "$AFMT" info --json "$file"
    expect_rc "'afmt info --json $file' exits $want" "$want"
    if printf '%s\n' "$OUT" | python3 -c '
import json, sys
lines = sys.stdin.read().splitlines()
assert len(lines) == 1, lines
o = json.loads(lines[0])
assert o["path"] == sys.argv[1], o
code = (o["error"] or {}).get("code", "")
assert code == sys.argv[2], (code, sys.argv[2])
for k in ("format", "size", "valid", "fields", "array_count", "arrays", "warnings"):
    assert k in o, k
' "$file" "$code" 2> py.err && [ -z "$ERR" ]; then
        pass "'afmt info --json $file': one object, error code '$code', nothing on stderr"
    else fail "'afmt info --json $file': one object, error code '$code', nothing on stderr" \
        "$(tail -1 py.err); stdout: ${OUT:0:300}; stderr: ${ERR:0:200}"; fi
done

# Standard output that cannot be written: exit 2, and the tool says so.
if [ -w /dev/full ]; then
    for args in "afmt-validate $RA" "afmt validate $RA" "afmt info $RA" \
                "afmt dump $REPO/corpus/futhark/i32_2x3.bin" "afmt dump --list $RA" \
                "afmt formats"; do
        set -- $args
        if [ "$1" = afmt-validate ]; then prog=afmt-validate; tool=$VALIDATE
        else prog="afmt"; tool=$AFMT; fi
        shift
        "$tool" "$@" > /dev/full 2> err
        rc=$?
        check "'$args > /dev/full' exits 2" test "$rc" = 2
        check "'$args > /dev/full' says so" grep -q "^$prog.*: error writing standard output" err
    done
fi

exit $FAILED
