#!/usr/bin/env python3
"""A solver that floods its standard output forever."""
import sys

block = "9" * 65535 + "\n"
while True:
    sys.stdout.write(block)
