#!/usr/bin/env bash
# Memory stays small and constant whatever the input claims or how long a
# stream is: each check prints PASS/FAIL lines (counted by tests/run.sh).
set -u
BUILD=${1:-build}
V="$BUILD/afmt-validate"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
LIMIT_KB=65536   # 64 MiB resident at most (issue 4)

rss_of() { # command... ; prints max RSS in kB, exit status in $T/rc
    /usr/bin/time -f "%M" -o "$T/rss" "$@" > "$T/out" 2>&1
    echo $? > "$T/rc"
    tail -n 1 "$T/rss"
}

piped_rss() { # producer command [afmt-validate options]; it reads stdin (only it is measured)
    local producer=$1
    shift
    sh -c "$producer" 2>/dev/null | /usr/bin/time -f "%M" -o "$T/rss" "$V" "$@" - > "$T/out" 2>&1
    echo "${PIPESTATUS[1]}" > "$T/rc"
    tail -n 1 "$T/rss"
}

if [ ! -x /usr/bin/time ]; then
    echo "FAIL memory: /usr/bin/time is missing (make deps-test installs it)"
    exit 0
fi

# 1. a header claiming 2^60 elements in a 100-byte file
python3 - "$T/huge.ra" <<'PY'
import struct, sys
h = b"rawarray" + struct.pack("<6Q", 0, 2, 1, 1 << 60, 2, 1 << 30) + struct.pack("<Q", 1 << 30)
open(sys.argv[1], "wb").write((h + b"x" * 100)[:100])
PY
kb=$(rss_of "$V" "$T/huge.ra")
if [ "$(cat "$T/rc")" = 1 ] && [ "$kb" -lt 16384 ] && grep -q "truncated\|needs" "$T/out"; then
    echo "PASS memory: 2^60 elements in a 100-byte file rejected in ${kb} kB"
else
    echo "FAIL memory: 2^60 elements: rc $(cat "$T/rc"), ${kb} kB: $(head -c 300 "$T/out")"
fi

# 2. a 1 GiB tenbin stream piped in
kb=$(piped_rss "python3 tests/e2e/gen_tenbin_stream.py 16 67108864")
if [ "$(cat "$T/rc")" = 0 ] && [ "$kb" -lt "$LIMIT_KB" ] && grep -q "ok tenbin f32\[16777216\]" "$T/out"; then
    echo "PASS memory: a 1 GiB tenbin stream validated in ${kb} kB"
else
    echo "FAIL memory: 1 GiB stream: rc $(cat "$T/rc"), ${kb} kB: $(head -c 300 "$T/out")"
fi

# 3. the same stream cut short: truncated, still small
kb=$(piped_rss "python3 tests/e2e/gen_tenbin_stream.py 4 67108864 | head -c 200000000")
if [ "$(cat "$T/rc")" = 1 ] && [ "$kb" -lt "$LIMIT_KB" ] && grep -q "array\[2\].data at offset .*only" "$T/out"; then
    echo "PASS memory: a cut stream is truncated at array[2].data in ${kb} kB"
else
    echo "FAIL memory: cut stream: rc $(cat "$T/rc"), ${kb} kB: $(head -c 300 "$T/out")"
fi

# 3b. afmt info reads a pipe through the same window (issue 23, point 6):
# a 256 MiB stream described in what afmt-validate needs, not its size
python3 tests/e2e/gen_tenbin_stream.py 4 67108864 2>/dev/null |
    /usr/bin/time -f "%M" -o "$T/rss" "$BUILD/afmt" info - > "$T/out" 2>&1
echo "${PIPESTATUS[1]}" > "$T/rc"
kb=$(tail -n 1 "$T/rss")
if [ "$(cat "$T/rc")" = 0 ] && [ "$kb" -lt "$LIMIT_KB" ] && grep -q "^-: tenbin, 268435840 bytes, valid" "$T/out" &&
    grep -q "array \[3\] f32\[16777216\]" "$T/out"; then
    echo "PASS memory: afmt info on a 256 MiB pipe in ${kb} kB"
else
    echo "FAIL memory: afmt info on a 256 MiB pipe: rc $(cat "$T/rc"), ${kb} kB: $(head -c 300 "$T/out")"
fi

