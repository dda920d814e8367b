#!/usr/bin/env python3
"""A solver that fails: a message on stderr and exit status 3, no answer."""
import sys

sys.stderr.write("crasher: cannot cope with this puzzle\n")
sys.exit(3)
