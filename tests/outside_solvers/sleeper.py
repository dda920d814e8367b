#!/usr/bin/env python3
"""A solver that never answers: it starts a child that sleeps too (to check the
whole process group is killed), writes the child's pid to stderr, then sleeps."""
import subprocess
import sys
import time

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
sys.stderr.write(f"child {child.pid}\n")
sys.stderr.flush()
if len(sys.argv) > 2:                      # a pid file to tell the test the child's pid
    with open(sys.argv[2], "w") as handle:
        handle.write(str(child.pid))
time.sleep(3600)