# 4. a 1 GiB futhark bool stream: every byte checked, memory still small
python3 - "$T" <<'PY'
import struct, sys
n = 1 << 30
hdr = b"b" + bytes([2, 1]) + b"bool" + struct.pack("<q", n)
open(sys.argv[1] + "/bool.hdr", "wb").write(hdr)
PY
kb=$(piped_rss "cat '$T/bool.hdr'; head -c 1073741824 /dev/zero")
if [ "$(cat "$T/rc")" = 0 ] && [ "$kb" -lt "$LIMIT_KB" ]; then
    echo "PASS memory: a 1 GiB futhark bool stream checked in ${kb} kB"
else
    echo "FAIL memory: bool stream: rc $(cat "$T/rc"), ${kb} kB: $(head -c 300 "$T/out")"
fi

# 4b. the same 1 GiB of bools as a file (sparse: no disk taken): read
#     through the window by offset as the pipe is, not mapped (issue 35,
#     point 4), so every byte checked still costs the window, not the
#     file (a map's pages read were 1 GiB resident)
cp "$T/bool.hdr" "$T/bool.fut"
truncate -s $(( $(stat -c %s "$T/bool.hdr") + (1 << 30) )) "$T/bool.fut"
kb=$(rss_of "$V" -f futhark "$T/bool.fut")
if [ "$(cat "$T/rc")" = 0 ] && [ "$kb" -lt "$LIMIT_KB" ]; then
    echo "PASS memory: a 1 GiB futhark bool file checked in ${kb} kB"
else
    echo "FAIL memory: bool file: rc $(cat "$T/rc"), ${kb} kB: $(head -c 300 "$T/out")"
fi
rm -f "$T/bool.fut"

# 5. 9 Mi futhark text values then garbage, piped: judged like the file
#    (the window fills many times over; garbage at the end is still seen)
python3 -c "import sys; sys.stdout.write('1i8 ' * (9 << 20) + 'garbage!')" > "$T/many.txt"
"$V" -f futhark "$T/many.txt" > "$T/file.out" 2>&1
kb=$(piped_rss "cat '$T/many.txt'" -f futhark)
if [ "$(cat "$T/rc")" = 1 ] && [ "$kb" -lt "$LIMIT_KB" ] && grep -q "value\[9437184\].element\[0\] at offset 37748736" "$T/out" &&
   grep -q "value\[9437184\].element\[0\] at offset 37748736" "$T/file.out"; then
    echo "PASS memory: 9 Mi text values then garbage, piped, rejected like the file in ${kb} kB"
else
    echo "FAIL memory: text stream: rc $(cat "$T/rc"), ${kb} kB: $(head -c 300 "$T/out")"
fi

# 6. a shard with a 192 MiB member (and a cut one): the tar is mapped and
#    its members validated in place (the library's tar reader), so only the
#    pages a check reads are resident; the cut member is named at its
#    absolute offset in the shard
python3 tests/e2e/gen_tenbin_stream.py 3 67108864 > "$T/big.ten"
head -c 100000000 "$T/big.ten" > "$T/cut.ten"
cp "$(dirname "$0")/../../corpus/tenbin/two_arrays_i2_u1.ten" "$T/small.ten"
tar cf "$T/shard.tar" -C "$T" big.ten small.ten cut.ten
rm -f "$T/big.ten" "$T/cut.ten"
kb=$(rss_of "$V" "$T/shard.tar")
if [ "$(cat "$T/rc")" = 1 ] && [ "$kb" -lt "$LIMIT_KB" ] && grep -q "shard.tar:big.ten: ok tenbin f32\[16777216\] row-major (+2 more)" "$T/out" &&
   grep -q "shard.tar:cut.ten: invalid tenbin: archive\[\"cut.ten\"\].array\[1\].data_chunk at offset 268438208: is 67108864 bytes long" "$T/out"; then
    echo "PASS memory: a shard with a 192 MiB member validated in ${kb} kB"
else
    echo "FAIL memory: big shard member: rc $(cat "$T/rc"), ${kb} kB: $(head -c 400 "$T/out")"
fi

