"""The Python suite's shared setup: where the package, the CLI and the
corpora are, and one "PASS name" / "FAIL name: why" / "SKIP name: why"
line per test (tests/run.sh counts them) written to $AFMT_PY_REPORT."""
import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("AFMT_BUILD", REPO / "build"))
if not BUILD.is_absolute():
    BUILD = REPO / BUILD


@pytest.fixture(scope="session")
def repo():
    return REPO


@pytest.fixture(scope="session")
def cli_validate():
    path = BUILD / "afmt-validate"
    if not path.exists():
        pytest.skip(f"no {path} (make all builds it)")
    return str(path)


def _name(report):
    return "python " + report.nodeid.split("::", 1)[-1].replace(" ", "_")


def _line(report):
    if report.passed and report.when == "call":
        return f"PASS {_name(report)}"
    if report.skipped:
        why = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        return f"SKIP {_name(report)}: {why.replace('Skipped: ', '')}"
    if report.failed:
        why = str(report.longrepr).strip().splitlines()
        last = why[-1] if why else "failed"
        return f"FAIL {_name(report)}: {report.when}: {last[:300]}"
    return None


def pytest_runtest_logreport(report):
    line = _line(report)
    path = os.environ.get("AFMT_PY_REPORT")
    if line and path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(line + "\n")
