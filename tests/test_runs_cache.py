"""runs_cache: a large runs.csv, once parsed, gives records_columnar's table and steps aside
for whatever records_columnar steps aside for; its columns kept beside it are read only while
the file is unchanged, and a cache of another file is never taken for it."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from experiments.analysis import campaign_data
from experiments.harness import records_columnar, runs_cache, synthetic_campaign


@pytest.fixture
def campaign(tmp_path, monkeypatch):
    """A synthetic campaign whose runs.csv counts as large (every file does)."""
    monkeypatch.setattr(runs_cache, "MIN_BYTES", 0)
    return synthetic_campaign.write(tmp_path, 300, ("dlx", "backtracking"), repeats=3)


def test_the_table_is_the_pandas_readers_and_is_kept_beside_the_file(campaign, monkeypatch):
    path = campaign / "runs.csv"
    expected = records_columnar.read_valid(path)
    parsed = runs_cache.read_valid(path)
    assert expected is not None and parsed is not None
    pd.testing.assert_frame_equal(parsed, expected)
    assert (campaign / runs_cache.NAME).is_file()
    assert (campaign / runs_cache.NAME).stat().st_mode == path.stat().st_mode      # as readable
    assert [p.name for p in campaign.iterdir() if p.name.startswith(f".{runs_cache.NAME}")] == []

    def no_parse(_path, text=False):
        raise AssertionError("parsed again")
    monkeypatch.setattr(records_columnar, "parse", no_parse)
    pd.testing.assert_frame_equal(runs_cache.read_valid(path), expected)


def test_a_loaded_campaign_is_the_same_from_the_cache(campaign, monkeypatch):
    first = campaign_data.load(campaign).runs              # parsed, then kept
    again = campaign_data.load(campaign).runs              # from the cache
    monkeypatch.setattr(runs_cache, "MIN_BYTES", 1 << 40)   # never from pyarrow nor the cache
    plain = campaign_data.load(campaign).runs
    pd.testing.assert_frame_equal(first, plain)
    pd.testing.assert_frame_equal(again, plain)


def test_a_changed_file_is_read_again_not_from_the_cache(campaign):
    path = campaign / "runs.csv"
    runs_cache.read_valid(path)
    text = path.read_text()
    changed = text.replace(",200,", ",201,", 1)                   # the same size
    assert len(changed) == len(text)
    info = os.stat(path)
    path.write_text(changed)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))        # even with the old mtime
    frame = runs_cache.read_valid(path)
    assert frame["peak_rss_mb"].iloc[0] == 201.0
    path.write_text(text + text.splitlines(keepends=True)[1].replace(",0,solved,", ",7,solved,"))
    grown = runs_cache.read_valid(path)
    assert grown is None or len(grown) == 301


@pytest.mark.parametrize("why", ["cut", "extra field", "missing field", "blank line", "duplicate",
                                 "bad status", "bad n", "nan", "inf", "negative", "not utf-8",
                                 "quote", "quoted field", "carriage return", "nul", "header",
                                 "letters in an integer", "not a number"])
def test_damage_is_left_to_the_reader_that_names_it(campaign, why):
    path = campaign / "runs.csv"
    text = path.read_text()
    lines = text.splitlines(keepends=True)
    row = lines[1]
    bodies = {"cut": text[:-5], "extra field": text + row.replace("\n", ",x\n"),
              "missing field": text + row.replace(",verified grid,", ","),
              "blank line": text + "\n", "duplicate": text + row,
              "bad status": text + row.replace(",solved,", ",fine,"),
              "bad n": text + row.replace(",3,", ",0,", 1), "nan": text.replace(",200,", ",nan,", 1),
              "inf": text.replace(",200,", ",INF,", 1), "negative": text.replace(",200,", ",-1,", 1),
              "quote": text + '"open,' + row, "quoted field": text.replace(",{},", ',"{}",', 1),
              "carriage return": text.replace("\n", "\r\n", 2), "nul": text.replace("{}", "{\0}", 1),
              "header": text.replace("wall_s", "wall", 1),
              "letters in an integer": text.replace(",0,solved,", ",x,solved,", 1),
              "not a number": text.replace(",200,", ",2 00,", 1)}
    if why == "not utf-8":
        path.write_bytes(text.encode().replace(b"dlx", b"dl\xff", 1))
    else:
        path.write_text(bodies[why], newline="")
    expected = records_columnar.read_valid(path)
    found = runs_cache.read_valid(path)
    if expected is None:
        assert found is None, why
        assert not (campaign / runs_cache.NAME).exists()
    else:
        pd.testing.assert_frame_equal(found, expected)


@pytest.mark.parametrize("forged", ["garbage", "another file's"])
def test_a_cache_of_something_else_is_ignored_and_replaced(campaign, forged):
    path = campaign / "runs.csv"
    cache = campaign / runs_cache.NAME
    if forged == "garbage":
        cache.write_bytes(b"ARROW1 not a feather file")
    else:
        runs_cache.read_valid(path)              # kept, then the file is another
        text = path.read_text()
        path.write_text(text.replace(",200,", ",300,"))
    frame = runs_cache.read_valid(path)
    pd.testing.assert_frame_equal(frame, records_columnar.read_valid(path))
    assert runs_cache._cached(cache, runs_cache._identity(os.stat(path))) is not None
