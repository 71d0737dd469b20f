#!/usr/bin/env bash
# The fault suite (issue 35): the tools under faults and hostile names.
# Inputs that shrink, grow or vanish while they are read; ENOSPC on a small
# tmpfs (where one can be mounted); /dev/full; SIGINT, SIGTERM and SIGHUP
# during convert; ulimit -v below the file's size; names with newlines,
# tabs, invalid UTF-8 and leading dashes; 10,000 files with one unreadable
# in the middle.  Each case checks the exit status, the message and what
# is on disk afterwards.  One PASS/FAIL line per check (tests/run.sh counts
# them); a case that cannot run here says SKIP and why.
# Usage: tests/faults/run.sh [BUILD_DIR]
set -u
SUITE=faults
. "$(dirname "$0")/../e2e/lib.sh" "$@"
FAULTS="$REPO/tests/faults"

# has TEXT NEEDLE: TEXT contains NEEDLE (fixed string)
has() { case "$1" in *"$2"*) return 0 ;; *) return 1 ;; esac; }
# expect NAME WANT_RC NEEDLE: the last run exited WANT_RC and said NEEDLE
# on stderr
expect() {
    local name=$1 want=$2 needle=$3
    if [ "$RC" != "$want" ]; then
        fail "$name" "exit status $RC, not $want; stderr: $(head -c 400 "$T/err")"
    elif ! has "$ERR" "$needle"; then
        fail "$name" "stderr lacks '$needle': $(head -c 400 "$T/err")"
    else
        pass "$name"
    fi
}
# no_leftovers NAME DIR PREFIX: no file PREFIX.* (a temporary output) in DIR
no_leftovers() {
    local left
    left=$(cd "$2" && ls -A | grep -F "$3." | head -3)
    if [ -z "$left" ]; then pass "$1"; else fail "$1" "left behind: $left"; fi
}
# a program that dies of its default signal action when sent one: bash
# starts background jobs with SIGINT ignored, which the tools keep.  It
# replaces the (sub)shell it runs in, so that $! is the tool's own pid:
# call it only in a subshell or in the background.
with_default_signals() {
    exec python3 -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

# ------------------------------------------------------------ inputs
python3 - "$T" <<'EOF'
import struct, sys
t = sys.argv[1]
def npy(path, n):
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d,), }" % n
    header += " " * (127 - 10 - len(header)) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(b"".join(struct.pack("<d", i) for i in range(n)))
npy(t + "/big.npy", 512 * 1024)      # 4 MiB + 128: mapped, not read (> 256 KiB)
npy(t + "/small.npy", 6)
EOF
BIG_SIZE=$(stat -c %s "$T/big.npy")

# The shim that changes a file the moment it is mapped (fault_shim.c): a
# cut at a known place every run.  Not under the sanitizers (their
# runtime must come first in the process).
SHIM="$T/fault_shim.so"
# (clang links its sanitizer runtimes in statically: ldd does not show them)
SANITIZED=
if [ -n "${AFMT_SANITIZED:-}" ] || ldd "$AFMT" 2>/dev/null | grep -q 'libasan\|libtsan' ||
   grep -aq __asan_init "$AFMT"; then
    SANITIZED=1
fi
if [ -n "$SANITIZED" ]; then
    echo "SKIP faults: the LD_PRELOAD cases (the tools are built with a sanitizer)"
    SHIM=
elif ! ${CC:-cc} -shared -fPIC -O2 -o "$SHIM" "$FAULTS/fault_shim.c" -ldl 2> "$T/cc.log"; then
    fail "build the fault shim" "$(head -3 "$T/cc.log")"
    SHIM=
