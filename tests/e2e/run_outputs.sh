#!/usr/bin/env bash
# Where afmt writes: OUT that is a FIFO, a symlink, a device node, a
# directory or a regular file with its own permissions.  A regular file (or
# a new name) is written under a temporary name and renamed into place; a
# symlink is followed and its target replaced (as cp does); a character
# device or FIFO is written through; nothing else is renamed over.
# Every node is made in a temporary directory (never the system's /dev).
# One PASS/FAIL line per check (counted by tests/run.sh).
set -u
BUILD=${1:-build}
A="$BUILD/afmt"
IN="$(cd "$(dirname "$0")/../../corpus" && pwd)/futhark/i32_2x3.bin"
T=$(mktemp -d)
READER=
trap '[ -n "$READER" ] && kill "$READER" 2>/dev/null; rm -rf "$T"' EXIT

check() { # name, condition-command...
    local name=$1
    shift
    if "$@"; then echo "PASS outputs: $name"; else echo "FAIL outputs: $name"; fi
}
kind() { stat -c %F "$1" 2>/dev/null; }

# the bytes a plain conversion gives, to compare with
"$A" convert --to tenbin "$IN" "$T/want.ten" > /dev/null 2>&1
check "a new name gets the converted file" test -s "$T/want.ten"

# a FIFO: the reader gets the bytes; the FIFO stays a FIFO
mkfifo "$T/fifo"
timeout 20 cat "$T/fifo" > "$T/from_fifo" &
READER=$!
timeout 20 "$A" convert --to tenbin "$IN" "$T/fifo" > "$T/out" 2>&1
rc=$?
wait "$READER"
READER=
check "convert into a FIFO exits 0" test "$rc" = 0
check "the FIFO is still a FIFO" test "$(kind "$T/fifo")" = "fifo"
check "the FIFO's reader got the whole file" cmp -s "$T/from_fifo" "$T/want.ten"
check "no temporary file is left beside the FIFO" test "$(ls "$T" | grep -c '^fifo')" = 1

# a symlink: followed, the target replaced, the link kept, the mode kept
mkdir "$T/d"
printf 'old' > "$T/target.ten"
chmod 0640 "$T/target.ten"
ln -s ../target.ten "$T/d/link.ten"
"$A" convert --to tenbin "$IN" "$T/d/link.ten" > "$T/out" 2>&1
rc=$?
check "convert into a symlink exits 0" test "$rc" = 0
check "the symlink is still a symlink to the same target" test "$(readlink "$T/d/link.ten")" = "../target.ten"
check "the symlink's target holds the new file" cmp -s "$T/target.ten" "$T/want.ten"
check "the target keeps its permissions (0640)" test "$(stat -c %a "$T/target.ten")" = 640
check "no temporary file is left beside the link or the target" test "$(ls -A "$T/d" | wc -l)" = 1 -a "$(ls "$T" | grep -c '^target')" = 1

# a chain of two symlinks
ln -s d/link.ten "$T/link2.ten"
printf 'old' > "$T/target.ten"
"$A" convert --to tenbin "$IN" "$T/link2.ten" > "$T/out" 2>&1
check "a chain of symlinks is followed to the end" cmp -s "$T/target.ten" "$T/want.ten"
check "both links are kept" test -L "$T/link2.ten" -a -L "$T/d/link.ten"

# a dangling symlink: refused (as cp refuses), nothing created
ln -s nowhere.ten "$T/dangling.ten"
"$A" convert --to tenbin "$IN" "$T/dangling.ten" > "$T/out" 2>&1
rc=$?
check "a dangling symlink is refused with exit 2" test "$rc" = 2
check "the refusal says the link is dangling" grep -q "dangling" "$T/out"
check "the dangling link is untouched and nothing is created" test -L "$T/dangling.ten" -a ! -e "$T/nowhere.ten"

# a regular file keeps its permissions
printf 'old' > "$T/plain.ten"
chmod 0600 "$T/plain.ten"
"$A" convert --to tenbin "$IN" "$T/plain.ten" > "$T/out" 2>&1
check "a replaced regular file holds the new bytes" cmp -s "$T/plain.ten" "$T/want.ten"
check "a replaced regular file keeps its permissions (0600)" test "$(stat -c %a "$T/plain.ten")" = 600

# a directory: refused, untouched
mkdir "$T/dir.ten"
"$A" convert --to tenbin "$IN" "$T/dir.ten" > "$T/out" 2>&1
rc=$?
check "a directory as OUT is refused with exit 2" test "$rc" = 2
check "the directory is still a directory" test -d "$T/dir.ten"

# device nodes (made here with mknod: the same numbers as null and full)
if mknod "$T/null" c 1 3 2> /dev/null && mknod "$T/full" c 1 7 2> /dev/null; then
    "$A" convert --to tenbin "$IN" "$T/null" > "$T/out" 2>&1
    rc=$?
    check "convert into a null device exits 0" test "$rc" = 0
    check "the null device is still a character device" test -c "$T/null"
    "$A" convert --to daphne "$IN" "$T/null" > "$T/out" 2>&1
    check "no sidecar is made beside a device" test ! -e "$T/null.meta"
    "$A" convert --to tenbin "$IN" "$T/full" > "$T/out" 2>&1
    rc=$?
    check "convert into a full device fails with exit 2" test "$rc" = 2
    check "the failure says why" grep -q "No space left on device" "$T/out"
    check "the full device is still a character device" test -c "$T/full"
    check "no temporary file is left beside the devices" test "$(ls "$T" | grep -c '^null\|^full')" = 2
else
    echo "SKIP outputs: device nodes: mknod is not permitted here (needs root)"
fi

# a failed conversion into a FIFO writes nothing into it (it is refused
# before the output is opened)
mkfifo "$T/fifo2"
timeout 20 cat "$T/fifo2" > "$T/from_fifo2" &
READER=$!
timeout 20 "$A" convert --to futhark --dtype i8 "$(dirname "$IN")/../rawarray/test.ra" "$T/fifo2" > "$T/out" 2>&1
rc=$?
# the refusal never opened the FIFO: release the reader
exec 3> "$T/fifo2"; exec 3>&-
wait "$READER"
READER=
check "a refused conversion into a FIFO exits 1" test "$rc" = 1
check "a refused conversion sends nothing to the FIFO" test ! -s "$T/from_fifo2"
