# Shared preamble of the end-to-end suites: source it, after `set -u`,
# with the suite's arguments:   . "$(dirname "$0")/lib.sh" "$@"
#
# Sets HERE (tests/e2e), REPO, BUILD (absolute; from $1, default build,
# relative to the current directory or to the repository), VALIDATE and
# AFMT (the two tools, which must be built), T (a temporary directory,
# removed on exit) and FAILED (0; 1 once a check failed).  A suite that
# sets SUITE before sourcing has it before each check's name.  A suite ends
# with `exit $FAILED`; tests/run.sh counts its PASS / FAIL lines.

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
BUILD_ARG=${1:-build}
if [ -d "$BUILD_ARG" ]; then
    BUILD="$(cd "$BUILD_ARG" && pwd)"
elif [ -d "$REPO/$BUILD_ARG" ]; then
    BUILD="$(cd "$REPO/$BUILD_ARG" && pwd)"
else
    echo "FAIL $(basename "$0"): no build directory '$BUILD_ARG'"
    exit 1
fi
VALIDATE="$BUILD/afmt-validate"
AFMT="$BUILD/afmt"
for tool in "$VALIDATE" "$AFMT"; do
    if [ ! -x "$tool" ]; then
        echo "FAIL $(basename "$0"): $tool is not built"
        exit 1
    fi
done

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FAILED=0

pass() { echo "PASS ${SUITE:+$SUITE: }$1"; }
fail() { echo "FAIL ${SUITE:+$SUITE: }$1: $2"; FAILED=1; }
# check NAME CMD...: a check that passes when CMD succeeds.
check() {
    local name=$1
    shift
    if "$@"; then pass "$name"; else fail "$name" "'$*' failed"; fi
}

# run CMD...: stdout in $OUT, stderr in $ERR, status in $RC (with a timeout
# so that a hang is a failure, not a stuck suite).
run() {
    timeout 60 "$@" > "$T/out" 2> "$T/err"
    RC=$?
    OUT=$(cat "$T/out")
    ERR=$(cat "$T/err")
}
# run_in FILE CMD...: the same with standard input from FILE.
run_in() {
    local input=$1
    shift
    timeout 60 "$@" < "$input" > "$T/out" 2> "$T/err"
    RC=$?
    OUT=$(cat "$T/out")
    ERR=$(cat "$T/err")
}

expect_rc() { # name, want
    if [ "$RC" -eq "$2" ]; then pass "$1"; else
        fail "$1" "exit status $RC, want $2 (stdout: ${OUT:0:200}; stderr: ${ERR:0:300})"; fi
}
expect_out() { # name, want (exact stdout)
    if [ "$OUT" = "$2" ]; then pass "$1"; else
        fail "$1" "stdout '${OUT:0:300}', want '$2' (rc $RC, stderr: ${ERR:0:200})"; fi
}
expect_out_has() { # name, fixed string
    if printf '%s' "$OUT" | grep -qF -- "$2"; then pass "$1"; else
        fail "$1" "stdout lacks '$2': '${OUT:0:300}' (rc $RC, stderr: ${ERR:0:200})"; fi
}
expect_err_has() { # name, fixed string
    if printf '%s' "$ERR" | grep -qF -- "$2"; then pass "$1"; else
        fail "$1" "stderr lacks '$2': '${ERR:0:300}' (rc $RC)"; fi
}
