#!/usr/bin/env python3
"""--help, the man pages and the option parsers agree, for afmt-validate and
every afmt command:

  - every option --help lists is in the man page's section for that command,
    and every option the man page describes (a .TP entry) is in --help;
  - every option of the command's option table (cli/*.c) is in --help, and
    every option --help lists is accepted (never "unknown option");
  - afmt validate --help and afmt-validate --help list the same options.

-h/--help is left out of the per-command comparison: the man page says once,
under "afmt help", that every command takes it.

Usage: tests/e2e/help_man.py [BUILD_DIR]   One PASS/FAIL line per check.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import REPO, Suite  # noqa: E402

SUITE = Suite("help-man")
AFMT, VALIDATE = SUITE.afmt, SUITE.validate
check = SUITE.check

# command -> (the C file holding its option table, its man page, the section)
COMMANDS = {
    "formats": ("cmd_formats.c", "afmt.1", "afmt formats"),
    "info": ("info.c", "afmt.1", "afmt info"),
    "dump": ("dump.c", "afmt.1", "afmt dump"),
    "convert": ("convert.c", "afmt.1", "afmt convert"),
    "random": ("random.c", "afmt.1", "afmt random"),
    "afmt-validate": ("validate.c", "afmt-validate.1", None),
}
HELP_ONLY = {"-h", "--help"}
# What every page that lists them must list in full (issue 25, point 11).
TAR_SUFFIXES = re.findall(r'"(\.t[a-z0-9.]*)"', open(os.path.join(REPO, "cli", "shard.c")).read())
OPTION = re.compile(r"(?<![\w-])--?[A-Za-z0-9][A-Za-z0-9-]*")


def run(args):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, timeout=60)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def help_options(text):
    """Options in a --help text: the option column of lines indented by at
    most 8 spaces that start with '-' (descriptions continue deeper)."""
    opts = set()
    for line in text.splitlines():
        m = re.match(r"^ {1,8}(-\S.*?)(?: {2,}|$)", line)
        if m:
            opts.update(OPTION.findall(m.group(1)))
    return opts


def troff_args(line):
    """The arguments of a troff request, with its quoting."""
    args, cur, quoted, i = [], "", False, 0
    while i < len(line):
        c = line[i]
        if c == '"':
            quoted = not quoted
        elif c == " " and not quoted:
            if cur:
                args.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    if cur:
        args.append(cur)
    return args


def troff_text(line):
    """A man page line as it reads: font requests with alternating fonts
    join their arguments, escapes for fonts and '-' are dropped."""
    m = re.match(r"^\.(B|I|BI|BR|IB|IR|RB|RI)\s+(.*)$", line)
    if m:
        args = troff_args(m.group(2))
        line = (" " if m.group(1) in ("B", "I") else "").join(args)
    line = re.sub(r"\\f[BIRP]", "", line)
    return line.replace("\\-", "-").replace("\\e", "\\")


def man_options(page, section):
    """Options named by the .TP tags of the man page (of one .SS section
    'afmt CMD ...' when section is given)."""
    with open(os.path.join(REPO, "docs", page)) as f:
        lines = f.read().splitlines()
    opts, inside, tag_next = set(), section is None, False
    for line in lines:
        if line.startswith(".SS ") or line.startswith(".SH "):
            if section is not None:
                inside = line.startswith(".SS ") and \
                    (line[4:] == section or line[4:].startswith(section + " "))
            elif line.startswith(".SH "):
                inside = line[4:] not in ("EXIT STATUS", "EXAMPLES", "SEE ALSO")
            continue
        if line == ".TP":
            tag_next = True
            continue
        if tag_next and inside:
            opts.update(OPTION.findall(troff_text(line)))
        tag_next = False
    return opts


def table_options(cfile):
    """Options of an afmt_cli_optdef table: { "long", 's', has_arg, ID }."""
    with open(os.path.join(REPO, "cli", cfile)) as f:
        src = f.read()
    opts = set()
    for long_name, short in re.findall(r'\{\s*"([\w-]+)",\s*(?:\'(.)\'|0),\s*[01],', src):
        opts.add("--" + long_name)
        if short:
            opts.add("-" + short)
    if "AFMT_CLI_LIMIT_OPTDEFS" in src:  # cli/limit_opts.h: shared by the commands that validate
        opts.update({"--max-header-bytes", "--max-depth", "--max-items", "--max-kept-bytes"})
    if "BOUNDS_OPT(" in src:  # --i8-bounds ... --f64-bounds: --T-bounds in the docs
        opts.add("--T-bounds")
    return opts


def accepted(tool, option):
    """The command does not call option unknown."""
    probe = "--f32-bounds" if option == "--T-bounds" else option
    _, _, err = run(tool + [probe])
    return "unknown option" not in err


for cmd, (cfile, page, section) in COMMANDS.items():
    tool = [VALIDATE] if cmd == "afmt-validate" else [AFMT, cmd]
    rc, out, err = run(tool + ["--help"])
    check("%s --help exits 0 with a Usage line" % cmd, rc == 0 and out.startswith("Usage: "),
          "rc %d, stdout %r, stderr %r" % (rc, out[:80], err[:200]))
    in_help = help_options(out) - HELP_ONLY
    in_man = man_options(page, section) - HELP_ONLY
    in_table = table_options(cfile) - HELP_ONLY
    check("%s: every option in --help is in %s" % (cmd, page), in_help <= in_man,
          "missing from the man page: %s" % sorted(in_help - in_man))
    check("%s: every option %s describes is in --help" % (cmd, page), in_man <= in_help,
          "missing from --help: %s" % sorted(in_man - in_help))
    check("%s: every option it accepts is in --help" % cmd, in_table <= in_help,
          "undocumented in --help: %s" % sorted(in_table - in_help))
    unknown = sorted(o for o in in_help if not accepted(tool, o))
    check("%s: every option in --help is accepted" % cmd, not unknown,
          "called unknown: %s" % unknown)

_, sub, _ = run([AFMT, "validate", "--help"])
_, own, _ = run([VALIDATE, "--help"])
check("afmt validate --help lists the options of afmt-validate --help",
      help_options(sub) == help_options(own) and help_options(own),
      "%s vs %s" % (sorted(help_options(sub)), sorted(help_options(own))))

# The top level: afmt --help's options are in afmt.1 (its SYNOPSIS).
_, top, _ = run([AFMT, "--help"])
with open(os.path.join(REPO, "docs", "afmt.1")) as f:
    page_text = troff_text("\n".join(troff_text(l) for l in f.read().splitlines()))
missing = sorted(o for o in help_options(top) if o not in set(OPTION.findall(page_text)))
check("afmt --help: its options are in afmt.1", not missing, "missing: %s" % missing)
# Every command afmt --help lists has a section in afmt.1.
cmds = re.findall(r"^  ([a-z]+)\b", top.split("\nExamples")[0], re.M)
sections = set(re.findall(r"^\.SS afmt ([a-z]+)", open(os.path.join(REPO, "docs", "afmt.1")).read(), re.M))
check("afmt --help: every command has a section in afmt.1", cmds and set(cmds) <= sections,
      "commands %s, sections %s" % (cmds, sorted(sections)))

# afmt-validate's page and --help name every tar suffix shard.c opens, and
# the page's NAME line every format afmt knows; every page's type list
# names every element type.
_, vhelp, _ = run([VALIDATE, "--help"])
vpage = "\n".join(troff_text(l) for l in open(os.path.join(REPO, "docs", "afmt-validate.1")).read().splitlines())
check("tar suffixes were found in cli/shard.c", len(TAR_SUFFIXES) >= 5, repr(TAR_SUFFIXES))
for suffix in TAR_SUFFIXES:
    check("afmt-validate --help names %s" % suffix, suffix in vhelp.replace("\n", " "), "")
    check("afmt-validate.1 names %s" % suffix, suffix in vpage, "")
_, formats, _ = run([AFMT, "formats"])
names = [l.split()[0] for l in formats.splitlines()[1:] if l.strip()]
name_line = [l for l in vpage.splitlines() if l.startswith("afmt-validate ")][0]
for n in names:
    check("afmt-validate.1 NAME names %s" % n, n in name_line, name_line)
_, chelp, _ = run([AFMT, "convert", "--help"])
types = re.search(r"class to TYPE \(([^;)]*)[;)]", " ".join(chelp.split())).group(1)
for t in [x.strip() for x in types.split(",")]:
    check("afmt-validate.1 lists element type %s" % t, re.search(r"\b%s\b" % t, vpage) is not None, "")

# The first words a newcomer reads name every format afmt knows: README's
# introduction (and the count it gives), afmt --help's first lines and
# afmt.1's DESCRIPTION.
readme = open(os.path.join(REPO, "README.md"), encoding="utf-8").read()
intro = readme.split("\n## ")[0].split("```")[-1]
page_desc = "\n".join(troff_text(l) for l in open(os.path.join(REPO, "docs", "afmt.1")).read().split(".SH DESCRIPTION")[1]
                      .split(".PP")[0].splitlines())
for n in names:
    check("README's introduction names %s" % n, n.lower() in intro.lower(), intro)
    check("afmt --help's first lines name %s" % n, n in top.split("\n\n")[0], top.split("\n\n")[0])
    check("afmt.1 DESCRIPTION names %s" % n, n in page_desc, page_desc)
NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
said = re.findall(r"\b(%s) formats\b" % "|".join(NUMBERS), intro)
check("README's introduction counts the formats right", all(NUMBERS.index(w) == len(names) for w in said),
      "says %s, afmt formats lists %d" % (said, len(names)))

# docs/FORMATS.md, the rulebook in the repository, has a section for every
# format afmt knows (kept current as formats are added), and nothing points
# at a rulebook outside the repository.
rules = open(os.path.join(REPO, "docs", "FORMATS.md"), encoding="utf-8").read()
for n in names:
    check("docs/FORMATS.md has a section for %s" % n, re.search(r"^## %s\b" % re.escape(n), rules, re.M) is not None, "")
outside = subprocess.run(["grep", "-rlF", "shared/" + "FORMATS.md", "--exclude-dir=build", "--exclude-dir=.git", "."],
                         cwd=REPO, stdout=subprocess.PIPE).stdout.decode().split()
check("no file cites the rulebook outside the repository (../shared)", not outside, " ".join(outside))

sys.exit(SUITE.failed)