# 9. safetensors headers that claim what is not there (issue 11): a header
# length of 2^64-1, a shape of 2^63 elements, overlapping tensors (the
# golden inputs), and the same from a pipe: rejected, naming the field,
# in constant memory (every one well under 16 MiB resident)
for case in header_length_u64_max shape_2_63_elements overlap; do
    in=tests/safetensors/$case/input
    kb=$(rss_of "$V" --format safetensors "$in")
    rc_file=$(cat "$T/rc")
    pkb=$(piped_rss "cat $in" --format safetensors)
    if [ "$rc_file" = 1 ] && [ "$(cat "$T/rc")" = 1 ] && [ "$kb" -lt 16384 ] && [ "$pkb" -lt 16384 ] && grep -q "invalid safetensors: header" "$T/out"; then
        echo "PASS memory: safetensors $case rejected in ${kb} kB (from a pipe ${pkb} kB)"
    else
        echo "FAIL memory: safetensors $case: rc $(cat "$T/rc"), ${kb} kB / ${pkb} kB: $(head -c 300 "$T/out")"
    fi
done

# 10. GGUF keys in total (issue 35, point 5): 20 keys of 4 MiB, each under
# every limit, are compared where they lie in the mapped file, not copied
# (copies took the keys' sum again: 80 MiB here, 1.78 GB for 20 keys of
# 95 MB), so the run holds the mapped bytes it read and little more; a
# duplicate among them is found the same way.  From a pipe, whose window
# drops them, the keys are copied, and the copies are held to
# --max-kept-bytes, which names itself.
python3 tests/e2e/gen_gguf_keys.py "$T/keys.gguf" 20 4194304
python3 tests/e2e/gen_gguf_keys.py "$T/dup.gguf" 20 4194304 2 17
file_kb=$(( $(stat -c %s "$T/keys.gguf") / 1024 ))
kb=$(rss_of "$V" "$T/keys.gguf")
if [ "$(cat "$T/rc")" = 0 ] && [ "$kb" -lt $((file_kb + 16384)) ] && grep -q "ok gguf f32\[4\]" "$T/out"; then
    echo "PASS memory: 20 GGUF keys of 4 MiB (a ${file_kb} kB file) validated in ${kb} kB, no copies"
else
    echo "FAIL memory: 20 GGUF keys of 4 MiB: rc $(cat "$T/rc"), ${kb} kB for a ${file_kb} kB file: $(head -c 300 "$T/out")"
fi
kb=$(rss_of "$V" "$T/dup.gguf")
if [ "$(cat "$T/rc")" = 1 ] && [ "$kb" -lt $((file_kb + 16384)) ] &&
   grep -q 'kv\[17\].key at offset 71303413: duplicate key "k000002x.*": kv\[2\].key (offset 8388658) has it too' "$T/out"; then
    echo "PASS memory: a duplicate among 20 GGUF keys of 4 MiB found in ${kb} kB, no copies"
else
    echo "FAIL memory: duplicate GGUF key: rc $(cat "$T/rc"), ${kb} kB: $(head -c 300 "$T/out")"
fi
python3 tests/e2e/gen_gguf_keys.py "$T/keys1m.gguf" 20 1048576
kb=$(piped_rss "cat '$T/keys1m.gguf'" --max-kept-bytes 4M)
if [ "$(cat "$T/rc")" = 1 ] && [ "$kb" -lt "$LIMIT_KB" ] &&
   grep -q 'kv\[3\].key at offset 4194375: keeping what was read would take [0-9]* bytes in all, more than the limit of 4194304 (limits.max_kept_bytes) (raise it with --max-kept-bytes N)' "$T/out"; then
    echo "PASS memory: a pipe's copies of GGUF keys held to --max-kept-bytes 4M, naming it, in ${kb} kB"
else
    echo "FAIL memory: GGUF keys from a pipe under --max-kept-bytes 4M: rc $(cat "$T/rc"), ${kb} kB: $(head -c 300 "$T/out")"
fi
kb=$(piped_rss "cat '$T/keys1m.gguf'")
if [ "$(cat "$T/rc")" = 0 ] && [ "$kb" -lt "$LIMIT_KB" ]; then
    echo "PASS memory: 20 GGUF keys of 1 MiB from a pipe validated in ${kb} kB (window and copies)"
else
    echo "FAIL memory: GGUF keys from a pipe: rc $(cat "$T/rc"), ${kb} kB: $(head -c 300 "$T/out")"
fi
rm -f "$T/keys.gguf" "$T/dup.gguf" "$T/keys1m.gguf"
