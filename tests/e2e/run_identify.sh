#!/usr/bin/env bash
# What a file is when it is not an array file: a Git LFS pointer saved in
# place of a model, an HTML or XML page saved by a failed download, a
# Python pickle, a zip of no known format.  Each is named as what it is
# (exit 1), by extension or not, alone or met in a directory walk (a pickle
# is never skipped in silence).
# Usage: tests/e2e/run_identify.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/lib.sh" "$@"

printf 'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n' > "$T/model.safetensors"
printf '<!DOCTYPE html>\n<html><body>Access denied</body></html>\n' > "$T/page.npy"
printf '<?xml version="1.0"?><Error><Code>NoSuchKey</Code></Error>' > "$T/reply.gguf"
printf '\x80\x02}q\x00.' > "$T/state.pkl"
printf 'PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0' > "$T/empty.pt"

# table: file, the words its refusal must hold
while IFS='|' read -r file words; do
    run "$VALIDATE" "$T/$file"
    expect_rc "identify-$file-exit-1" 1
    expect_out_has "identify-$file-named" "$words"
done <<'TABLE'
model.safetensors|named like safetensors, but it is a Git LFS pointer file
page.npy|named like npy, but it is an HTML page
reply.gguf|named like gguf, but it is an XML document
state.pkl|a Python pickle: loading it runs whatever it names; afmt never runs one
empty.pt|named like torch, but it is a zip archive of no known format
TABLE

mkdir -p "$T/walk"
cp "$T/state.pkl" "$T/model.safetensors" "$T/walk/"
echo notes > "$T/walk/readme.txt"
run "$VALIDATE" -r "$T/walk"
expect_rc identify-walk-exit-1 1
expect_out_has identify-walk-pickle-reported "state.pkl: invalid: a Python pickle"
expect_out_has identify-walk-lfs-reported "model.safetensors: invalid: named like safetensors, but it is a Git LFS pointer"
run "$VALIDATE" --json "$T/model.safetensors"
expect_out_has identify-json-code '"code":"detect"'
exit $FAILED
