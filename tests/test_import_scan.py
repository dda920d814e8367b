"""What a source file imports is read once per content and kept in the user's private cache;
the code identity it feeds is the same with the cache as without it."""

from __future__ import annotations

import json

import pytest

from experiments.harness import code_identity, import_scan

SOURCE = b'''
import os
from . import sibling
from ..rules import checks
from solvers.bitsets import solver as bits
TABLE = "portfolio.csv"
def later():
    import numpy
    return "not a file name"
'''


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    """A fresh private cache folder, and the module's memory emptied before and after."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(import_scan, "_KNOWN", {})
    monkeypatch.setattr(import_scan, "_STATE", {"loaded": False, "dirty": False})
    return tmp_path / "cache" / "sudoku-race" / import_scan.CACHE_NAME


def test_imports_and_file_names_are_read_from_the_tree(cache):
    names, files = import_scan.scan(SOURCE, "solvers.exact_cover")
    assert {"os", "solvers.exact_cover", "solvers.exact_cover.sibling", "solvers.rules",
            "solvers.rules.checks", "solvers.bitsets", "solvers.bitsets.solver", "numpy"} <= set(names)
    assert files == ["portfolio.csv"]


def test_a_second_process_reads_the_kept_answer_and_new_bytes_are_parsed_again(cache, monkeypatch):
    first = import_scan.scan(SOURCE, "solvers.exact_cover")
    import_scan.save()
    kept = json.loads(cache.read_text())
    assert len(kept) == 1
    monkeypatch.setattr(import_scan, "_KNOWN", {})          # as a new process
    monkeypatch.setattr(import_scan, "_STATE", {"loaded": False, "dirty": False})
    parsed = []
    real = import_scan._parse
    monkeypatch.setattr(import_scan, "_parse", lambda *a: parsed.append(a) or real(*a))
    assert import_scan.scan(SOURCE, "solvers.exact_cover") == first
    assert parsed == []                                     # the kept answer
    changed = SOURCE + b"import json\n"
    assert "json" in import_scan.scan(changed, "solvers.exact_cover")[0]
    assert len(parsed) == 1                                 # other bytes: read again
    assert import_scan.scan(SOURCE, "solvers.rules")[0] != first[0]     # another package too


@pytest.mark.parametrize("text", ["{not json", '{"x": [1, 2]}', "[]", '{"k": [["a"], [3]]}'])
def test_a_damaged_cache_is_ignored(cache, text):
    cache.parent.mkdir(parents=True)
    cache.parent.chmod(0o700)
    cache.write_text(text)
    names, files = import_scan.scan(SOURCE, "solvers.exact_cover")
    assert "os" in names and files == ["portfolio.csv"]


def test_the_identity_of_every_solver_is_the_same_with_and_without_the_kept_answers(cache, monkeypatch):
    from solvers.registry import SOLVERS
    modules = sorted({target.split(":")[0] for target, _ in SOLVERS.values()})

    def fresh() -> dict:
        monkeypatch.setattr(code_identity, "_PARSED", {})
        monkeypatch.setattr(code_identity, "_KNOWN", {})
        return {m: code_identity.of_module(m)["digest"] for m in modules}
    cold = fresh()
    assert cache.exists()
    monkeypatch.setattr(import_scan, "_KNOWN", {})
    monkeypatch.setattr(import_scan, "_STATE", {"loaded": False, "dirty": False})
    monkeypatch.setattr(import_scan, "_parse", lambda *a: pytest.fail("parsed again"))
    assert fresh() == cold
