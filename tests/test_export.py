"""``race export``: runs and summary as jsonl / csv / markdown (parquet when pyarrow is there)."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest
from click.testing import CliRunner

from experiments.cli.export import markdown_table
from experiments.cli.main import main

RUNS = """entrant,n,instance,repeat,status,verified,wall_s,timeout_s
a,2,i0,0,solved,True,0.001,10
a,2,i1,0,solved,True,0.003,10
b|x,2,i0,0,solved,True,0.002,10
b|x,2,i1,0,timeout,False,10.5,10
"""


@pytest.fixture
def campaign(tmp_path):
    (tmp_path / "runs.csv").write_text(RUNS)
    (tmp_path / "meta.json").write_text(json.dumps({"campaign": "t", "entrants": ["a", "b|x"],
                                                    "timeout_s": 10}))
    return tmp_path


def _run(*args):
    result = CliRunner().invoke(main, ["export", *map(str, args)])
    return result.exit_code, result.output


def test_markdown_is_the_summary_table(campaign):
    code, out = _run(campaign, "--format", "markdown")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 4
    assert [c.strip() for c in lines[0].strip("|").split("|")] == \
        ["family", "entrant", "n", "solved", "median", "IQR", "PAR-2", "wrong"]
    assert lines[1].replace(" ", "").startswith("|------|-------|--:|------|")
    cells_a = [c.strip() for c in lines[2].strip("|").split(" | ")]
    assert cells_a[:4] == ["unique", "a", "2", "2/2"] and cells_a[-1] == "0"
    assert "b\\|x" in lines[3] and "1/2" in lines[3] and "> 10 s" in lines[3]


def test_jsonl_and_csv_hold_every_run(campaign, tmp_path):
    code, out = _run(campaign, "-f", "jsonl")
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [r["status"] for r in records] == ["solved", "solved", "solved", "timeout"]
    assert [r["wall_s"] for r in records] == [0.001, 0.003, 0.002, 10.5]
    target = tmp_path / "runs_out.csv"
    code, _ = _run(campaign, "-f", "csv", "-o", target)
    frame = pd.read_csv(target)
    assert code == 0 and len(frame) == 4 and list(frame["entrant"]) == ["a", "a", "b|x", "b|x"]


def test_summary_table_as_csv(campaign):
    code, out = _run(campaign, "-f", "csv", "--table", "summary")
    frame = pd.read_csv(io.StringIO(out))
    assert code == 0 and list(frame["entrant"]) == ["a", "b|x"]
    assert list(frame["solved"]) == [2, 1] and list(frame["timeout"]) == [0, 1]


def test_parquet_round_trips(campaign, tmp_path):
    target = tmp_path / "runs.parquet"          # pyarrow comes with the test (and parquet) extra
    code, out = _run(campaign, "-f", "parquet", "-o", target)
    assert code == 0 and list(pd.read_parquet(target)["wall_s"]) == [0.001, 0.003, 0.002, 10.5]


def test_missing_campaign_is_a_one_line_error(tmp_path):
    code, out = _run(tmp_path / "nope", "-f", "csv")
    assert code == 2 and out.startswith("race: error: ") and len(out.strip().splitlines()) == 1


def test_markdown_table_pads_escapes_and_right_aligns_numbers():
    text = markdown_table(["name", "value"], [["x|y", "1.5"], ["longer name", "10"]])
    assert text == ("| name        | value |\n"
                    "| ----------- | ----: |\n"
                    "| x\\|y        |   1.5 |\n"
                    "| longer name |    10 |\n")


def test_jsonl_keeps_a_censored_median_apart_from_a_missing_one(campaign, tmp_path):
    """b's median is above the limit (1 of 2 answered: censored, inf in CSV); JSON has no
    infinity and pandas wrote null, the same as a missing value. And verified is a boolean."""
    (campaign / "runs.csv").write_text(RUNS.replace("b|x,2,i0,0,solved,True,0.002",
                                                    "b|x,2,i0,0,timeout,False,10.2"))
    code, out = _run(campaign, "-f", "jsonl", "--table", "summary")
    rows = {r["entrant"]: r for r in map(json.loads, out.splitlines())}
    assert code == 0 and rows["b|x"]["median_s"] == "inf" and isinstance(rows["a"]["median_s"], float)
    _, csv_out = _run(campaign, "-f", "csv", "--table", "summary")
    assert pd.read_csv(io.StringIO(csv_out))["median_s"].tolist()[1] == float("inf")
    code, out = _run(campaign, "-f", "jsonl")
    assert [json.loads(line)["verified"] for line in out.splitlines()] == [True, True, False, False]
    target = tmp_path / "runs.parquet"
    assert _run(campaign, "-f", "parquet", "-o", target)[0] == 0
    assert pd.read_parquet(target)["verified"].tolist() == [True, True, False, False]


def test_parquet_to_a_missing_directory_names_the_file(campaign, tmp_path):
    target = tmp_path / "no" / "such" / "runs.parquet"
    code, out = _run(campaign, "-f", "parquet", "-o", target)
    assert code == 2 and str(target) in out and len(out.strip().splitlines()) == 1


def test_whole_numbers_are_written_as_runs_csv_holds_them(campaign):
    """The limit (a float column of whole numbers, none blank) is written 10, not 10.0, in CSV
    and JSON lines; a column with a fraction or a blank stays as it is."""
    code, out = _run(campaign, "-f", "csv")
    rows = out.splitlines()
    header = rows[0].split(",")
    limit, wall = header.index("timeout_s"), header.index("wall_s")
    assert code == 0 and [row.split(",")[limit] for row in rows[1:]] == ["10"] * 4
    assert rows[1].split(",")[wall] == "0.001"
    code, out = _run(campaign, "-f", "jsonl")
    assert code == 0 and all('"timeout_s":10,' in line for line in out.splitlines())
