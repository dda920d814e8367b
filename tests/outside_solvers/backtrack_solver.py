#!/usr/bin/env python3
"""An outside Sudoku solver for the `cmd` entrant's tests: pure-Python backtracking.

Usage: backtrack_solver.py [--version] [--count LIMIT] [--oneline-out] [FILE]
Reads a native grid (rows of tokens, '.' or '0' empty) or a one-line puzzle
from FILE or stdin; prints the solution as a native grid (or one line with
--oneline-out), or "no solution". With --count LIMIT (0 = all) it prints the
number of solutions first, then the first solution.
"""
import sys

DIGITS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def read(text):
    rows = [line.split() for line in text.splitlines()
            if line.strip() and not line.startswith("#")]
    if len(rows) == 1 and len(rows[0]) == 1:               # one-line format
        line = rows[0][0]
        side = round(len(line) ** 0.5)
        cells = [0 if ch in ".0" else DIGITS.index(ch.upper()) + 1 for ch in line]
        return [cells[r * side:(r + 1) * side] for r in range(side)]
    return [[0 if tok == "." else int(tok) for tok in row] for row in rows]


def search(cells, n, limit, found):
    side = n * n
    best = None
    for i in range(side):
        for j in range(side):
            if cells[i][j] == 0:
                used = set(cells[i]) | {cells[t][j] for t in range(side)}
                bi, bj = i - i % n, j - j % n
                used |= {cells[a][b] for a in range(bi, bi + n) for b in range(bj, bj + n)}
                options = [k for k in range(1, side + 1) if k not in used]
                if best is None or len(options) < len(best[2]):
                    best = (i, j, options)
    if best is None:
        found.append([row[:] for row in cells])
        return limit > 0 and len(found) >= limit
    i, j, options = best
    for k in options:
        cells[i][j] = k
        if search(cells, n, limit, found):
            cells[i][j] = 0
            return True
    cells[i][j] = 0
    return False


def main(argv):
    if "--version" in argv:
        print("backtrack-solver 1.0 (test fixture)")
        return 0
    limit, oneline = 1, "--oneline-out" in argv
    argv = [a for a in argv if a != "--oneline-out"]
    counting = "--count" in argv
    if counting:
        at = argv.index("--count")
        limit = int(argv[at + 1])
        del argv[at:at + 2]
    text = open(argv[0]).read() if argv else sys.stdin.read()
    cells = read(text)
    n = round(len(cells) ** 0.5)
    found = []
    search(cells, n, limit, found)
    if counting:
        print(len(found))
    if not found:
        if not counting:
            print("no solution")
        return 0
    if oneline:
        print("".join(DIGITS[v - 1] for row in found[0] for v in row))
    else:
        print("\n".join(" ".join(map(str, row)) for row in found[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
