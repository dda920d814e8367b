#!/usr/bin/env python3
"""A solver that never answers. Given a second argument (a pid file), it first
starts a child that sleeps too and writes the child's pid there, so a test can
check that the whole process group is killed."""
import subprocess
import sys
import time

if len(sys.argv) > 2:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    with open(sys.argv[2], "w") as handle:
        handle.write(str(child.pid))
time.sleep(3600)
