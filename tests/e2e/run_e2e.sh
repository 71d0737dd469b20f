#!/usr/bin/env bash
# End-to-end tests of build/afmt-validate and build/afmt.
# Usage: tests/e2e/run_e2e.sh [BUILD_DIR]   (default: build)
# Prints one "PASS name" or "FAIL name: reason" line per check; exits 1 if
# any check failed.  Needs python3 (JSON parsing, tar shards).
set -u

. "$(dirname "$0")/lib.sh" "$@"
# Inputs from the repository alone (a plain clone has no ../shared): the
# corpus's copies of reference samples, and files made below.
SAMPLES="$REPO/corpus"
# an f64 [4,4] RawArray whose values do not fit i8 exactly (fractions)
python3 "$HERE/make_f64_ra.py" "$T/f64_4x4.ra"

RA="$SAMPLES/rawarray/test.ra"
FUT="$SAMPLES/futhark/i32_2x3.bin"
RA_OK="$RA: ok rawarray c64[3,4] column-major"
FUT_OK="$FUT: ok futhark i32[2,3] row-major"

# ------------------------------------------------------------------ help
run "$VALIDATE" --help
expect_rc validate-help-exit-0 0
expect_out_has validate-help-usage "Usage: afmt-validate"
expect_out_has validate-help-exit-status "Exit status"
run "$VALIDATE" --version
expect_rc validate-version 0
run "$AFMT" --help
expect_rc afmt-help-exit-0 0
expect_out_has afmt-help-commands "convert"
for c in formats info dump convert validate; do
    run "$AFMT" "$c" --help
    expect_rc "afmt-$c-help" 0
done
run "$AFMT" help dump
expect_out_has afmt-help-command "Usage: afmt dump"

# ------------------------------------------------------------------ usage
run "$VALIDATE" --no-such-option "$RA"
expect_rc bad-option-exit-2 2
expect_err_has bad-option-message "unknown option"
run "$VALIDATE" -j
expect_rc option-missing-value 2
run "$VALIDATE"
expect_rc no-input-exit-2 2
run "$VALIDATE" --format no-such-format "$RA"
expect_rc unknown-format-exit-2 2
expect_err_has unknown-format-lists-known "rawarray"
run "$VALIDATE" --max-bytes lots "$RA"
expect_rc bad-max-bytes-exit-2 2
run "$AFMT" frobnicate
expect_rc afmt-unknown-command 2
run "$AFMT"
expect_rc afmt-no-command 2

# ------------------------------------------------------------------ the first two formats
run "$VALIDATE" "$RA"
expect_out rawarray-test-ra "$RA_OK"
expect_rc rawarray-test-ra-exit-0 0
run "$VALIDATE" "$FUT"
expect_out futhark-i32-2x3 "$FUT_OK"
run "$VALIDATE" "$RA" "$FUT"
expect_out two-files-in-order "$RA_OK
$FUT_OK"
expect_rc all-valid-exit-0 0
run "$VALIDATE" -v "$RA"
expect_out verbose-lists-arrays "$RA_OK
  [0] c64[3,4] column-major offset=64"
run "$AFMT" info "$RA"
expect_out info-fields-and-arrays "$RA: rawarray, 160 bytes, valid
      offset  width  type  field                        value
           0      8  bytes magic                        \"rawarray\"
           8      8  u64le flags                        0
          16      8  u64le eltype                       4
          24      8  u64le elbyte                       8
          32      8  u64le size                         96  -- data length in bytes: compressed length when flags bit 1 is set
          40      8  u64le ndims                        2
          48     16  u64le dims                         [3, 4]
  array [0] c64[3,4] column-major, bytes 64..160 (96 bytes)"
cat "$FUT" "$SAMPLES/futhark/i8_2.bin" > "$T/two.bin"
run "$VALIDATE" "$T/two.bin"
expect_out several-arrays-plus-more "$T/two.bin: ok futhark i32[2,3] row-major (+1 more)"
run "$VALIDATE" -v "$T/two.bin"
expect_out several-arrays-verbose "$T/two.bin: ok futhark i32[2,3] row-major (+1 more)
  [0] i32[2,3] row-major offset=23
  [1] i8[2] row-major offset=62"
