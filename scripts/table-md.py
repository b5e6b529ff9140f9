#!/usr/bin/env python3
"""The harness's tables (tests/*.conf, config-fragments/sets.conf) as
Markdown, and README.md's copies of them kept equal to the tables.

A table is a text file: "#" lines are comments, the comment line right
before the first row names the columns (separated by two or more spaces);
a row's fields are separated by white space, the last column taking the
rest of the line. README.md embeds a table between
"<!-- table: PATH[ COLUMN=VALUE] -->" and "<!-- end table -->" (rows whose
COLUMN is VALUE only).

Usage: scripts/table-md.py PATH [COLUMN=VALUE]   print PATH as Markdown
       scripts/table-md.py --check README.md     exit 1 if a copy differs
       scripts/table-md.py --write README.md     rewrite the copies
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
MARK = re.compile(r"^<!-- table: (\S+)(?: (\S+)=(\S+))? -->$")
END = "<!-- end table -->"


def read_table(path):
    """(columns, rows) of the table at PATH (relative to the repository)."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        lines = f.read().splitlines()
    header, rows = None, []
    for i, line in enumerate(lines):
        if not line.strip() or line.startswith("#"):
            continue
        if header is None:
            prev = lines[i - 1] if i else ""
            if not prev.startswith("#"):
                sys.exit(f"{path}: no column line before its first row")
            header = re.split(r"\s{2,}", prev.lstrip("#").strip())
        rows.append(line.split(None, len(header) - 1))
    if header is None:
        sys.exit(f"{path}: no rows")
    return header, rows


def cell(text):
    """TEXT as a Markdown table cell: "|" and "<" escaped."""
    return text.replace("|", "\\|").replace("<", "&lt;")


def markdown(path, where=None):
    """PATH's rows (those with column where[0] == where[1]) as Markdown."""
    header, rows = read_table(path)
    if where:
        if where[0] not in header:
            sys.exit(f"{path}: no column '{where[0]}' (columns: {', '.join(header)})")
        col = header.index(where[0])
        rows = [r for r in rows if len(r) > col and r[col] == where[1]]
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        r = r + [""] * (len(header) - len(r))
        out.append("| " + " | ".join(cell(c) for c in r) + " |")
    return out


def copies(readme, write):
    """Check (or rewrite) README's copies; the number that differed."""
    with open(readme, encoding="utf-8") as f:
        lines = f.read().splitlines()
    out, bad, i = [], 0, 0
    while i < len(lines):
        out.append(lines[i])
        m = MARK.match(lines[i])
        i += 1
        if not m:
            continue
        j = i
        while j < len(lines) and lines[j] != END:
            j += 1
        if j == len(lines):
            sys.exit(f"{readme}: '{lines[i - 1]}' without '{END}'")
        want = markdown(m.group(1), (m.group(2), m.group(3)) if m.group(2) else None)
        if lines[i:j] != want:
            bad += 1
            print(f"{readme}:{i}: the copy of {m.group(1)} differs from the table"
                  + ("" if write else " (scripts/table-md.py --write README.md)"))
        out.extend(want)
        i = j
    if write:
        with open(readme, "w", encoding="utf-8") as f:
            f.write("\n".join(out) + "\n")
    return bad


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if args[0] in ("--check", "--write") and len(args) == 2:
        bad = copies(args[1], args[0] == "--write")
        return 1 if bad and args[0] == "--check" else 0
    if len(args) in (1, 2) and not args[0].startswith("-"):
        where = tuple(args[1].split("=", 1)) if len(args) == 2 else None
        print("\n".join(markdown(args[0], where)))
        return 0
    sys.exit("usage: scripts/table-md.py PATH [COLUMN=VALUE] | --check|--write README.md")


if __name__ == "__main__":
    sys.exit(main())
