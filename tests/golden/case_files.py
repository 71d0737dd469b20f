"""The golden cases' files, as tests/unit/test_golden.c reads them:
tests/<format>/<name>/input and .../expect.  Shared by make_fits_cases.py,
make_mat5_cases.py and make_nifti1_cases.py."""
import os
import shutil


def write_cases(fmt, out, cases):
    """Replace the case folders of out with cases: tuples of (name, doc,
    bytes, mode, valid, code, field, offset, contains, warnings)."""
    if os.path.isdir(out):
        for d in os.listdir(out):
            if os.path.isdir(os.path.join(out, d)):
                shutil.rmtree(os.path.join(out, d))
    os.makedirs(out, exist_ok=True)
    for name, doc, data, mode, valid, code, field, offset, contains, warnings in cases:
        d = os.path.join(out, name)
        os.makedirs(d)
        with open(os.path.join(d, "input"), "wb") as f:
            f.write(data)
        lines = ["# %s: %s" % (name, doc), "format: " + fmt, "mode: " + mode, "valid: " + ("yes" if valid else "no")]
        if code or not valid:
            lines.append("code: " + (code or "constraint"))
        if field is not None:
            lines.append("field: " + field)
        if offset is not None:
            lines.append("offset: %d" % offset)
        if contains:
            lines.append("message-contains: " + contains)
        if warnings is not None or valid:
            lines.append("warnings: %d" % (warnings or 0))
        with open(os.path.join(d, "expect"), "w") as f:
            f.write("\n".join(lines) + "\n")
    print("%d cases in %s" % (len(cases), os.path.relpath(out)))