run "$AFMT" dump --list "$T/two.bin"
expect_out dump-several-arrays "# [0] i32[2,3] row-major
0
1
2
3
4
5
# [1] i8[2] row-major
-128
127"
run "$VALIDATE" --lenient "$RA"
expect_out lenient-accepted "$RA_OK"
run "$VALIDATE" --strict --max-rank 2 "$RA"
expect_rc max-rank-2-ok 0
run "$VALIDATE" --max-rank 1 "$RA"
expect_rc max-rank-1-invalid 1
run "$VALIDATE" --format futhark "$RA"
expect_rc forced-format-invalid 1
expect_out_has forced-format-named "$RA: invalid futhark: "

# ------------------------------------------------------------------ --lenient
# A futhark bool byte that is neither 0 nor 1: strict rejects, lenient warns.
python3 -c '
import sys
d = bytearray(open(sys.argv[1], "rb").read()); d[-1] = 2
open(sys.argv[2], "wb").write(d)' "$SAMPLES/futhark/bool_3.bin" "$T/badbool.bin"
run "$VALIDATE" "$T/badbool.bin"
expect_rc strict-bad-bool-exit-1 1
expect_out_has strict-bad-bool-invalid "$T/badbool.bin: invalid futhark: "
run "$VALIDATE" --lenient "$T/badbool.bin"
expect_rc lenient-bad-bool-exit-0 0
expect_out lenient-warning-count "$T/badbool.bin: ok futhark bool[3] row-major (1 warning)"
run "$VALIDATE" --lenient -v "$T/badbool.bin"
expect_out_has lenient-verbose-warning-line "  warning: "
run "$VALIDATE" --lenient --json "$T/badbool.bin"
if printf '%s\n' "$OUT" | python3 -c '
import json, sys
o = json.loads(sys.stdin.readline())
assert o["valid"] is True and len(o["warnings"]) == 1, o
w = o["warnings"][0]
assert set(w) >= {"code", "offset", "field", "message"}, w
' 2> "$T/py.err"; then pass lenient-json-warnings; else
    fail lenient-json-warnings "$(tail -1 "$T/py.err") in: ${OUT:0:300}"; fi

# ------------------------------------------------------------------ errors
run "$VALIDATE" "$T/nope.ra"
expect_rc missing-file-exit-2 2
expect_err_has missing-file-message "$T/nope.ra: error: No such file or directory"
# Fixed bytes, not /dev/urandom: random bytes that happen to start like a
# Futhark text value (about one file in four) get a closest-match verdict,
# and this check must not depend on chance.  0xff starts no known format.
python3 -c 'import random, sys; r = random.Random(7)
sys.stdout.buffer.write(bytes([0xff]) + bytes(r.randrange(256) for _ in range(4095)))' > "$T/garbage.bin"
printf 'not an array at all\n' >> "$T/garbage.bin"
run "$VALIDATE" "$T/garbage.bin"
expect_rc garbage-exit-1 1
expect_out garbage-invalid "$T/garbage.bin: invalid: no known format matches (magic or extension)"
head -c 200 /dev/urandom > "$T/garbage.ra"
run "$VALIDATE" "$T/garbage.ra"
expect_rc garbage-ra-exit-1 1
expect_out_has garbage-ra-invalid "$T/garbage.ra: invalid rawarray: "
: > "$T/empty"
run "$VALIDATE" "$T/empty"
expect_rc empty-file-invalid 1
head -c 100 "$RA" > "$T/truncated.ra"
run "$VALIDATE" "$T/truncated.ra"
expect_rc truncated-invalid 1
expect_out_has truncated-says-offset "at offset"
run "$VALIDATE" "$RA" "$T/garbage.bin"
expect_rc valid-and-invalid-exit-1 1
run "$VALIDATE" "$RA" "$T/garbage.bin" "$T/nope.ra"
expect_rc io-error-wins-exit-2 2
expect_out_has io-error-others-reported "$RA_OK"