fi
# mapped ACTION SIZE CMD...: run CMD with work.npy (a fresh copy of
# big.npy) changed by ACTION (shrink/grow/vanish) once it is mapped
mapped() {
    local action=$1 size=$2
    shift 2
    cp "$T/big.npy" "$T/work.npy"
    (cd "$T" && AFMT_FAULT_PATH=work.npy AFMT_FAULT_ACTION=$action AFMT_FAULT_SIZE=$size \
        LD_PRELOAD="$SHIM" timeout 60 "$@" > "$T/out" 2> "$T/err")
    RC=$?
    OUT=$(tr -d '\0' < "$T/out")
    ERR=$(cat "$T/err")
}

# ------------------------------------------------------------ 1. cut short
if [ -n "$SHIM" ]; then
    cut="the file was cut short while it was read: no byte at offset"
    was="(it was $BIG_SIZE bytes when opened)"
    # cut to nothing: the first read (detection, or the header) faults
    mapped shrink 0 "$VALIDATE" work.npy
    expect "validate: a file cut to 0 bytes once mapped" 2 "work.npy: error: $cut 0 any more $was"
    mapped shrink 0 "$VALIDATE" --json work.npy
    check "validate --json: the error's offset is 0 and its code io" \
        has "$OUT" '"verdict":"error","format":null,"valid":false,"array_count":0,"arrays":[],"error":{"code":"io","offset":0,'
    for cmd in info dump; do
        mapped shrink 0 "$AFMT" "$cmd" work.npy
        expect "$cmd: a file cut to 0 bytes once mapped: an error, not SIGBUS" 2 "work.npy: error: $cut 0 any more $was"
    done
    # cut at 8192: the header is read, the payload is gone
    mapped shrink 8192 "$AFMT" dump work.npy
    expect "dump: the payload cut at 8192: the offset named" 2 "afmt dump: work.npy: error: $cut 8192 any more $was"
    mapped shrink 8192 "$AFMT" info work.npy
    expect "info: the payload cut at 8192: no verdict on bytes no longer there" 2 \
        "work.npy: error: the file changed size while it was read ($BIG_SIZE bytes, now 8192)"
    mapped shrink 8192 "$VALIDATE" --json work.npy
    check "validate --json: a file that changed size names where it now ends" \
        has "$OUT" '"error":{"code":"io","offset":8192,'
    # convert: a cast (read by the CPU) and a plain copy (by the kernel,
    # or write() from the mapping: EFAULT, "Bad address", before)
    for how in "--dtype f32 --allow-lossy" "" "--to npy"; do
        rm -f "$T"/out.*
        # OUT named for its format (--to against the extension is refused)
        out=out.npy
        [ "$how" = "--to safetensors" ] && out=out.safetensors
        # shellcheck disable=SC2086 # how is a list of options
        mapped shrink 8192 "$AFMT" convert $how work.npy $out
        expect "convert ${how:-(copy)}: the input cut at 8192 while written" 2 "afmt convert: work.npy: error: $cut 8192 any more $was"
        check "convert ${how:-(copy)}: no output and no temporary file after the cut" \
            test ! -e "$T/$out" -a -z "$(ls "$T" | grep "^$out\.")"
    done
    mapped shrink 8192 "$AFMT" convert --to npy work.npy -
    expect "convert to standard output: the input cut at 8192" 2 "afmt convert: work.npy: error: $cut 8192 any more $was"
    check "never killed by SIGBUS (status 135)" test "$RC" != 135
    # grown or gone once mapped
    mapped grow 100 "$VALIDATE" work.npy
    expect "validate: a file grown while read gets no verdict" 2 \
        "work.npy: error: the file changed size while it was read ($BIG_SIZE bytes, now $((BIG_SIZE + 100)))"
    mapped vanish 0 "$VALIDATE" work.npy
    if [ "$RC" = 0 ] && has "$OUT" "work.npy: ok npy" && [ ! -e "$T/work.npy" ]; then
        pass "validate: a file removed once mapped is judged on its bytes (still mapped)"
    else
        fail "validate: a file removed once mapped" "status $RC: $OUT $ERR"
    fi
fi

