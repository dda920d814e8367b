"""A damaged ``meta.json`` (nested too deeply, a limit that is no finite positive number,
a field of the wrong type) is a one-line error naming the file, exit 2, for every command
that reads a campaign: never a traceback (``experiments.harness.provenance.read_meta``)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from experiments.cli.main import main

RUNS = """entrant,n,instance,repeat,status,verified,wall_s,timeout_s
a,2,i0,0,solved,True,0.001,10
a,2,i1,0,solved,True,0.003,10
b,2,i0,0,solved,True,0.002,10
b,2,i1,0,timeout,False,10.5,10
"""

META = {"campaign": "t", "entrants": ["a", "b"], "n_values": [2], "repeats": 1,
        "instances": 2, "seed": 0, "timeout_s": 10}

DEEP = "[" * 100000 + "]" * 100000

#: meta.json text -> what the error must name besides the file (None: only the file)
DAMAGED = {
    "deep": (DEEP, None),
    "timeout_str": (json.dumps({**META, "timeout_s": "abc"}), "timeout_s"),
    "timeout_obj": (json.dumps({**META, "timeout_s": {}}), "timeout_s"),
    "timeout_nan": (json.dumps({**META, "timeout_s": float("nan")}), "timeout_s"),
    "timeout_inf": (json.dumps({**META, "timeout_s": float("inf")}), "timeout_s"),
    "timeout_zero": (json.dumps({**META, "timeout_s": 0}), "timeout_s"),
    "repeats_obj": (json.dumps({**META, "repeats": {"x": 1}}), "repeats"),
    "n_values_obj": (json.dumps({**META, "n_values": {"x": 1}}), "n_values"),
    "n_values_str": (json.dumps({**META, "n_values": ["2"]}), "n_values"),
    "entrants_obj": (json.dumps({**META, "entrants": [{"x": 1}]}), "entrants"),
}


def _campaign(directory, meta_text: str):
    directory.mkdir(parents=True)
    (directory / "runs.csv").write_text(RUNS)
    (directory / "meta.json").write_text(meta_text)
    return directory


@pytest.fixture
def good(tmp_path):
    return _campaign(tmp_path / "good", json.dumps(META))


def _assert_one_line_error(result, named: str | None) -> None:
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("race: error: ") and "meta.json" in lines[0], lines[0]
    assert "Traceback" not in result.output
    if named:
        assert named in lines[0], lines[0]


def _commands(bad, good, tmp_path):
    return {
        "compare": ["compare", str(bad), str(good)],
        "export": ["export", str(bad), "-f", "markdown"],
        "plot": ["plot", str(bad), "-o", str(tmp_path / "plots")],
        "portfolio": ["portfolio", str(bad), "-o", str(tmp_path / "p.csv")],
        "report": ["report", str(bad), "--html", "-o", str(tmp_path / "r.html")],
        "merge": ["merge", str(bad), str(good), "-o", str(tmp_path / "merged")],
    }


@pytest.mark.parametrize("command", ["compare", "export", "plot", "portfolio", "report", "merge"])
@pytest.mark.parametrize("case", sorted(DAMAGED))
def test_a_damaged_meta_json_is_a_one_line_error(tmp_path, good, case, command):
    text, named = DAMAGED[case]
    bad = _campaign(tmp_path / "bad", text)
    result = CliRunner().invoke(main, _commands(bad, good, tmp_path)[command])
    _assert_one_line_error(result, named)
    assert not (tmp_path / "merged").exists() and not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("case", ["deep", "timeout_nan", "repeats_obj", "n_values_obj"])
def test_resuming_a_campaign_with_a_damaged_meta_json_is_a_one_line_error(tmp_path, case):
    text, named = DAMAGED[case]
    _campaign(tmp_path / "out" / "C", text)
    result = CliRunner().invoke(main, ["run", "--no-report", "--n", "2", "--solvers", "dlx", "--instances", "1",
                                       "--family", "unique", "--timeout", "2", "--jobs", "1",
                                       "--no-pin", "--out", str(tmp_path / "out"), "--campaign", "C"])
    _assert_one_line_error(result, named)


def test_an_intact_meta_json_still_reads(good, tmp_path):
    result = CliRunner().invoke(main, ["export", str(good), "-f", "markdown"])
    assert result.exit_code == 0, result.output
    merged = CliRunner().invoke(main, ["merge", str(good), str(_campaign(tmp_path / "other", json.dumps(
        {**META, "timeout_s": 10.0, "n_values": [2, 3], "timeout_x": None}))), "-o", str(tmp_path / "m")])
    assert merged.exit_code == 0, merged.output
    meta = json.loads((tmp_path / "m" / "meta.json").read_text())
    assert meta["repeats"] == 2 and meta["n_values"] == [2, 3]
