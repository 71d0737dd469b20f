#!/usr/bin/env bash
# afmt-validate at scale: --files-from (lines, NUL-separated, standard
# input), self-contained JSON lines, and docs/AT-SCALE.md's GNU parallel
# recipe run on the local host.  One PASS/FAIL line per check.
set -u
SUITE=scale
. "$(dirname "$0")/lib.sh" "$@"
S="$REPO/corpus"

# A mixed batch: valid files, an invalid one, a missing one, a path with a
# newline and one with a space.
mkdir -p "$T/d"
cp "$S"/npy/*.npy "$T/d/"
head -c 20 "$S/npy/f8_2x3.npy" > "$T/d/cut.npy"
cp "$S/npy/b1_4.npy" "$T/d/with space.npy"
cp "$S/npy/b1_4.npy" "$T/d/$(printf 'new\nline.npy')"
printf '%s\n' "$T/d/b1_4.npy" "$T/d/cut.npy" "" "$T/d/with space.npy" "$T/d/missing.npy" > "$T/list"

run "$VALIDATE" --files-from "$T/list"
expect_rc "--files-from: an invalid and a missing file give status 2" 2
expect_out "--files-from: listed paths in order, empty lines skipped" \
"$T/d/b1_4.npy: ok npy bool[4] row-major
$T/d/cut.npy: invalid npy: header at offset 10: needs 118 bytes for header, only 10 left
$T/d/with space.npy: ok npy bool[4] row-major"
expect_err_has "--files-from: a missing listed file is an error" "$T/d/missing.npy: error: No such file or directory"

run_in "$T/list" "$VALIDATE" -q "$T/d/f8_2x3.npy" --files-from -
expect_out "--files-from -: operands first, then the list from standard input" \
"$T/d/cut.npy: invalid npy: header at offset 10: needs 118 bytes for header, only 10 left"

printf 'x\r\n' > "$T/crlf"
run "$VALIDATE" --files-from "$T/crlf"
expect_err_has "--files-from: a CRLF list names 'x', not 'x\\r'" "x: error: No such file"

find "$T/d" -name '*.npy' -print0 | sort -z > "$T/list0"
run_in "$T/list0" "$VALIDATE" -0 --files-from - --json
if printf '%s\n' "$OUT" | python3 -c '
import json, sys
objs = [json.loads(l) for l in sys.stdin]
paths = [o["path"] for o in objs]
assert any(p.endswith("/new\nline.npy") for p in paths), paths
assert len(objs) == 11, len(objs)
' 2> "$T/py.err"; then pass "-0: a path with a newline is one path"; else
    fail "-0: a path with a newline is one path" "$(tail -1 "$T/py.err")"; fi

long=$(head -c 5000 /dev/zero | tr '\0' a)
printf '%s\n%s\n' "$long" "$T/d/b1_4.npy" > "$T/longlist"
run "$VALIDATE" --files-from "$T/longlist"
expect_rc "--files-from: a path too long is an error (status 2)" 2
expect_out_has "--files-from: ... and the next path is still checked" "b1_4.npy: ok npy"

run "$VALIDATE" --files-from "$T/nonexistent-list"
expect_rc "--files-from: an unreadable list is status 2" 2
expect_err_has "--files-from: ... saying why" "--files-from $T/nonexistent-list: No such file or directory"
run_in "$T/list" "$VALIDATE" --files-from - -
expect_rc "standard input cannot be both the list and an input" 2
run "$VALIDATE" -0 "$T/d/b1_4.npy"
expect_rc "-0 without --files-from is a usage error" 2

# Each JSON line stands alone: path, verdict, format, arrays, error (code,
# field, offset, message), warnings, afmt_version.
run "$VALIDATE" --json --files-from "$T/list"
version=$("$VALIDATE" --version | awk '{print $NF}')
if printf '%s\n' "$OUT" | VERSION="$version" python3 -c '
import json, os, sys
objs = [json.loads(l) for l in sys.stdin]
assert [o["verdict"] for o in objs] == ["valid", "invalid", "valid", "error"], objs
for o in objs:
    for k in ("path", "verdict", "format", "arrays", "error", "warnings", "afmt_version"):
        assert k in o, (k, o)
    assert o["afmt_version"] == os.environ["VERSION"], o
    if o["verdict"] != "valid":
        for k in ("code", "field", "offset", "message"):
            assert k in o["error"], (k, o)
assert objs[1]["error"]["code"] == "truncated" and objs[1]["error"]["field"] == "header"
assert objs[3]["error"]["code"] == "io"
' 2> "$T/py.err"; then pass "--json: self-contained lines (verdict, error, afmt_version)"; else
    fail "--json: self-contained lines (verdict, error, afmt_version)" "$(tail -1 "$T/py.err") in ${OUT:0:300}"; fi

# docs/AT-SCALE.md's recipe, on the local host: the command as the doc
# spells it, with the hosts replaced by two local job slots.
if ! command -v parallel > /dev/null 2>&1; then
    echo "SKIP scale: GNU parallel is not installed (Debian: parallel; make deps-test installs it)"
    exit $FAILED
fi
recipe=$(grep -m1 '^parallel --will-cite --pipe-part' "$REPO/docs/AT-SCALE.md")
check "docs/AT-SCALE.md holds the parallel recipe" test -n "$recipe"
local_cmd=${recipe/--sshlogin 8\/host1,8\/host2,4\/:/--sshlogin 2\/:}
local_cmd=${local_cmd/--block 1M/--block 300}
local_cmd=${local_cmd/afmt-validate /$VALIDATE }
local_cmd=${local_cmd/ > verdicts.jsonl/}
check "the recipe's hosts and tool are where the test expects them" \
    test "$local_cmd" != "$recipe" -a "${local_cmd#*--sshlogin 2/:}" != "$local_cmd"
for i in $(seq 1 40); do cp "$S/npy/f4_2x3_fortran.npy" "$T/d/m$i.npy"; done
(ls "$T"/d/m*.npy; echo "$T/d/cut.npy"; echo "$T/d/gone.npy") > "$T/shards.txt"
(cd "$T" && sed "s|-a shards.txt|-a $T/shards.txt|" <<< "$local_cmd" > "$T/cmd")
timeout 120 bash "$T/cmd" > "$T/verdicts.jsonl" 2> "$T/perr"
prc=$?
check "parallel: the failed jobs are counted in its status (1 or 2 here)" test "$prc" -ge 1 -a "$prc" -le 2
if python3 - "$T/verdicts.jsonl" "$T/shards.txt" <<'PY' 2> "$T/py.err"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
want = open(sys.argv[2]).read().splitlines()
objs = [json.loads(l) for l in lines]
got = sorted(o["path"] for o in objs)
assert got == sorted(want), (len(got), len(want))
v = {o["path"]: o["verdict"] for o in objs}
assert v[want[-2]] == "invalid" and v[want[-1]] == "error", v
assert sum(1 for x in v.values() if x == "valid") == 40
PY
then pass "parallel recipe: merged JSON lines cover every path once, right verdicts"
else fail "parallel recipe: merged JSON lines cover every path once, right verdicts" \
    "$(tail -1 "$T/py.err"); cmd: $(cat "$T/cmd"); stderr: $(head -c 300 "$T/perr")"; fi

# What the doc says of --block: 1M makes a short list one job; the
# --block -4 recipe four jobs per slot (8 on the 2 local slots), every
# path still checked once.
jobs_of() { # the recipe line ($1), run with a job log: how many jobs ran
    local cmd=${1/--sshlogin 8\/host1,8\/host2,4\/:/--sshlogin 2\/: --joblog $T/jobs}
    cmd=${cmd/afmt-validate /$VALIDATE }
    cmd=${cmd/-a shards.txt/-a $T/shards.txt}
    cmd=${cmd/ > verdicts.jsonl/ > $T/v2.jsonl}
    rm -f "$T/jobs"
    timeout 120 bash -c "$cmd" 2> /dev/null
    echo $(( $(wc -l < "$T/jobs") - 1 ))
}
check "--block 1M: the 42-path list is one job, as the doc says" test "$(jobs_of "$recipe")" = 1
recipe4=$(grep -m1 '^parallel --will-cite --pipe-part .*--block -4 ' "$REPO/docs/AT-SCALE.md")
n=$(jobs_of "$recipe4")
check "--block -4: $n jobs on 2 slots (about 4 per slot), as the doc says" test "$n" -ge 6 -a "$n" -le 8
check "... and every path checked once" test "$(wc -l < "$T/v2.jsonl")" = "$(wc -l < "$T/shards.txt")"
exit $FAILED
