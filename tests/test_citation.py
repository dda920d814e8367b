"""CITATION.cff is valid Citation File Format and says what pyproject.toml says."""

from __future__ import annotations

import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_the_citation_file_names_this_package_and_its_version():
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert citation["cff-version"] == "1.2.0" and citation["type"] == "software"
    for key in ("message", "title", "authors"):                 # the format's required keys
        assert citation[key], key
    assert all(author.get("name") or author.get("family-names") for author in citation["authors"])
    assert citation["title"] == project["name"]
    assert str(citation["version"]) == project["version"]
    assert citation["license"] == project["license"]["text"]
