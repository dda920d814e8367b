"""How far the entrants' median ratio moves under background load, fixed vs random order.

A step of load (a neighbour's job starting halfway): for each order, one campaign (dlx vs
sat, unique n = 3, 30 instances x 2 repeats, one pinned worker); when half of the cells are
recorded, two busy loops start pinned on the worker's core. Baseline: the same campaign
without them. Prints the median ratio sat/dlx (with its interval) of every campaign; the
move is load/baseline - 1. Slow (a few minutes per repetition), so not part of `make bench`.

Run: ``.venv/bin/python tests/bench/order_drift.py OUT_DIR [REPETITIONS]``
(measured on the shared 2-core machine: see the README, "A stopwatch you can trust").
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RACE = str(Path(sys.executable).with_name("race"))
PY = sys.executable
OUT = Path(sys.argv[1])
TOTAL = 2 * 30 * 2          # entrants x instances x repeats


def campaign(name, order, load):
    cmd = [RACE, "run", "--n", "3", "--family", "unique", "--solvers", "dlx,sat", "--instances", "30",
           "--repeats", "2", "--jobs", "1", "--order", order, "--out", str(OUT), "--campaign", name]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    loop = None
    runs = OUT / name / "runs.csv"
    while proc.poll() is None:
        time.sleep(0.05)
        if load and loop is None and runs.exists() and len(runs.read_text().splitlines()) - 1 >= TOTAL // 2:
            meta = json.loads((OUT / name / "meta.json").read_text())
            cpus = (meta.get("pinning") or {}).get("cpus") or [1]
            loop = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
            for busy in loop:
                os.sched_setaffinity(busy.pid, {cpus[0]})
    for busy in loop or []:
        busy.kill()
        busy.wait()
    out = subprocess.run([PY, "-c", f"""
from experiments.analysis import censored_stats as a, compare as c
camp = a.load('{OUT / name}')
r = c.compare(camp, 'dlx', 'sat').rows[0]
print(r.ratio.estimate, r.ratio.low, r.ratio.high)
"""], capture_output=True, text=True, cwd=str(ROOT))
    return [float(x) for x in out.stdout.split()]


results = {}
for rep in range(int(sys.argv[2]) if len(sys.argv) > 2 else 2):
    for order in ("fixed", "random"):
        for load in (False, True):
            name = f"{order}-{'load' if load else 'base'}-{rep}"
            results[name] = campaign(name, order, load)
            print(name, results[name], flush=True)
json.dump(results, open(OUT / "results.json", "w"), indent=1)