# ------------------------------------------------------------------ directories
mkdir -p "$T/dir/sub"
cp "$RA" "$T/dir/b.ra"
cp "$FUT" "$T/dir/a.bin"
cp "$RA" "$T/dir/sub/c.ra"
printf 'notes\n' > "$T/dir/README"
run "$VALIDATE" "$T/dir"
expect_rc dir-without-r-exit-2 2
expect_err_has dir-without-r-message "$T/dir: error: is a directory (-r checks the files in it)"
run "$VALIDATE" -r "$T/dir"
expect_rc recursive-exit-0 0
expect_out recursive-sorted "$T/dir/a.bin: ok futhark i32[2,3] row-major
$T/dir/b.ra: ok rawarray c64[3,4] column-major
$T/dir/sub/c.ra: ok rawarray c64[3,4] column-major"
ln -s .. "$T/dir/sub/up"
run "$VALIDATE" -r "$T/dir"
expect_rc recursive-symlink-loop-terminates 0
cp "$T/garbage.ra" "$T/dir/sub/d.ra"
run "$VALIDATE" -r "$T/dir"
expect_rc recursive-invalid-exit-1 1
expect_out_has recursive-invalid-reported "$T/dir/sub/d.ra: invalid rawarray"

# ------------------------------------------------------------------ -q
run "$VALIDATE" -q "$RA" "$FUT"
expect_out quiet-valid-silent ""
expect_rc quiet-valid-exit-0 0
run "$VALIDATE" -q "$RA" "$T/garbage.bin" "$FUT"
expect_out quiet-only-invalid "$T/garbage.bin: invalid: no known format matches (magic or extension)"

# ------------------------------------------------------------------ --json
run "$VALIDATE" --json "$RA" "$FUT" "$T/garbage.bin" "$T/truncated.ra" "$T/nope.ra"
expect_rc json-exit-2 2
if printf '%s\n' "$OUT" | python3 -c '
import json, sys
objs = [json.loads(l) for l in sys.stdin]
assert len(objs) == 5, len(objs)
for o in objs:
    for k in ("path", "format", "valid", "arrays", "error", "warnings"):
        assert k in o, (k, o)
a = objs[0]
assert a["format"] == "rawarray" and a["valid"] is True and a["error"] is None
assert a["arrays"][0]["dtype"] == "c64" and a["arrays"][0]["shape"] == [3, 4]
assert a["arrays"][0]["order"] == "column-major"
for k in ("index", "name", "offset", "nbytes"):
    assert k in a["arrays"][0], k
assert objs[1]["arrays"][0]["shape"] == [2, 3] and objs[1]["format"] == "futhark"
g = objs[2]
assert g["valid"] is False and g["format"] is None and g["error"]["code"] == "detect"
t = objs[3]
assert t["valid"] is False and t["format"] == "rawarray"
for k in ("code", "offset", "field", "message"):
    assert k in t["error"], k
assert objs[4]["error"]["code"] == "io"
' 2> "$T/py.err"; then pass json-parses-with-keys; else
    fail json-parses-with-keys "$(tail -1 "$T/py.err") in: ${OUT:0:400}"; fi
weird="$T/we\"ird	name\\x.ra"
cp "$RA" "$weird"
run "$VALIDATE" --json "$weird"
if printf '%s\n' "$OUT" | python3 -c '
import json, sys
o = json.loads(sys.stdin.readline())
assert o["path"].endswith("we\"ird\tname\\x.ra"), o["path"]
' 2> "$T/py.err"; then pass json-escapes-path; else
    fail json-escapes-path "$(tail -1 "$T/py.err") in: ${OUT:0:300}"; fi
# every escape: newline, carriage return, a control byte, a byte that is not UTF-8
odd="$T/$(printf 'o\nd\rd\001\377\303\251')"
cp "$RA" "$odd"
run "$VALIDATE" --json "$odd"
if printf '%s\n' "$OUT" | python3 -c '
import json, sys
line = sys.stdin.readline()
assert "\\n" in line and "\\r" in line and "\\u0001" in line and "\\ufffd" in line, line
o = json.loads(line)
assert o["path"].endswith("o\nd\rd\x01\ufffd\u00e9"), repr(o["path"])
' 2> "$T/py.err"; then pass json-escapes-controls-and-bad-utf8; else
    fail json-escapes-controls-and-bad-utf8 "$(tail -1 "$T/py.err") in: ${OUT:0:300}"; fi
