#!/usr/bin/env python3
"""Every link to a section inside the same Markdown file ("](#anchor)")
names a heading of that file, as GitHub makes its anchors (lower case,
punctuation but - and _ dropped, spaces as -; a repeated heading gets -1,
-2, ...).  One "PASS file" / "FAIL file: why" line per file (tests/run.sh).

    python3 tests/docs/anchors.py FILE.md...
"""
import re
import sys


def anchors(text):
    seen, out = {}, set()
    in_code = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        m = None if in_code else re.match(r"#{1,6} (.*)$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else "%s-%d" % (slug, n))
    return out


def main(paths):
    fails = 0
    for path in paths:
        text = open(path, encoding="utf-8").read()
        have = anchors(text)
        broken = ["#%s (line %d)" % (m.group(1), text.count("\n", 0, m.start()) + 1)
                  for m in re.finditer(r"\]\(#([^)\s]+)\)", text) if m.group(1) not in have]
        if broken:
            fails += 1
            print("FAIL %s: links to no section: %s" % (path, ", ".join(broken)))
        else:
            print("PASS %s: its section links resolve" % path)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
