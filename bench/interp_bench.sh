# shellcheck shell=bash
# The interpreter's rows of make bench (benchmark 14, issue 37): the
# reference interpreter (`afmt-validate --spec spec/X.json FILE`,
# interp/) against the generated validator of the same spec
# (`afmt-validate FILE`), whole commands alternating round by round in the
# same run; ratio = interpreter / generated (goal: at most 5).
#
# Sourced by bench/run.sh after benchmark 13 (it uses run.sh's
# time_rounds, row, range, size_of, say, die, $VALIDATE, $ROOT, $BENCH,
# $SMALL_RUNS, $QUICK); or run alone, which prints the same rows:
#     bash bench/interp_bench.sh [BUILD]     (BENCH_RUNS=N rounds, default 9)
#
# Inputs, generated once into BUILD/bench-interp/ (never committed):
#   vocab150k.gguf         bench/gguf_vocab.py, 150,000 tokens (4.5 MB header)
#   m850000.safetensors    850,000 tensors (a 98 MB header), as rows 9f-9j
#   f32.ra                 RawArray f32[16384,16384] (1 GiB; header only)
#   bool.ra                RawArray bool[2^30] (1 GiB; every byte 0 or 1,
#                          so the payload is scanned)
# Under BENCH_QUICK=1 the sizes are small (a change's check, not numbers).
#
# 14a-14d  each input: the interpreter against the generated validator.
#          Both include process start and (the interpreter) loading the
#          spec: about 1 ms and 3 ms.

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    # Run alone: the few helpers of run.sh this file uses.
    set -euo pipefail
    cd "$(dirname "${BASH_SOURCE[0]}")/.."
    ROOT=$PWD BENCH=$PWD/bench
    BUILD=${1:-build}
    case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
    VALIDATE=$BUILD/afmt-validate
    QUICK=${BENCH_QUICK:-0}
    SMALL_RUNS=${BENCH_RUNS:-9}
    INTERP_DATA=$BUILD/bench-interp
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/afmt-ibench.XXXXXX")
    trap 'rm -rf "$TMP"' EXIT
    say() { printf '%s\n' "$*" >&2; }
    die() { echo "bench: $*" >&2; exit 1; }
    size_of() { stat -c %s "$1"; }
    range() { printf '%s-%s' "$1" "$2"; }
    row() { # as run.sh's, printed with the ratio
        awk -v id="$1" -v what="$2" -v t="$4" -v b="$7" -v tr="$5" -v br="$8" 'BEGIN {
            printf "%-4s %-44s interp %8.2f ms [%s]  generated %8.2f ms [%s]  ratio %.2f\n",
                id, what, t * 1e3, tr, b * 1e3, br, (b > 0 ? t / b : 0) }'
    }
    source "$BENCH/time_rounds.sh"
    [ -x "$VALIDATE" ] || die "$VALIDATE is missing: run make first"
else
    # run.sh times copies of the binaries; the inputs go beside the build
    INTERP_DATA=$BUILD/bench-interp
fi

# ---- inputs
if [ "$QUICK" = 1 ]; then
    INTERP_DATA=$INTERP_DATA/quick IB_TOKENS=15000 IB_TENSORS=85000 IB_SIDE=2048
else
    IB_TOKENS=150000 IB_TENSORS=850000 IB_SIDE=16384
fi
mkdir -p "$INTERP_DATA"
IB_GGUF=$INTERP_DATA/vocab$((IB_TOKENS / 1000))k.gguf
IB_ST=$INTERP_DATA/m$IB_TENSORS.safetensors
IB_RA=$INTERP_DATA/f32-$IB_SIDE.ra
IB_BOOL=$INTERP_DATA/bool-$IB_SIDE.ra
[ -s "$IB_GGUF" ] || python3 "$BENCH/gguf_vocab.py" "$IB_GGUF" "$IB_TOKENS" >&2 || die "cannot write $IB_GGUF"
# the safetensors header of rows 9f-9j: names as a model's, sorted
[ -s "$IB_ST" ] || python3 - "$IB_ST" "$IB_TENSORS" <<'PYGEN' || die "cannot write $IB_ST"
import struct, sys
out, n = sys.argv[1], int(sys.argv[2])
names = sorted("model.layers.%d.mlp.experts.%d.down_proj.weight" % (i // 1000, i % 1000) for i in range(n))
h = ("{" + ",".join('"%s":{"dtype":"F32","shape":[2,2],"data_offsets":[%d,%d]}' % (nm, 16 * k, 16 * k + 16)
                    for k, nm in enumerate(names)) + "}").encode()
h += b" " * ((-len(h)) % 8)
with open(out, "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + bytes(16 * n))
PYGEN
# RawArray headers by hand (seeds/rawarray.txt): magic, flags, eltype,
# elbyte, size, ndims, dims; f32 is eltype 3, bool eltype 5 with elbyte 1
{ [ -s "$IB_RA" ] && [ -s "$IB_BOOL" ]; } || python3 - "$IB_RA" "$IB_BOOL" "$IB_SIDE" <<'PYGEN' || die "cannot write RawArray inputs"
import struct, sys
f32, boolf, side = sys.argv[1], sys.argv[2], int(sys.argv[3])
n = side * side * 4
chunk = bytes([0, 1]) * (4 << 20)
for path, eltype, elbyte, dims in ((f32, 3, 4, [side, side]), (boolf, 5, 1, [n])):
    with open(path, "wb") as f:
        f.write(b"rawarray" + struct.pack("<QQQQQ", 0, eltype, elbyte, n, len(dims)) + struct.pack("<%dQ" % len(dims), *dims))
        left = n
        while left:
            k = min(left, len(chunk))
            f.write(chunk[:k])
            left -= k
PYGEN
sync "$IB_RA" "$IB_BOOL"
for f in "$IB_GGUF" "$IB_ST" "$IB_RA" "$IB_BOOL"; do
    "$VALIDATE" -q "$f" || die "$f is invalid"
    cat "$f" > /dev/null
done

say "bench 14: the interpreter (--spec) against the generated validators"
# interp_row ID WHAT SPEC FILE
interp_row() {
    local id=$1 what=$2 spec=$ROOT/spec/$3.json f=$4
    "$VALIDATE" -q --spec "$spec" "$f" || die "the interpreter refuses $f"
    time_rounds "$SMALL_RUNS" : "'$VALIDATE' --spec '$spec' '$f'" "'$VALIDATE' '$f'"
    row "$id" "$what" "afmt-validate --spec" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "afmt-validate (generated)" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$f")" \
        "interpreter / generated; goal <= 5x"
}
interp_row 14a "GGUF, $IB_TOKENS-token vocabulary" gguf "$IB_GGUF"
interp_row 14b "safetensors header, $IB_TENSORS tensors" safetensors "$IB_ST"
interp_row 14c "RawArray f32[$IB_SIDE,$IB_SIDE] (header only)" rawarray "$IB_RA"
interp_row 14d "RawArray bool[$((IB_SIDE * IB_SIDE * 4))] (every byte)" rawarray "$IB_BOOL"
