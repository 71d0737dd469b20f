"""afmt.validate against afmt-validate --json on every corpus file, every
invalid example and every golden case: the same verdict, format, error
(code, field, offset, message) and arrays."""
import json
import pathlib
import subprocess

import pytest

import afmt

REPO = pathlib.Path(__file__).resolve().parents[2]


def inputs():
    files = [p for p in sorted((REPO / "corpus").rglob("*")) if p.is_file() and p.suffix != ".md"]
    files += sorted((REPO / "examples" / "invalid").iterdir())
    files += sorted(REPO.glob("tests/*/*/input"))
    return [p for p in files if p.is_file() and p.stat().st_size < (64 << 20)]


def cli_lines(cli, paths, lenient=False):
    """afmt-validate --json over paths: path -> its lines (an archive gives one per member)."""
    args = [cli, "--json"] + (["--lenient"] if lenient else []) + [str(p) for p in paths]
    out = subprocess.run(args, capture_output=True, text=True, check=False).stdout
    by_path = {}
    for line in out.splitlines():
        row = json.loads(line)
        by_path.setdefault(row["archive"] or row["path"], []).append(row)
    return by_path


def as_cli_text(name):
    """A name as afmt-validate --json prints it: bad UTF-8 replaced (afmt
    keeps the bytes, as surrogate escapes)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def arrays_of(result):
    return [(as_cli_text(a.stored_name), a.type_name if a.dtype == "opaque" else a.dtype, list(a.shape), a.offset,
             a.nbytes) for a in result.arrays]


def cli_arrays(rows):
    return [(a["name"], a.get("opaque_name", a["dtype"]), a["shape"], a["offset"], a["nbytes"])
            for row in rows for a in row["arrays"]]


def compare(path, rows, result):
    if len(rows) == 1 and rows[0]["member"] is None:
        row = rows[0]
        assert result.ok == row["valid"], (path, result.error, row["error"])
        assert result.format == row["format"], path
        if not row["valid"]:
            e = row["error"]
            assert (result.error.code, result.error.field, result.error.offset,
                    result.error.message) == (e["code"], e["field"], e["offset"], e["message"]), path
        assert arrays_of(result) == cli_arrays(rows), path
    else:
        # an archive: the CLI says one line per member; valid when all are
        assert result.ok == all(r["valid"] for r in rows), (path, result.error)
        if result.ok:
            assert arrays_of(result) == cli_arrays(rows), path


@pytest.mark.parametrize("lenient", [False, True], ids=["strict", "lenient"])
def test_same_verdicts_as_cli(cli_validate, lenient):
    paths = inputs()
    assert len(paths) > 100
    rows = cli_lines(cli_validate, paths, lenient)
    checked = 0
    for p in paths:
        if str(p) not in rows:
            continue
        compare(p, rows[str(p)], afmt.validate(p, lenient=lenient))
        checked += 1
    assert checked > 100


def test_bytes_give_the_file_verdict():
    """Bytes in memory: the same verdict as the file (formats detected by magic)."""
    for p in inputs():
        data = p.read_bytes()
        by_path, by_bytes = afmt.validate(p), afmt.validate(data, format=afmt.validate(p).format)
        if by_path.format is None or afmt.validate(p).error and afmt.validate(p).error.code == "detect":
            continue
        if by_path.format == "daphne":
            continue  # a sidecar beside the file is checked for a path only
        assert by_path.ok == by_bytes.ok, p
        if not by_path.ok:
            assert by_path.error.code == by_bytes.error.code, p


def test_invalid_examples_give_the_right_error():
    want = {
        "short_payload.npy": ("truncated", "data", 128),
        "size_mismatch.ra": None,
        "overlap.safetensors": None,
        "bool_byte_2.bin": None,
    }
    for name, expect in want.items():
        r = afmt.validate(REPO / "examples" / "invalid" / name)
        assert not r.ok and r.error is not None and r.error.message, name
        assert r.arrays == []
        if expect:
            assert (r.error.code, r.error.field, r.error.offset) == expect


def test_never_raises_for_a_bad_input(tmp_path):
    missing = afmt.validate(tmp_path / "no-such-file.npy")
    assert not missing.ok and missing.error.code == "io" and missing.error.offset is None
    empty = tmp_path / "empty.npy"
    empty.write_bytes(b"")
    assert afmt.validate(empty).error.code == "detect"
    assert afmt.validate(b"\x93NUMPY garbage").error.code in ("magic", "truncated", "constraint")
    assert afmt.validate(tmp_path).error.code == "io"


def test_limits_and_forced_format():
    path = REPO / "corpus" / "safetensors" / "two_tensors_metadata.safetensors"
    r = afmt.validate(path, limits={"max_header_bytes": 10})
    assert not r.ok and r.error.code == "limit"
    r = afmt.validate(path, format="npy")
    assert not r.ok and r.format == "npy" and r.error.code == "magic"
    with pytest.raises(ValueError):
        afmt.validate(path, format="no-such-format")
    with pytest.raises(ValueError):
        afmt.validate(path, limits={"max_nothing": 1})
