"""The regression gate checks correctness first: ``race compare OLD NEW --fail-above R`` on a
NEW campaign whose ``cmd:`` program (the same entrant, the program edited) answers a grid with
two digits swapped on 3 of 12 puzzles fails with one line naming those instances, whether or not
NEW was measured on a busy machine (a wrong answer is never "inconclusive")."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from experiments.cli.main import main
from experiments.harness import conditions

SOLVERS = Path(__file__).parent / "outside_solvers"
sys.path.insert(0, str(SOLVERS))
from backtrack_solver import read  # noqa: E402

#: the program: backtracking; a puzzle whose text is in SWAP is answered with 1 and 2 swapped
PROGRAM = f"""#!{sys.executable}
import sys
sys.path.insert(0, {str(SOLVERS)!r})
from backtrack_solver import read, search
SWAP = {{swap}}
text = open(sys.argv[1]).read()
found = []
search(read(text), round(len(read(text)) ** 0.5), 1, found)
grid = found[0]
if str(read(text)) in SWAP:
    grid = [[{{1: 2, 2: 1}}.get(v, v) for v in row] for row in grid]
print("\\n".join(" ".join(map(str, row)) for row in grid))
"""


def _program(path: Path, swap: set[str]) -> None:
    path.write_text(PROGRAM.replace("{swap}", repr(sorted(swap))))
    path.chmod(0o755)


def _race(out: Path, program: Path) -> Path:
    result = CliRunner().invoke(main, ["run", "--no-report", "--family", "unique", "--n", "2",
                                       "--solvers", f"cmd:path={program}", "--instances", "12",
                                       "--timeout", "5", "-j", "1", "--out", str(out),
                                       "--campaign", "swap"])
    assert result.exit_code == 0, result.output
    return out / "swap"


def _busy(campaign: Path) -> None:
    """Make every reading of ``campaign``'s meta.json a busy machine's."""
    meta = json.loads((campaign / "meta.json").read_text())
    busy = {"load_avg": [7.5, 7.0, 6.0], "usable_cpus": [0, 1], "others_busy_cores": 1.9,
            "busiest": [{"pid": 9, "name": "yes", "cpu_percent": 190.0}]}
    for where in [meta, *meta.get("runs_conditions", [])]:
        where["machine_state"] = {"start": dict(busy), "end": dict(busy)}
    (campaign / "meta.json").write_text(json.dumps(meta))


@pytest.fixture(scope="module")
def swapped(tmp_path_factory):
    """(OLD, NEW, the 3 swapped instance names): the same `cmd:` entrant on the same 12
    puzzles, NEW's program answering 3 of them with digits 1 and 2 swapped."""
    root = tmp_path_factory.mktemp("gate")
    program = root / "solver.py"
    _program(program, set())
    with pytest.MonkeyPatch.context() as patch:     # the calibration is not what is tested here
        patch.setattr(conditions, "_calibrate_on", lambda cpu, samples=None: None)
        return _campaigns(root, program)


def _campaigns(root: Path, program: Path):
    old = _race(root / "old", program)
    files = sorted((root / "old" / "instances").glob("*/*.sudoku"))
    assert len(files) == 12
    chosen = files[1:12:4]
    _program(program, {str(read(f.read_text())) for f in chosen})
    new = _race(root / "new", program)
    return old, new, [f.name for f in chosen]


def _gate(old: Path, new: Path, *extra: str):
    """The gate on OLD and NEW, whose program was edited (other code by design)."""
    return CliRunner().invoke(main, ["compare", str(old), str(new), "--fail-above", "1.2",
                                     "--pair-different", *extra])


def test_the_gate_fails_on_wrong_answers_and_names_them(swapped):
    old, new, names = swapped
    gate = _gate(old, new)
    assert gate.exit_code == 1, gate.output
    lines = gate.output.splitlines()
    header = next(line for line in lines if line.startswith("entrant"))
    assert header.split()[4] == "wrong"
    row = next(line for line in lines if line.startswith("cmd:"))
    assert row.split()[3:5] == ["12", "3"] and "WRONG" in row.split()
    verdict = [line for line in lines if line.startswith("race compare: wrong:")]
    assert len(verdict) == 1 and "answered WRONG on 3 instance(s)" in verdict[0]
    assert all(name in verdict[0] for name in names)
    assert "inconclusive" not in gate.output
    same = _gate(old, old, "--force")        # this machine may be busy; the old answered right
    assert same.exit_code == 0 and "race compare: wrong" not in same.output


def test_wrong_answers_are_never_inconclusive_on_a_busy_machine(swapped):
    old, new, names = swapped
    _busy(new)
    gate = _gate(old, new)
    assert gate.exit_code == 1, gate.output
    assert "inconclusive" not in gate.output
    verdict = [line for line in gate.output.splitlines() if line.startswith("race compare: wrong:")]
    assert len(verdict) == 1 and all(name in verdict[0] for name in names)
    assert any("the machine was busy" in line for line in gate.output.splitlines())
    document = json.loads(CliRunner().invoke(main, ["compare", str(old), str(new), "-f", "json",
                                                    "--pair-different"]).output)
    assert document["rows"][0]["wrong"] == 3
    assert sorted(c[2] for c in document["faults"][0]["wrong"]) == sorted(names)


def test_an_error_where_old_answered_fails_the_gate(tmp_path):
    from tests.test_analysis import write_campaign
    from tests.test_campaign_diff import BASE, campaign
    from tests.test_compare import cell
    old = campaign(tmp_path / "old", {"dlx": BASE})
    rows = [cell("dlx", f"i{k}", t) for k, t in enumerate(BASE)]
    rows[4] = cell("dlx", "i4", None, status="error")
    new = write_campaign(tmp_path / "new", rows, {"entrants": ["dlx"], "jobs": 1})
    gate = _gate(old, new)
    assert gate.exit_code == 1, gate.output
    assert "ended in an error where OLD answered on 1 instance(s): unique-i4.sudoku" in gate.output
