#!/usr/bin/env python3
"""A solver that lies: it fills every empty cell with 1 and prints that grid."""
import sys

rows = [line.split() for line in open(sys.argv[1]) if line.strip() and not line.startswith("#")]
print("\n".join(" ".join("1" if tok == "." else tok for tok in row) for row in rows))