# A real race, no shim: the file cut and rewritten over and over while
# the tools read it.  Whatever the timing, a verdict or an error (0, 1 or
# 2), never a death by signal.
cp "$T/big.npy" "$T/race.npy"
touch "$T/race.go"
( while [ -e "$T/race.go" ]; do
      truncate -s 4096 "$T/race.npy" 2> /dev/null
      cat "$T/big.npy" > "$T/race.npy" 2> /dev/null
  done ) &
racer=$!
statuses=""
for i in 1 2 3 4 5; do
    for cmd in "$VALIDATE" "$AFMT info" "$AFMT dump" "$AFMT convert --to safetensors"; do
        out=
        case $cmd in *convert*) out="$T/race_out.safetensors" ;; esac
        # shellcheck disable=SC2086 # cmd is a command line
        { timeout 60 $cmd "$T/race.npy" $out > /dev/null 2>> "$T/race.err"; } 2> /dev/null
        statuses="$statuses $?"
    done
done
rm -f "$T/race.go"
wait "$racer" 2> /dev/null
rm -f "$T/race.npy"
if printf '%s\n' $statuses | grep -qv '^[012]$' || grep -q "Bus error" "$T/race.err"; then
    fail "20 runs on a file cut and rewritten meanwhile: never a signal" "statuses:$statuses"
else
    pass "20 runs on a file cut and rewritten meanwhile: never a signal (statuses:$statuses)"
fi
no_leftovers "the runs on a file cut meanwhile leave no temporary output" "$T" race_out.safetensors

# ------------------------------------------------------------ 2. signals
# A signal at the commit (the shim raises it in fsync, OUT.XXXXXX written
# whole): the temporary file goes, the status stays 128 + N.
sig_shim="$T/sig_shim.so"
cat > "$T/sig_shim.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
int fsync(int fd)
{
    int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    const char *sig = getenv("AFMT_FAULT_SIGNAL");
    if (sig)
        raise(atoi(sig));
    return real(fd);
}
EOF
if [ -n "$SHIM" ] && ${CC:-cc} -shared -fPIC -O2 -o "$sig_shim" "$T/sig_shim.c" -ldl 2> /dev/null; then
    for sig in INT TERM HUP; do
        n=$(kill -l "$sig")
        rm -f "$T"/sig.*
        echo "the old file" > "$T/sig.npy"
        # (the shell's own "Hangup" / "Terminated" notes go to /dev/null)
        { (cd "$T" && AFMT_FAULT_SIGNAL=$n LD_PRELOAD="$sig_shim" with_default_signals \
            "$AFMT" convert --to npy big.npy sig.npy > /dev/null 2>&1); } 2> /dev/null
        RC=$?
        check "convert: SIG$sig at the commit: the process dies of it (status $((128 + n)))" test "$RC" = $((128 + n))
        no_leftovers "convert: SIG$sig at the commit: no temporary file left" "$T" sig.npy
        check "convert: SIG$sig at the commit: the old OUT is unchanged" test "$(cat "$T/sig.npy")" = "the old file"
    done
fi
# The same mid-write, with real timing: a slow conversion (a cast of 256
# MiB) signalled once its temporary file exists.
python3 -c "
import struct
n = 32 << 20
h = \"{'descr': '<f8', 'fortran_order': False, 'shape': (%d,), }\" % n
h += ' ' * (127 - 10 - len(h)) + '\n'
with open('$T/slow.npy', 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode())
    f.truncate(128 + 8 * n)
