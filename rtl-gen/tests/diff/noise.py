#!/usr/bin/env python3
"""noise.py OLD.v NEW.v — which of the lines `diff OLD.v NEW.v` shows did the C change not ask for.

Prints one line: REMOVED ADDED MOVED RENUMBERED REDECLARED
  REMOVED, ADDED  the lines diff shows (<, >)
  MOVED       lines shown removed and added with the same text: printed elsewhere
  RENUMBERED  lines shown removed and added that are equal once every wire name's count K
              (BASE_LINE..._K, docs/rtl-gen.md) is ignored: a wire renumbered, or a reader
              of one
  REDECLARED  a wire's declaration ahead of the logic that appears or goes while the wire
              stays, and its "wire X =" that becomes "assign X =" or back (wire_order.c)
MOVED + RENUMBERED + REDECLARED is what rtl-gen's naming and ordering add to the diff of a
change; the rest is logic that changed (rtl-gen/tests/diff/run).
"""
import collections
import re
import subprocess
import sys

WIRE = re.compile(r"\b([A-Za-z]\w*?_\d+(?:c\d+)*)_\d+\b")
DECL = re.compile(r"^\s*(?:wire|reg)\s+(?:\[\d+:0\]\s+)?(\w+);$")
DEF = re.compile(r"^\s*(?:wire\s+(?:\[\d+:0\]\s+)?|assign\s+)(\w+) = (.*)$")


def main():
    old, new = sys.argv[1], sys.argv[2]
    diff = subprocess.run(["diff", old, new], capture_output=True, text=True).stdout.splitlines()
    rem = collections.Counter(l[2:] for l in diff if l.startswith("< "))
    add = collections.Counter(l[2:] for l in diff if l.startswith("> "))
    n_rem, n_add = sum(rem.values()), sum(add.values())
    moved = rem & add
    rem, add = rem - moved, add - moved

    def names(path):
        return set(m.group(1) for m in map(DEF.match, open(path)) if m)

    both = names(old) & names(new)
    redecl = 0
    for side in (rem, add):
        for line in list(side):
            m = DECL.match(line)
            if m and m.group(1) in both:
                redecl += side.pop(line)
    # "wire [7:0] X = E;" against "assign X = E;": the same definition
    def form(line):
        m = DEF.match(line)
        return "%s = %s" % (m.group(1), m.group(2)) if m else None

    forms = [collections.Counter(), collections.Counter()]
    for f, side in zip(forms, (rem, add)):
        for line, n in side.items():
            if form(line):
                f[form(line)] += n
    same = forms[0] & forms[1]
    redecl += 2 * sum(same.values())
    for side in (rem, add):
        left = collections.Counter(same)
        for line in list(side):
            f = form(line)
            if f and left[f]:
                k = min(side[line], left[f])
                left[f] -= k
                side[line] -= k
                if not side[line]:
                    del side[line]
    renum = collections.Counter(WIRE.sub(r"\1_K", l) for l in rem.elements()) & \
        collections.Counter(WIRE.sub(r"\1_K", l) for l in add.elements())
    print(n_rem, n_add, 2 * sum(moved.values()), 2 * sum(renum.values()), redecl)


if __name__ == "__main__":
    main()
