#!/usr/bin/env python3
"""Print a diff that sets the constants of the 7.2 series' kept objects.

Usage: slot-constants-7.2.py TREE SLOTS OBJS SIZE_MAX BYTES_MAX

TREE is a git tree with the 7.2 series applied (e.g. the cache's
trees/patched). The diff, against TREE's mm/slub.c, sets
SLAB_CHARGED_SLOTS (1, 2 or 4), SLAB_CHARGED_OBJS (objects a slot),
SLAB_CHARGED_SIZE_MAX (largest object kept, bytes) and
SLAB_CHARGED_BYTES_MAX (what a CPU's slots may reserve, bytes); with a
slot count other than 2 the slot lookup of a free becomes a loop and the
one-slot test's "any objects" word takes the slot count's width. A
measurement-only change: make it the floor kernel with FLOOR_DIFF (see
tests/experiments/kept-slots-7.2.md, "The constants"). TREE is left as it
was.
"""
import re
import subprocess
import sys


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    tree = sys.argv[1]
    try:
        slots, objs, smax, bmax = (int(a) for a in sys.argv[2:])
    except ValueError:
        sys.exit("SLOTS, OBJS, SIZE_MAX and BYTES_MAX are numbers\n" + __doc__)
    if slots not in (1, 2, 4) or objs < 1 or objs > 255 or smax < 8 or bmax < smax * objs:
        sys.exit("want SLOTS 1, 2 or 4, OBJS 1-255, SIZE_MAX >= 8, BYTES_MAX >= OBJS * SIZE_MAX")
    path = tree + "/mm/slub.c"
    with open(path) as f:
        orig = f.read()
    s = orig

    def rep(old, new):
        nonlocal s
        if s.count(old) != 1:
            sys.exit(f"{path}: expected once: {old!r} (not the 7.2 series?)")
        s = s.replace(old, new)

    def define(name, value):
        nonlocal s
        s, n = re.subn(r"^#define %s\t.*$" % name, "#define %s\t%d" % (name, value),
                       s, flags=re.M)
        if n != 1:
            sys.exit(f"{path}: no single #define {name} (not the 7.2 series?)")

    if "#define SLAB_CHARGED_SLOTS\t2\n" not in s:
        sys.exit(f"{path}: SLAB_CHARGED_SLOTS is not 2 (not the 7.2 series?)")
    define("SLAB_CHARGED_SLOTS", slots)
    define("SLAB_CHARGED_OBJS", objs)
    define("SLAB_CHARGED_SIZE_MAX", smax)
    define("SLAB_CHARGED_BYTES_MAX", bmax)
    if slots != 2:
        ty = {1: "u8", 4: "u32"}[slots]
        rep("\t\tu16 nr_any;", "\t\t%s nr_any;" % ty)
        rep("->nr) != sizeof(u16));", "->nr) != sizeof(%s));" % ty)
        rep("\tBUILD_BUG_ON(SLAB_CHARGED_SLOTS != 2);\n", "")
        start = s.index("\tif (likely(c->objcg[0] == objcg))")
        last = "\t\ti = charged_slot_claim(s, c, objcg);"
        end = s.index(last, start) + len(last)
        s = (s[:start] + "\tfor (i = 0; i < SLAB_CHARGED_SLOTS; i++)\n"
             "\t\tif (c->objcg[i] == objcg)\n\t\t\tbreak;\n"
             "\tif (i == SLAB_CHARGED_SLOTS)\n" + last + s[end:])
    with open(path, "w") as f:
        f.write(s)
    try:
        out = subprocess.run(["git", "-C", tree, "diff", "--", "mm/slub.c"],
                             check=True, capture_output=True, text=True).stdout
    finally:
        with open(path, "w") as f:
            f.write(orig)
    sys.stdout.write(out)


if __name__ == "__main__":
    main()