"
for sig in INT TERM HUP; do
    n=$(kill -l "$sig")
    rm -f "$T"/slow_out.*
    with_default_signals "$AFMT" convert --dtype f16 --allow-lossy "$T/slow.npy" "$T/slow_out.npy" > /dev/null 2>&1 &
    pid=$!
    for _ in $(seq 1000); do
        ls "$T"/slow_out.npy.* > /dev/null 2>&1 && break
        sleep 0.005
    done
    started=$(ls "$T" | grep -c '^slow_out\.npy\.')
    kill -"$sig" "$pid" 2> /dev/null
    { wait "$pid"; } 2> /dev/null
    RC=$?
    if [ "$started" = 0 ] || [ "$RC" = 0 ]; then
        echo "SKIP faults: SIG$sig mid-write: the conversion ended before the signal (status $RC)"
        continue
    fi
    check "convert: SIG$sig mid-write: status $((128 + n))" test "$RC" = $((128 + n))
    no_leftovers "convert: SIG$sig mid-write: the temporary file (up to 64 MiB) is removed" "$T" slow_out.npy
    check "convert: SIG$sig mid-write: no OUT" test ! -e "$T/slow_out.npy"
done
rm -f "$T/slow.npy"

# ------------------------------------------------------------ ENOSPC
MNT="$T/mnt"
mkdir -p "$MNT"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=1m tmpfs "$MNT" 2> /dev/null; then
    trap 'umount "$MNT" 2> /dev/null; rm -rf "$T"' EXIT
    for target in out.npy out.npz; do
        run "$AFMT" convert "$T/big.npy" "$MNT/$target"
        expect "ENOSPC: convert to $target on a full tmpfs says why" 2 "No space left on device"
        no_leftovers "ENOSPC: convert to $target leaves no temporary file" "$MNT" "$target"
        check "ENOSPC: convert to $target leaves no OUT" test ! -e "$MNT/$target"
    done
    umount "$MNT"
else
    echo "SKIP faults: ENOSPC cases (cannot mount a tmpfs here: needs root and mount permission)"
fi

# ------------------------------------------------------------ /dev/full
if [ -w /dev/full ]; then
    for cmd in "$VALIDATE --help" "$VALIDATE -V" "$AFMT --help" "$AFMT -V" "$AFMT info --help" \
               "$AFMT convert --help" "$AFMT formats" "$VALIDATE $T/small.npy" \
               "$AFMT info $T/small.npy" "$AFMT dump $T/small.npy" "$AFMT convert --to npy $T/small.npy -"; do
        # shellcheck disable=SC2086 # cmd is a command line
        timeout 60 $cmd > /dev/full 2> "$T/err"
        RC=$?
        ERR=$(cat "$T/err")
        expect "/dev/full: ${cmd#"$BUILD"/} exits 2 and says so" 2 "error writing standard output"
    done
else
    echo "SKIP faults: /dev/full cases (no writable /dev/full)"
fi

# ------------------------------------------------------------ names
N="$T/names"
mkdir -p "$N"
cp "$T/small.npy" "$N/$(printf 'evil\nmodel.safetensors: ok safetensors f32[1] row-major')"
cp "$T/small.npy" "$N/$(printf 'tab\there.npy')"
cp "$T/small.npy" "$N/$(printf 'bad\377name.npy')"
cp "$T/small.npy" "$N/-leading-dash.npy"
printf 'not an array at all' > "$N/$(printf 'broken\n.npy')"
run "$VALIDATE" -r "$N"
lines=$(printf '%s\n' "$OUT" | wc -l)
check "names: one line per file (4 ok, 1 invalid), none forged by a newline" \
    test "$lines" = 5 -a "$(printf '%s\n' "$OUT" | grep -c ': ok npy')" = 4
check "names: a newline is quoted, as git quotes it" \
    has "$OUT" "\"$N/evil\\nmodel.safetensors: ok safetensors f32[1] row-major\": ok npy"
check "names: a tab is quoted" has "$OUT" "\"$N/tab\\there.npy\": ok npy"
check "names: a byte not UTF-8 is quoted in octal" has "$OUT" "\"$N/bad\\377name.npy\": ok npy"
check "names: a plain name is not quoted" has "$OUT" "$N/-leading-dash.npy: ok npy"
run "$VALIDATE" -q "$N/$(printf 'broken\n.npy')"
check "names: -q: the invalid file's line is quoted, one line" \
    test "$(printf '%s\n' "$OUT" | wc -l)" = 1 -a -n "$(printf '%s' "$OUT" | grep -F "\"$N/broken\\n.npy\": invalid")"
