#!/usr/bin/env python3
"""A solver that leaves a daemon behind: it double-forks a child that calls setsid (a session
and process group of its own), writes its pid to the file named by the second argument and
sleeps; then it answers with the grid of the third argument (or never, without one)."""
import os
import sys
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open(sys.argv[2] + ".tmp", "w") as handle:
            handle.write(str(os.getpid()))
        os.rename(sys.argv[2] + ".tmp", sys.argv[2])
        time.sleep(3600)
    os._exit(0)
while not os.path.exists(sys.argv[2]):
    time.sleep(0.01)
if len(sys.argv) > 3:
    with open(sys.argv[3]) as answer:
        sys.stdout.write(answer.read())
else:
    time.sleep(3600)
