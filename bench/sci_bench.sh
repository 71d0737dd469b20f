# shellcheck shell=bash
# The scientific formats' rows of make bench (benchmark 13), sourced by
# bench/run.sh after benchmark 12: it uses run.sh's peer_rounds, inproc,
# row, range, size_of, say, die, $AFMT, $BIN, $BENCH, $ROOT, $CC, $BCFLAGS,
# $DATA_ROOT, $SIDE, $QUICK, $PEER_RUNS.  Nothing is downloaded here.
#
# Inputs (bench/sci_gen.py, with astropy, nibabel and scipy from
# build/venv), about 256 MiB of payload each (16 MiB under BENCH_QUICK):
# image.fits (f32, BITPIX -32), volume.nii (f32), stored.mat and
# compressed.mat (f64; the second one zlib stream).  Peers, in process:
# cfitsio and matio from Debian (libcfitsio-dev, libmatio-dev) and zlib,
# in bench/sci_peers.c; nibabel in bench/nib_peer.py.  afmt is timed in
# process too (bench/validate_inproc.c, the file mapped and in the page
# cache), the sides alternating three times as in benchmark 11.
#
# 13a, 13d, 13g  afmt_<format>_validate (strict: every header rule and
#      the data padding) against the peer's open: cfitsio's
#      fits_open_file + image parameters, nibabel.load + header, matio's
#      Mat_Open + Mat_VarReadNextInfo.  Goal: at most 0.1x.
# 13b, 13e, 13h  the whole read as a library user does it (afmt_file_open,
#      validate, afmt_file_read_array into a caller's buffer) against
#      memcpy of the payload in the same run.  Goal: at most 1.2x.
# 13c, 13f, 13i  the same read against the peer's: fits_read_img,
#      get_fdata (float64, as nibabel's users read), Mat_VarReadNext.
# 13j  the whole read of compressed.mat against zlib's own uncompress of
#      its stream into a buffer of the exact size.  Goal: at most 1.2x.
# 13k  the same read against matio's Mat_VarReadNext of it.
# A row whose format, writer or peer is missing is printed as skipped,
# saying which.

SCI_PY=""
for py in ${BENCH_SCI_PYTHON:-$ROOT/build/venv/bin/python}; do
    [ "$py" = none ] && break
    if "$py" -c 'import numpy' 2> /dev/null; then SCI_PY=$py; break; fi
done

sci_skip() { # why id...
    local why=$1 id
    shift
    for id in "$@"; do
        row "$id" "scientific formats" "-" "-" "-" "(skipped)" "-" "-" 0 "$why"
    done
}

# sci_peers_build: $BIN/sci_peers with the peers whose headers are here.
sci_peers_build() {
    local defs="" libs=""
    if printf '#include <fitsio.h>\n' | $CC -E - > /dev/null 2>&1; then defs="$defs -DHAVE_CFITSIO"; libs="$libs -lcfitsio"; fi
    if printf '#include <matio.h>\n' | $CC -E - > /dev/null 2>&1; then defs="$defs -DHAVE_MATIO"; libs="$libs -lmatio"; fi
    if printf '#include <zlib.h>\n' | $CC -E - > /dev/null 2>&1; then defs="$defs -DHAVE_ZLIB"; libs="$libs -lz"; fi
    SCI_PEERS_HAVE=$defs
    # shellcheck disable=SC2086
    $CC $BCFLAGS $defs -o "$BIN/sci_peers" "$BENCH/sci_peers.c" $libs
}

