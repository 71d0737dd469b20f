#!/usr/bin/env bash
# .pre-commit-hooks.yaml with the real pre-commit (Debian: pre-commit) in a
# temporary repository: valid array files (a GGUF model among them) are
# committed, an invalid one blocks the commit with afmt-validate's
# message, other files are not passed to it; the hook's extensions are
# those of the formats afmt knows.  One PASS/FAIL line per check.
set -u
SUITE=pre-commit
. "$(dirname "$0")/lib.sh" "$@"
S="$REPO/corpus"

# The hook picks exactly the files of the formats afmt-validate knows: the
# extensions `afmt formats` lists (GGUF's .gguf, torch's .pt among them),
# .npz (NumPy archives, each .npy member checked) and the pickles'
# .pkl and .pickle (always refused: loading one runs code); its
# description names the same.
want=$( { "$BUILD/afmt" formats | awk 'NR > 1 { for (c = 2; c <= 3; c++) { n = split($c, e, ","); for (i = 1; i <= n; i++) if (e[i] != "-") print substr(e[i], 2) } }'; echo npz; echo pkl; echo pickle; } | sort -u | tr '\n' ' ')
hook=$REPO/.pre-commit-hooks.yaml
got=$(sed -n "s/^  files: '(?i)\\\\\.(\(.*\))\\\$'$/\1/p" "$hook" | tr '|' '\n' | sort | tr '\n' ' ')
check "the hook's files regex is the extensions afmt formats lists, and .npz ($want)" test "$got" = "$want"
said=$(sed -n 's/^  description: Check that \(.*\) files are well-formed.*/\1/p' "$hook" | tr -d ',' | sed 's/ and / /' | tr ' ' '\n' | sed 's/^\.//' | sort | tr '\n' ' ')
check "the hook's description names the same extensions" test "$said" = "$want"

for tool in pre-commit git; do
    if ! command -v "$tool" > /dev/null 2>&1; then
        echo "SKIP pre-commit: $tool is not installed (Debian: $tool; make deps-test installs it)"
        exit 0
    fi
done
export PRE_COMMIT_HOME="$T/cache" HOME="$T/home" PATH="$BUILD:$PATH"
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org \
       GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
mkdir -p "$HOME"

# The hook repository: this repository's .pre-commit-hooks.yaml, committed.
mkdir "$T/hooks"
cp "$REPO/.pre-commit-hooks.yaml" "$T/hooks/"
git -C "$T/hooks" init -q && git -C "$T/hooks" add . && git -C "$T/hooks" commit -qm hooks
rev=$(git -C "$T/hooks" rev-parse HEAD)

# The repository that uses it.
mkdir "$T/repo"
cd "$T/repo" || exit 1
git init -q
cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $T/hooks
    rev: $rev
    hooks:
      - id: afmt-validate
YAML
run pre-commit install
expect_rc "pre-commit install" 0

cp "$S/npy/f8_2x3.npy" good.npy
cp "$S/rawarray/test.ra" "Good Name.ra"
cp "$S/gguf/align8_ints.gguf" model.gguf
echo "not an array" > notes.npy.txt
git add .pre-commit-config.yaml good.npy "Good Name.ra" model.gguf notes.npy.txt
run git commit -qm "valid arrays"
expect_rc "a commit of valid array files passes the hook" 0
expect_err_has "... and afmt-validate ran on them (Passed, not Skipped)" "afmt-validate (array file structure).....................................Passed"
check "... and the commit was made" git cat-file -e HEAD:good.npy
check "... with the GGUF model in it" git cat-file -e HEAD:model.gguf
head=$(git rev-parse HEAD)

head -c 20 "$S/npy/f8_2x3.npy" > bad.npy
git add bad.npy
run git commit -qm "a cut file"
expect_rc "a commit of an invalid array file is blocked" 1
expect_err_has "... with afmt-validate's message" \
    "bad.npy: invalid npy: header at offset 10: needs 118 bytes for header, only 10 left"
check "... and no commit was made" test "$(git rev-parse HEAD)" = "$head"

git reset -q bad.npy
head -c 40 "$S/gguf/align8_ints.gguf" > cut.GGUF
git add cut.GGUF
run git commit -qm "a cut model"
expect_rc "a commit of an invalid GGUF file (.GGUF: any case) is blocked" 1
expect_err_has "... with afmt-validate's message" "cut.GGUF: invalid gguf"
check "... and no commit was made" test "$(git rev-parse HEAD)" = "$head"

git reset -q cut.GGUF
# a PyTorch checkpoint is checked without running it; a bare pickle is refused
cp "$S/torch/x.pth" model.pt
git add model.pt
run git commit -qm "a checkpoint"
expect_rc "a commit of a valid PyTorch checkpoint passes the hook" 0
check "... and the commit was made" git cat-file -e HEAD:model.pt
head=$(git rev-parse HEAD)
printf '\x80\x02}q\x00.' > state.pkl
git add state.pkl
run git commit -qm "a pickle"
expect_rc "a commit of a pickle is blocked" 1
expect_err_has "... saying what it is" "state.pkl: invalid: a Python pickle"
check "... and no commit was made" test "$(git rev-parse HEAD)" = "$head"
git reset -q state.pkl

printf 'x' > bad.npy.bak
git add bad.npy.bak
run git commit -qm "not an array"
expect_rc "files without an array extension are not checked" 0
expect_err_has "... (no files to check)" "(no files to check)Skipped"
exit $FAILED
