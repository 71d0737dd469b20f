# shellcheck shell=bash
# The GGUF rows of make bench (benchmark 10), sourced by bench/run.sh after
# benchmark 9: it uses run.sh's row, peer_rounds, range, say, die, $BIN,
# $DATA_ROOT, $PEER_RUNS, $ROOT, $BENCH.  Nothing is downloaded or built
# from the network here.
#
# Input: a llama.cpp-style vocabulary of 150,000 tokens (bench/gguf_vocab.py,
# written by the independent test writer tests/golden/gguf_writer.py; about
# 4.5 MB of header: 3 MB of token strings with their lengths, scores, token
# types, four small tensors), generated once into $DATA_ROOT/gguf/.
#
# 10a  afmt's validator in process (validate_inproc gguf: strict, the file
#      mapped) against ggml's gguf_init_from_file(no_alloc = true) + gguf_free
#      (bench/ggml_peer.c), when $GGML_DIR/bin/ggml_peer exists.  Build it
#      from a ggml snapshot fetched by hand, outside the repository:
#          bash bench/build_ggml.sh /path/to/ggml /work/ggml-build
#      GGML_DIR defaults to ../ggml-build beside the repository.
#      Goals (issue 20): at most 0.5x ggml's time, and 1 GB/s of header bytes.
# 10b  the same against @huggingface/gguf's gguf(FILE, {allowLocalFile})
#      under node (bench/hf_gguf_peer.cjs), when node and the package are
#      installed (bash tests/e2e/hf_gguf_install.sh installs it, pinned, into
#      a cache folder; the bench only looks for it there).
# Each side times its own rounds in its own process; the processes
# alternate three times (peer_rounds), and the median of each side's three
# medians is reported.  Without the gguf format in this build, the peers
# are still timed and the tool's columns say "-".
GGML_DIR=${GGML_DIR:-$ROOT/../ggml-build}
GGUF_IN=$DATA_ROOT/gguf/vocab150k.gguf
GGUF_SUM=$(cat "$BENCH/gguf_vocab.py" "$ROOT/tests/golden/gguf_writer.py" | cksum | cut -d' ' -f1)
mkdir -p "$DATA_ROOT/gguf"
if [ ! -s "$GGUF_IN" ] || [ "$(cat "$DATA_ROOT/gguf/.gen" 2> /dev/null)" != "$GGUF_SUM" ]; then
    python3 "$BENCH/gguf_vocab.py" "$GGUF_IN" 150000 >&2 || die "cannot write $GGUF_IN"
    echo "$GGUF_SUM" > "$DATA_ROOT/gguf/.gen"
fi
GGUF_HDR=$(python3 -c '
import sys; sys.path.insert(0, sys.argv[1])
from gguf_reader import read
r = read(open(sys.argv[2], "rb").read())
print(r["data_offset"] if r["valid"] else "invalid: " + r["message"])' "$ROOT/tests/golden" "$GGUF_IN")
case $GGUF_HDR in invalid*) die "$GGUF_IN: $GGUF_HDR" ;; esac
cat "$GGUF_IN" > /dev/null
say "bench 10: GGUF header, 150,000-token vocabulary ($GGUF_HDR header bytes)"

# gguf_afmt: RESULT med min max of afmt's in-process validation, or "-".
GGUF_AFMT=0
if "$BIN/validate_inproc" gguf "$GGUF_IN" 1 > /dev/null 2>&1; then GGUF_AFMT=1; fi
gguf_afmt() {
    local l
    l=$("$BIN/validate_inproc" gguf "$GGUF_IN" "$PEER_RUNS") || return 1
    # shellcheck disable=SC2086
    set -- $l
    echo "RESULT $2 $5 $6"
}
gguf_peer_row() { # ID PEER_NAME PEER_CMD NOTE
    local id=$1 peer=$2 cmd=$3 note=$4 line
    if [ "$GGUF_AFMT" = 1 ]; then
        peer_rounds "gguf_afmt" "$cmd"
        row "$id" "GGUF header, 150k-token vocabulary" "afmt_gguf_validate" "${MED[0]}" \
            "$(range "${MIN[0]}" "${MAX[0]}")" "$peer" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$GGUF_HDR" "$note"
    else
        line=$(eval "$cmd") || die "failed: $cmd"
        # shellcheck disable=SC2086
        set -- $line
        row "$id" "GGUF header, 150k-token vocabulary" "- (no gguf format yet)" "-" "-" "$peer" "$2" \
            "$(range "$3" "$4")" "$GGUF_HDR" "$note"
    fi
}
# The peers' versions, printed in the table's head by run.sh.
GGML_VERSION="" HF_GGUF_VERSION=""
if [ -x "$GGML_DIR/bin/ggml_peer" ]; then
    GGML_VERSION=$(cat "$GGML_DIR/VERSION" 2> /dev/null ||
        echo "$(sed -n 's/^-- ggml version: *//p' "$GGML_DIR/cmake.log" 2> /dev/null | head -1) (commit $(head -c 12 "$GGML_DIR/src/COMMIT" 2> /dev/null || echo '?'))")
    "$GGML_DIR/bin/ggml_peer" "$GGUF_IN" 1 > /dev/null || die "ggml refuses $GGUF_IN"
    gguf_peer_row 10a "ggml gguf_init_from_file" "'$GGML_DIR/bin/ggml_peer' '$GGUF_IN' $PEER_RUNS" \
        "no_alloc; goals: <= 0.5x, >= 1 GB/s of header"
else
    row 10a "GGUF header, 150k-token vocabulary" "-" "-" "-" "ggml (skipped)" "-" "-" 0 \
        "no $GGML_DIR/bin/ggml_peer: bash bench/build_ggml.sh GGML_SRC, then GGML_DIR=..."
fi
HF_DIR=""
if command -v node > /dev/null && HF_DIR=$(bash "$ROOT/tests/e2e/hf_gguf_install.sh" --installed 2> /dev/null); then
    HF_GGUF_VERSION=$(sed -n 's/^ *"version": "\(.*\)",*$/\1/p' "$HF_DIR/node_modules/@huggingface/gguf/package.json" | head -1)
    gguf_peer_row 10b "@huggingface/gguf" "node '$BENCH/hf_gguf_peer.cjs' '$HF_DIR' '$GGUF_IN' $PEER_RUNS" \
        "node $(node --version), gguf(FILE, {allowLocalFile})"
else
    row 10b "GGUF header, 150k-token vocabulary" "-" "-" "-" "@huggingface/gguf (skipped)" "-" "-" 0 \
        "$(command -v node > /dev/null && echo "not installed: bash tests/e2e/hf_gguf_install.sh" || echo "node is not installed")"
fi