run "$VALIDATE" --json -r "$N"
printf '%s\n' "$OUT" | python3 -c '
import base64, json, os, sys
want = set(os.listdir(sys.argv[1].encode()))
got = set()
for line in sys.stdin:
    o = json.loads(line)
    raw = base64.b64decode(o["path_bytes"]) if "path_bytes" in o else o["path"].encode()
    got.add(os.path.basename(raw))
    if "path_bytes" in o and "\ufffd" not in o["path"]:
        sys.exit("path_bytes beside a path that is UTF-8: %r" % o)
sys.exit(0 if got == want else "names: %r != %r" % (got, want))' "$N" 2> "$T/py.err"
check "names: --json keeps every name recoverable (path_bytes for the one not UTF-8)" test ! -s "$T/py.err"
run "$VALIDATE" -- "-leading-dash.npy"
(cd "$N" && timeout 60 "$VALIDATE" -- -leading-dash.npy > "$T/out" 2>&1)
check "names: a leading dash after -- is a file" grep -q "^-leading-dash.npy: ok npy" "$T/out"
(cd "$N" && timeout 60 "$AFMT" convert -- -leading-dash.npy -out.ten > "$T/out" 2>&1)
check "names: convert -- -IN -OUT writes -OUT" test -s "$N/-out.ten"
run "$AFMT" info "$N/$(printf 'broken\n.npy')"
check "names: afmt info's report quotes the name" has "$OUT" "\"$N/broken\\n.npy\": npy, 19 bytes, invalid"
run "$AFMT" dump "$N/$(printf 'broken\n.npy')"
check "names: afmt dump's message quotes the name" has "$ERR" "\"$N/broken\\n.npy\": invalid npy"

# ------------------------------------------------------------ -r skips
S="$T/special"
mkdir -p "$S"
mkfifo "$S/fifo.npy"
ln -s /dev/null "$S/null.npy"
cp "$T/small.npy" "$S/real.npy"
run "$VALIDATE" -r -v "$S"
check "-r -v: a FIFO met in a walk is listed as skipped" has "$ERR" "$S/fifo.npy: skipped: a FIFO"
check "-r -v: a link to a device is listed as skipped" has "$ERR" "$S/null.npy: skipped: a character device"
check "-r -v: the regular file is checked" has "$OUT" "$S/real.npy: ok npy"
run "$VALIDATE" -r "$S"
check "-r without -v: skipped files are not listed" test -z "$ERR" -a "$RC" = 0

# ------------------------------------------------------------ ulimit -v
# A file larger than the address space allowed: bounded by what the
# checks need, as a pipe is (issue 35 point 4).
python3 -c "
import struct
n = (3 << 30) // 8
h = \"{'descr': '<f8', 'fortran_order': False, 'shape': (%d,), }\" % n
h += ' ' * (127 - 10 - len(h)) + '\n'
with open('$T/huge.npy', 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode())
    f.truncate(128 + 8 * n)
"
if [ -n "$SANITIZED" ]; then
    # ASan reserves terabytes of address space for its shadow at start-up
    echo "SKIP faults: ulimit -v (the tools are built with a sanitizer, which needs more address space than any limit)"
else
(ulimit -v $((2 << 20)); timeout 120 "$VALIDATE" "$T/huge.npy" > "$T/out" 2> "$T/err")
RC=$?
OUT=$(cat "$T/out")
ERR=$(cat "$T/err")
if [ "$RC" = 0 ] && has "$OUT" "huge.npy: ok npy"; then
    pass "ulimit -v 2 GiB: a 3 GiB file validates"
else
    fail "ulimit -v 2 GiB: a 3 GiB file validates" "status $RC: $OUT $ERR"