# a cut or ill-formed sequence is one U+FFFD for its maximal subpart, as
# Python, JavaScript's TextDecoder (@huggingface/gguf) and Unicode's
# recommended practice decode it: a 3-byte lead and one continuation
# byte, then ".", is one U+FFFD (it was two); a surrogate's ED A0 80 and a
# lone continuation byte are one each per byte
cut="$T/$(printf 'c\343\251.\355\240\200\200x\360\237\230')"
cp "$RA" "$cut"
run "$VALIDATE" --json "$cut"
if printf '%s\n' "$OUT" | python3 -c '
import json, os, sys
o = json.loads(sys.stdin.readline())
want = os.fsencode(sys.argv[1]).decode("utf-8", errors="replace")
assert o["path"] == want and o["path"].endswith("c\ufffd.\ufffd\ufffd\ufffd\ufffdx\ufffd"), (o["path"], want)
' "$cut" 2> "$T/py.err"; then pass json-bad-utf8-maximal-subparts; else
    fail json-bad-utf8-maximal-subparts "$(tail -1 "$T/py.err") in: ${OUT:0:300}"; fi

# ------------------------------------------------------------------ stdin
run_in "$RA" "$VALIDATE" -
expect_out stdin-dash "-: ok rawarray c64[3,4] column-major"
expect_rc stdin-dash-exit-0 0
cat "$FUT" | "$VALIDATE" - > "$T/out" 2> "$T/err"
RC=$?
OUT=$(cat "$T/out")
expect_out stdin-pipe "-: ok futhark i32[2,3] row-major"
run_in "$T/garbage.bin" "$VALIDATE" -
expect_rc stdin-garbage-exit-1 1
if command -v mkfifo > /dev/null; then
    mkfifo "$T/fifo.ra"
    (cat "$RA" > "$T/fifo.ra") &
    run "$VALIDATE" "$T/fifo.ra"
    wait
    expect_out fifo-read-as-stream "$T/fifo.ra: ok rawarray c64[3,4] column-major"
fi

# ------------------------------------------------------------------ --max-bytes
run "$VALIDATE" --max-bytes 100 "$RA"
expect_rc max-bytes-file-exit-1 1
expect_out_has max-bytes-file-message "$RA: invalid rawarray: "
run "$VALIDATE" --json --max-bytes 100 "$RA"
if printf '%s\n' "$OUT" | python3 -c '
import json, sys
o = json.loads(sys.stdin.readline())
assert o["valid"] is False and o["error"]["code"] == "limit", o
' 2> "$T/py.err"; then pass max-bytes-code-limit; else
    fail max-bytes-code-limit "$(tail -1 "$T/py.err") in: ${OUT:0:300}"; fi
run "$VALIDATE" --max-bytes 1k "$RA"
expect_rc max-bytes-suffix-ok 0
run_in "$RA" "$VALIDATE" --max-bytes 100 -
expect_rc max-bytes-stdin-exit-1 1
expect_out_has max-bytes-stdin-message "-: invalid rawarray: "