sci_inputs() { # sets SCI_DIR
    local want=$(( QUICK == 1 ? 16777216 : 268435456 )) stamp
    SCI_DIR=$DATA_ROOT/sci-$want
    stamp="$(cksum < "$BENCH/sci_gen.py" | cut -d' ' -f1)"
    if [ "$(cat "$SCI_DIR/.gen" 2> /dev/null)" != "$stamp" ]; then
        rm -rf "$SCI_DIR"
        say "bench 13: writing the inputs with astropy, nibabel and scipy into $SCI_DIR"
        "$SCI_PY" "$BENCH/sci_gen.py" "$SCI_DIR" "$want" >&2 || die "bench/sci_gen.py failed"
        echo "$stamp" > "$SCI_DIR/.gen"
    fi
    cat "$SCI_DIR"/* > /dev/null 2>&1
}

has_format() { "$AFMT" formats 2> /dev/null | awk '{ print $1 }' | grep -qx "$1"; }

# vi_tool MODE FORMAT FILE: validate_inproc's tool side as "RESULT med min max".
vi_tool() {
    local l
    # shellcheck disable=SC2086
    l=$("$BIN/validate_inproc" $1 "$2" "$3" "$PEER_RUNS") || return 1
    # shellcheck disable=SC2086
    set -- $l
    echo "RESULT $2 $5 $6"
}

# sci_pair ID WHAT TOOL_CMD TOOL PEER_CMD PEER FILE NOTE
sci_pair() {
    peer_rounds "$3" "$5"
    row "$1" "$2" "$4" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "$6" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$(size_of "$7")" "$8"
}

# sci_memcpy ID WHAT FORMAT FILE NOTE: the whole read against memcpy, one run.
sci_memcpy() {
    inproc --read "$3" "$4" "$PEER_RUNS"
    row "$1" "$2" "afmt_file_read_array" "${MED[0]}" "$(range "${MIN[0]}" "${MAX[0]}")" \
        "memcpy" "${MED[1]}" "$(range "${MIN[1]}" "${MAX[1]}")" "$BYTES" "$5"
}

# sci_format ID... : one format's three rows (header, read vs memcpy,
# read vs peer).  Args: FORMAT FILE WHAT ID_HEAD ID_MEMCPY ID_PEER
# PEER_OPEN_CMD PEER_OPEN PEER_READ_CMD PEER_READ
sci_format() {
    local fmt=$1 file=$2 what=$3
    if ! has_format "$fmt"; then sci_skip "afmt has no format $fmt" "$4" "$5" "$6"; return; fi
    if [ ! -s "$file" ]; then sci_skip "no input (its writer is missing)" "$4" "$5" "$6"; return; fi
    "$VALIDATE" -q "$file" || die "bench 13: afmt refuses $file"
    sci_pair "$4" "$what: header checks" "vi_tool '' $fmt '$file'" "afmt_${fmt}_validate" \
        "$7" "$8" "$file" "in process; goal <= 0.1x"
    sci_memcpy "$5" "$what: whole read" "$fmt" "$file" "goal <= 1.2x"
    sci_pair "$6" "$what: whole read" "vi_tool --read $fmt '$file'" "afmt_file_read_array" \
        "$9" "${10}" "$file" "in process"
}

say "bench 13: FITS, NIfTI-1 and MAT-files against cfitsio, nibabel, matio and zlib"
if [ -z "$SCI_PY" ]; then
    sci_skip "no Python with numpy (build/venv: make deps-test)" 13a 13b 13c 13d 13e 13f 13g 13h 13i 13j 13k
else
    sci_peers_build
    sci_inputs
    P=$BIN/sci_peers
    NIB=("$SCI_PY" "$BENCH/nib_peer.py")
    case $SCI_PEERS_HAVE in
        *CFITSIO*) sci_format fits "$SCI_DIR/image.fits" "fits f32 image" 13a 13b 13c \
                       "'$P' fits-open '$SCI_DIR/image.fits' $PEER_RUNS" "cfitsio open" \
                       "'$P' fits-read '$SCI_DIR/image.fits' $PEER_RUNS" "cfitsio fits_read_img" ;;
        *) sci_skip "no cfitsio (libcfitsio-dev)" 13a 13b 13c ;;
    esac
    if "$SCI_PY" -c 'import nibabel' 2> /dev/null; then
        sci_format nifti1 "$SCI_DIR/volume.nii" "nifti1 f32 volume" 13d 13e 13f \
            "'${NIB[0]}' '${NIB[1]}' open '$SCI_DIR/volume.nii' $PEER_RUNS" "nibabel.load" \
            "'${NIB[0]}' '${NIB[1]}' read '$SCI_DIR/volume.nii' $PEER_RUNS" "nibabel get_fdata"
    else
        sci_skip "no nibabel in $SCI_PY" 13d 13e 13f
    fi
    case $SCI_PEERS_HAVE in
        *MATIO*) sci_format mat5 "$SCI_DIR/stored.mat" "mat5 f64, stored" 13g 13h 13i \
                     "'$P' mat-open '$SCI_DIR/stored.mat' $PEER_RUNS" "matio open + info" \
                     "'$P' mat-read '$SCI_DIR/stored.mat' $PEER_RUNS" "matio Mat_VarReadNext" ;;
        *) sci_skip "no matio (libmatio-dev)" 13g 13h 13i ;;
    esac
    if ! has_format mat5 || [ ! -s "$SCI_DIR/compressed.mat" ]; then
        sci_skip "afmt has no format mat5, or no input" 13j 13k
    else
        case $SCI_PEERS_HAVE in
            *ZLIB*) sci_pair 13j "mat5 f64, compressed: whole read" "vi_tool --read mat5 '$SCI_DIR/compressed.mat'" \
                        "afmt_file_read_array" "'$P' zlib '$SCI_DIR/compressed.mat' $PEER_RUNS" "zlib uncompress" \
                        "$SCI_DIR/compressed.mat" "inflation; goal <= 1.2x" ;;
            *) sci_skip "no zlib (zlib1g-dev)" 13j ;;
        esac
        case $SCI_PEERS_HAVE in
            *MATIO*) sci_pair 13k "mat5 f64, compressed: whole read" "vi_tool --read mat5 '$SCI_DIR/compressed.mat'" \
                         "afmt_file_read_array" "'$P' mat-read '$SCI_DIR/compressed.mat' $PEER_RUNS" \
                         "matio Mat_VarReadNext" "$SCI_DIR/compressed.mat" "in process" ;;
            *) sci_skip "no matio (libmatio-dev)" 13k ;;
        esac
    fi
fi