fi
(ulimit -v $((512 << 10)); timeout 120 "$VALIDATE" "$T/huge.npy" > "$T/out" 2> "$T/err")
RC=$?
OUT=$(cat "$T/out")
ERR=$(cat "$T/err")
if [ "$RC" = 0 ] && has "$OUT" "huge.npy: ok npy"; then
    pass "ulimit -v 512 MiB: a 3 GiB file validates, read by offset through the window"
else
    fail "ulimit -v 512 MiB: a 3 GiB file validates" "status $RC: $OUT $ERR"
fi
fi
rm -f "$T/huge.npy"

# A file whose header does not fit the 32 MiB window (20 GGUF keys of
# 2 MiB) is validated from a map of it instead: the verdict never depends
# on the window (a limit error before the fallback).
python3 "$REPO/tests/e2e/gen_gguf_keys.py" "$T/wide.gguf" 20 2097152
python3 "$REPO/tests/e2e/gen_gguf_keys.py" "$T/wide_dup.gguf" 20 2097152 2 17
RC=0
OUT=$("$VALIDATE" "$T/wide.gguf" 2>&1) || RC=$?
if [ "$RC" = 0 ] && has "$OUT" "wide.gguf: ok gguf"; then
    pass "a 40 MiB header, more than the window: validated from a map"
else
    fail "a 40 MiB header, more than the window: validated from a map" "status $RC: $OUT"
fi
RC=0
OUT=$("$VALIDATE" "$T/wide_dup.gguf" 2>&1) || RC=$?
if [ "$RC" = 1 ] && has "$OUT" 'kv[17].key at offset 35651829: duplicate key "k000002x' &&
    has "$OUT" "kv[2].key (offset 4194354) has it too"; then
    pass "a duplicate key in a 40 MiB header: found from the map, named at its offset"
else
    fail "a duplicate key in a 40 MiB header" "status $RC: $OUT"
fi
rm -f "$T/wide.gguf" "$T/wide_dup.gguf"
# a torch checkpoint of 42 MB: a zip, read whole, more than the window
if "$AFMT" random --to torch '[3000][3500]f32' -o "$T/wide.pth" 2> "$T/err"; then
    RC=0
    OUT=$("$VALIDATE" "$T/wide.pth" 2>&1) || RC=$?
    if [ "$RC" = 0 ] && has "$OUT" "wide.pth: ok torch f32[3000,3500]"; then
        pass "a 42 MB zip (torch), read whole, more than the window: validated from a map"
    else
        fail "a 42 MB zip (torch), more than the window" "status $RC: $OUT"
    fi
else
    fail "afmt random --to torch" "$(head -c 300 "$T/err")"
fi
rm -f "$T/wide.pth"

# ------------------------------------------------------------ 10,000 files
M="$T/many"
mkdir -p "$M"
python3 - "$M" "$T/small.npy" <<'EOF'
import os, sys
d, src = sys.argv[1], open(sys.argv[2], "rb").read()
for i in range(10000):
    if i == 5000:
        os.symlink("f05000.npy", os.path.join(d, "f05000.npy"))  # unreadable: ELOOP
        continue
    with open(os.path.join(d, "f%05d.npy" % i), "wb") as f:
        f.write(src)
EOF
(cd "$M" && ls | sort > "$T/list" && timeout 120 "$VALIDATE" -j 2 --files-from "$T/list" > "$T/out" 2> "$T/err")
RC=$?
check "10,000 files, one unreadable: exit status 2" test "$RC" = 2
check "10,000 files: 9,999 verdicts, in order" \
    test "$(grep -c ': ok npy' "$T/out")" = 9999 -a "$(sed -n 5000p "$T/out" | cut -d: -f1)" = f04999.npy \
         -a "$(sed -n 5001p "$T/out" | cut -d: -f1)" = f05001.npy
check "10,000 files: the unreadable one named with its reason" \
    grep -q "^f05000.npy: error: Too many levels of symbolic links" "$T/err"
rm -rf "$M"

exit $FAILED