# ------------------------------------------------------------------ -j
mkdir -p "$T/many"
for i in $(seq -w 1 60); do
    if [ $((10#$i % 7)) -eq 0 ]; then cp "$T/garbage.ra" "$T/many/f$i.ra"
    elif [ $((10#$i % 2)) -eq 0 ]; then cp "$FUT" "$T/many/f$i.bin"
    else cp "$RA" "$T/many/f$i.ra"; fi
done
run "$VALIDATE" "$T"/many/*
ONE=$OUT
ONE_RC=$RC
run "$VALIDATE" -j 2 "$T"/many/* "$T/nope.ra" "$T"/many/*
J2=$OUT
run "$VALIDATE" -j 1 "$T"/many/* "$T/nope.ra" "$T"/many/*
if [ "$J2" = "$OUT" ] && [ -n "$ONE" ] && [ "$ONE_RC" -eq 1 ]; then pass jobs-2-keeps-order; else
    fail jobs-2-keeps-order "-j 2 output differs from -j 1"; fi
run "$VALIDATE" -j 4 -r "$T/many"
if [ "$OUT" = "$ONE" ]; then pass jobs-4-recursive-order; else
    fail jobs-4-recursive-order "-j 4 -r output differs from the sequential one"; fi
run "$VALIDATE" -j 3 --json "$T"/many/*
if printf '%s\n' "$OUT" | python3 -c '
import json, sys
objs = [json.loads(l) for l in sys.stdin]
paths = [o["path"] for o in objs]
assert paths == sorted(paths) and len(paths) == 60, paths
' 2> "$T/py.err"; then pass jobs-json-order; else
    fail jobs-json-order "$(tail -1 "$T/py.err")"; fi
# Enough inputs for full batches (32) on every thread, with invalid and
# missing ones among them: the same output, in order, with any -j.
mkdir -p "$T/lots"
printf 'b\002\001 i32\001\000\000\000\000\000\000\000\007\000\000\000' > "$T/lots/0.bin"
for i in $(seq 1 399); do
    if [ $((i % 97)) -eq 0 ]; then printf 'garbage' > "$T/lots/$i.bin"
    else cp "$T/lots/0.bin" "$T/lots/$i.bin"; fi
done
LOTS=$(cd "$T/lots" && ls | sort -n | sed "s|^|$T/lots/|")
# shellcheck disable=SC2086
run "$VALIDATE" -j 1 $LOTS "$T/nope.bin" $LOTS
LOTS_ONE=$OUT$ERR
for j in 2 3 5; do
    # shellcheck disable=SC2086
    run "$VALIDATE" -j $j $LOTS "$T/nope.bin" $LOTS
    if [ "$OUT$ERR" = "$LOTS_ONE" ] && [ "$RC" -eq 2 ]; then pass "jobs-$j-batches-keep-order"; else
        fail "jobs-$j-batches-keep-order" "output differs from -j 1 (rc $RC)"; fi
done
# shellcheck disable=SC2086
run "$VALIDATE" $LOTS
if [ "$OUT" = "$(printf '%s\n' "$LOTS_ONE" | grep -v nope | head -400)" ]; then
    pass jobs-default-keeps-order; else fail jobs-default-keeps-order "default -j output differs"; fi

# ------------------------------------------------------------------ tar shards
python3 - "$SAMPLES" "$T" << 'EOF'
import glob, os, sys, tarfile
samples, t = sys.argv[1], sys.argv[2]
tens = sorted(glob.glob(os.path.join(samples, "tenbin", "*.ten")))
with tarfile.open(os.path.join(t, "shard.tar"), "w") as tar:
    tar.add(os.path.join(samples, "rawarray", "test.ra"), arcname="000000.ra")
    for i, f in enumerate(tens, 1):
        tar.add(f, arcname="%06d.ten" % i)
    tar.add(os.path.join(samples, "README.md"), arcname="README.md")
with tarfile.open(os.path.join(t, "shard.tar.gz"), "w:gz") as tar:
    tar.add(os.path.join(samples, "futhark", "i32_2x3.bin"), arcname="x/000000.bin")
    tar.add(os.path.join(samples, "rawarray", "test.ra"), arcname="x/000001.ra")
with open(os.path.join(t, "tens.txt"), "w") as f:
    for i, p in enumerate(tens, 1):
        f.write("%06d.ten %s\n" % (i, os.path.basename(p)))
EOF
run "$VALIDATE" "$T/shard.tar"
expect_out_has tar-member-rawarray "$T/shard.tar:000000.ra: ok rawarray c64[3,4] column-major"
if printf '%s' "$OUT" | grep -q "README"; then
    fail tar-skips-unknown-members "README.md was checked"
else pass tar-skips-unknown-members; fi
while read -r member base; do
    case "$base" in
    invalid_*) expect_out_has "tar-member-$base" "$T/shard.tar:$member: invalid tenbin" ;;
    *) expect_out_has "tar-member-$base" "$T/shard.tar:$member: ok tenbin" ;;
    esac
done < "$T/tens.txt"
# a member is what its extension says, as WebDataset decodes it: .bin is
# raw bytes to it (and no afmt format's in a shard), so x/000000.bin is not
# parsed
run "$VALIDATE" "$T/shard.tar.gz"
expect_out tar-gz-members "$T/shard.tar.gz:x/000001.ra: ok rawarray c64[3,4] column-major"
run "$VALIDATE" --max-bytes 100 "$T/shard.tar.gz"
expect_rc tar-member-max-bytes 1
printf 'this is not a tar archive at all' > "$T/broken.tar"
# a tar is read by afmt's own reader (spec/webdataset.json): a verdict, not
# an error of a library
run "$VALIDATE" "$T/broken.tar"
expect_rc tar-broken-exit-1 1
expect_out tar-broken-message "$T/broken.tar: invalid webdataset: archive.block[0] at offset 0: needs 512 bytes for a header block, only 32 left"

# A shard on standard input is recognised by its ustar magic (or as a
# compressed stream), from a pipe or a redirected file.
run sh -c "cat '$T/shard.tar' | '$VALIDATE' -"
expect_out_has tar-stdin-pipe-member "-:000000.ra: ok rawarray c64[3,4] column-major"
run_in "$T/shard.tar" "$VALIDATE" -
expect_out_has tar-stdin-file-member "-:000000.ra: ok rawarray c64[3,4] column-major"
run sh -c "cat '$T/shard.tar.gz' | '$VALIDATE' -"
expect_out tar-stdin-gz "-:x/000001.ra: ok rawarray c64[3,4] column-major"

# A shard with no member of an array format is a valid tar that holds no
# arrays (its README.md is ignored, as WebDataset skips what it cannot
# decode).
python3 - "$T" << 'EOF2'
import io, os, sys, tarfile
t = sys.argv[1]
with tarfile.open(os.path.join(t, "nomember.tar"), "w") as tar:
    data = b"just text\n"
    info = tarfile.TarInfo("README.md"); info.size = len(data)
    tar.addfile(info, io.BytesIO(data))
# a shard cut inside its second member (an .npy of 1024 i32: 128 bytes of
# header, 4096 of data)
hdr = b"{'descr': '<i4', 'fortran_order': False, 'shape': (1024,), }"
hdr += b" " * (-(10 + len(hdr) + 1) % 64) + b"\n"
payload = b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr + bytes(4096)
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w") as tar:
    for name, data in (("000000.npy", payload), ("000001.npy", payload)):
        info = tarfile.TarInfo(name); info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
whole = buf.getvalue()
open(os.path.join(t, "whole.tar"), "wb").write(whole)
# first member: header 512 + data padded to 4608; second header at 5120
open(os.path.join(t, "cut.tar"), "wb").write(whole[:5120 + 512 + 1000])
EOF2
run "$VALIDATE" "$T/nomember.tar"
expect_rc tar-no-member-exit-0 0
expect_out tar-no-member-message "$T/nomember.tar: ok webdataset (no arrays)"
run "$VALIDATE" --json "$T/nomember.tar"
expect_rc tar-no-member-json-exit-0 0
if printf '%s' "$OUT" | python3 -c '
import json, sys
o = json.loads(sys.stdin.read())
assert o["valid"] is True and o["format"] == "webdataset" and o["array_count"] == 0 and o["member"] is None, o
' 2> "$T/py.err"; then pass tar-no-member-json; else
    fail tar-no-member-json "$(tail -1 "$T/py.err")"; fi
run "$VALIDATE" "$T/whole.tar"
expect_rc tar-whole-exit-0 0
run "$VALIDATE" "$T/cut.tar"
expect_rc tar-cut-exit-1 1
expect_out_has tar-cut-first-ok "$T/cut.tar:000000.npy: ok npy i32[1024] row-major"
expect_out_has tar-cut-member-named "$T/cut.tar: invalid webdataset: archive[\"000001.npy\"].data at offset 5632: needs 4224 bytes for the member's data, only 1000 left"
run sh -c "cat '$T/cut.tar' | '$VALIDATE' -"
expect_out_has tar-cut-stdin "-: invalid webdataset: archive[\"000001.npy\"].data at offset 5632: needs 4224 bytes for the member's data, only 1000 left"

# libarchive is opened only for compressed shards (to decompress them): a
# start and a plain tar do not load it, and without it a compressed shard
# gets a clear error while other inputs are checked.
if LD_DEBUG=libs "$VALIDATE" -q "$T/shard.tar.gz" 2>&1 >/dev/null | grep -q 'libarchive'; then
    pass tar-loads-libarchive-when-needed
else fail tar-loads-libarchive-when-needed "no libarchive in LD_DEBUG=libs for a compressed shard"; fi
printf 'b\002\001 i32\001\000\000\000\000\000\000\000\007\000\000\000' > "$T/one.bin"
if LD_DEBUG=libs "$VALIDATE" -q "$T/one.bin" "$T/whole.tar" 2>&1 >/dev/null | grep -q 'libarchive'; then
    fail tar-no-libarchive-at-start "libarchive loaded for a plain file or tar"
else pass tar-no-libarchive-at-start; fi
run env AFMT_LIBARCHIVE=/nonexistent/libarchive.so "$VALIDATE" "$T/shard.tar.gz" "$T/one.bin"
expect_rc tar-libarchive-missing-exit-2 2
expect_err_has tar-libarchive-missing-message "$T/shard.tar.gz: error: compressed tar shards need libarchive (/nonexistent/libarchive.so), which cannot be loaded"
expect_out tar-libarchive-missing-others "$T/one.bin: ok futhark i32[1] row-major"

# ------------------------------------------------------------------ afmt formats
run "$AFMT" formats
expect_rc formats-exit-0 0
if printf '%s\n' "$OUT" | grep -E '^rawarray +\.ra +- +one +column-major' > /dev/null; then
    pass formats-rawarray-line; else fail formats-rawarray-line "got: ${OUT:0:400}"; fi
for f in futhark tenbin inebin daphne rawarray; do
    expect_out_has "formats-lists-$f" "$f"
done
if printf '%s\n' "$OUT" | grep -E '^torch +\.pt,\.pth,\.ckpt +\.bin +many' > /dev/null; then
    pass formats-torch-shares-bin; else fail formats-torch-shares-bin "got: ${OUT:0:800}"; fi

# ------------------------------------------------------------------ afmt dump
run "$AFMT" dump --list "$FUT"
expect_out dump-futhark-i32 "# [0] i32[2,3] row-major
0
1
2
3
4
5"
run "$AFMT" dump --list "$RA"
# test.ra stores element k = k - i/k column-major: row-major order visits
# k = 0, 3, 6, 9, 1, ...
if [ "$(printf '%s\n' "$OUT" | head -4)" = "# [0] c64[3,4] column-major
0-infi
3-0.333333343i
6-0.166666672i" ] && [ "$(printf '%s\n' "$OUT" | wc -l)" -eq 13 ]; then
    pass dump-rawarray-row-major; else fail dump-rawarray-row-major "got: ${OUT:0:300}"; fi
run "$AFMT" dump --list "$SAMPLES/futhark/bool_3.bin"
expect_out dump-bool "# [0] bool[3] row-major
true
false
true"
run "$AFMT" dump --list "$SAMPLES/futhark/f32_special_3.bin"
expect_out dump-f32-special "# [0] f32[3] row-major
nan
-inf
0.100000001"
run "$AFMT" dump --list "$SAMPLES/futhark/u64_max_scalar.bin"
expect_out dump-u64-scalar "# [0] u64[] row-major
18446744073709551615"
run_in "$FUT" "$AFMT" dump -
expect_rc dump-stdin 0
run "$AFMT" dump "$T/garbage.ra"
expect_rc dump-invalid-exit-1 1
run "$AFMT" dump "$T/nope.ra"
expect_rc dump-missing-exit-2 2

# ------------------------------------------------------------------ afmt convert
run "$AFMT" convert "$FUT" "$T/c1.ra"
expect_rc convert-futhark-to-rawarray 0
run "$AFMT" dump --list "$T/c1.ra"
expect_out convert-keeps-logical-index "# [0] i32[2,3] column-major
0
1
2
3
4
5"
run "$AFMT" convert --to futhark "$T/c1.ra" "$T/c2.bin"
expect_rc convert-back 0
if cmp -s "$FUT" "$T/c2.bin"; then pass convert-round-trip-bytes; else
    fail convert-round-trip-bytes "futhark -> rawarray -> futhark differs"; fi
run "$AFMT" convert "$RA" "$T/c3.ra"
if [ "$RC" -eq 0 ] && cmp -s "$RA" "$T/c3.ra"; then pass convert-rawarray-identity; else
    fail convert-rawarray-identity "rc $RC, ${ERR:0:200}"; fi
run "$AFMT" convert --to futhark "$RA" "$T/c4.bin"
expect_rc convert-refuses-c64-to-futhark 1
expect_err_has convert-refusal-says-type "c64"
if [ -e "$T/c4.bin" ]; then fail convert-refused-leaves-no-file "c4.bin exists"; else
    pass convert-refused-leaves-no-file; fi
if ls "$T"/c4.bin.* > /dev/null 2>&1; then fail convert-refused-leaves-no-temp "temp left"; else
    pass convert-refused-leaves-no-temp; fi
run "$AFMT" convert --to futhark --dtype i8 "$T/f64_4x4.ra" "$T/c5.bin"
expect_rc convert-lossy-refused 1
expect_err_has convert-lossy-hint "--allow-lossy"
run "$AFMT" convert --to futhark --dtype i8 --allow-lossy "$T/f64_4x4.ra" "$T/c5.bin"
expect_rc convert-allow-lossy 0
run "$AFMT" convert --dtype i64 "$FUT" "$T/c6.ra"
expect_rc convert-dtype-widen 0
run "$VALIDATE" "$T/c6.ra"
expect_out convert-dtype-result "$T/c6.ra: ok rawarray i64[2,3] column-major"
run "$AFMT" convert "$FUT" "$T/c7.unknown-ext"
expect_rc convert-unknown-target-exit-2 2
run "$AFMT" convert --dtype nonsense "$FUT" "$T/c8.ra"
expect_rc convert-bad-dtype-exit-2 2
run "$AFMT" convert "$T/garbage.ra" "$T/c9.ra"
expect_rc convert-invalid-input-exit-1 1
run "$AFMT" convert "$T/nope.ra" "$T/c10.ra"
expect_rc convert-missing-input-exit-2 2
cp "$RA" "$T/keep.out"
run "$AFMT" convert --to futhark "$FUT" "$T/keep.out"
expect_rc convert-over-existing 0
printf 'old' > "$T/keep.out"
run "$AFMT" convert --to futhark "$RA" "$T/keep.out"
if [ "$(cat "$T/keep.out")" = "old" ]; then pass convert-refused-keeps-old-out; else
    fail convert-refused-keeps-old-out "OUT was replaced"; fi
timeout 60 "$AFMT" convert --to rawarray "$RA" - > "$T/stdout.ra" 2> "$T/err"
RC=$?
if [ "$RC" -eq 0 ] && cmp -s "$RA" "$T/stdout.ra"; then pass convert-to-stdout; else
    fail convert-to-stdout "rc $RC: $(head -c 200 "$T/err")"; fi
# Several arrays into a one-array format.
cat "$FUT" "$SAMPLES/futhark/i8_2.bin" > "$T/two.bin"
run "$AFMT" convert "$T/two.bin" "$T/c12.ra"
expect_rc convert-two-values-into-rawarray-refused 1
expect_err_has convert-two-values-message "holds 2 arrays"
run "$AFMT" convert "$SAMPLES/tenbin/two_arrays_i2_u1.ten" "$T/c11.ra"
expect_rc convert-multi-into-single-refused 1
expect_err_has convert-multi-into-single-message "holds 2 arrays"

exit $FAILED
