"""Each generator kind's random stream is pinned: the sha256 of the file it writes for a few
(n, seed, index). A change here changes published instances; make it only deliberately
(bump generators.puzzle_set.GENERATOR_VERSION, say so in the README, update these pins)."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import pytest

from formats import grid_text
from generators import puzzle_set

ROOT = Path(__file__).resolve().parent.parent

PINS = [
    ('unique', 2, 0, 0, {}, "ed5b2f2fec3fe2049f9929d44a9b3a52c74b80a8322f1a4fd3bdb73b4b6d0a8e"),
    ('unique', 3, 1, 2, {}, "a4a473b49ae6de3cbdd8d962ff4af2cb2dd8f17d029073fb02a773a63eaac572"),
    ('unique', 4, 2, 1, {}, "1fb119c3bb2692effd3b20f7c210ff6bea9b54fe7e0bd6bf3abddc96e2ed4ba0"),
    ('minimal', 2, 0, 0, {}, "f08f0b52bccd4553881b63e0e3c1b9f0ff7885ac4842e4e5800e3d1486601931"),
    ('minimal', 3, 1, 2, {}, "0f7752a62db1d24ba7b0979d4c02d077b6d4c20e992a3d0435c132e5c2f13ac5"),
    ('minimal', 2, 5, 1, {}, "284781cffdc684267e79382cdb4ba125109b5e91a3bc25cf57f3f2c2682f1219"),
    ('minimal', 3, 4, 0, {}, "b1ba0486c47f18ef7c71edde701e7a6f519c2764ef66a59114045a02988e21a0"),
    ('minimal', 4, 0, 0, {}, "1460866ae394c3d813ba870fb04aa65764dd7750c138b80263267fac14568391"),
    ('minimal', 4, 3, 1, {}, "d5d12ce117911162a8af9d5a974bef6fefa43a55d3223e1307cee1e0397055d8"),
    # multi: the files gained a `second=` line (2026-11-25); without it they hash to the
    # earlier pins 94c6c103... and 6ca27057...: the same puzzles, GENERATOR_VERSION kept
    ('multi', 2, 0, 0, {}, "4e6befafe397c4af996f3190be78f97ac540326994700b8540ddfbd4d6205576"),
    ('multi', 3, 1, 2, {}, "f9028c6c8942f27f8042cd9b2d90679017bc75ddfa8ab24cdcf73bcb80d0f672"),
    ('unsat', 2, 0, 0, {}, "d71210a5eebead15503a877316e54635166bdcc5cddecdf0224b0735b2eeeb1d"),
    ('unsat', 3, 1, 2, {}, "940270c5f020826d6f4bf5eef207a6140820fd6ea45f24c02c219fa7abd0cd1f"),
    ('unsat', 3, 0, 1, {'base': 'minimal'}, "d0323f85597172bcb23bc766615cd6930e153d336d4c98dff5117ae1146a67dc"),
    ('holes', 2, 0, 0, {}, "50f35b05c1b8cb2cfdc0ffa65a4c6598478360c06880b1376bae2ffaebad1701"),
    ('holes', 3, 1, 2, {'holes': 0.6, 'pattern': 'balanced'}, "24844f76adee3fa624f9750db1d939f29e149d18002b440cf59aaca90f1bf251"),
    ('holes', 6, 0, 0, {'holes': 0.33}, "8e6884526881ab1750908f31afc3f5a926192759a9c253269b287f48eb46b1d8"),
    ('holes', 3, 0, 3, {'fill': 'latin'}, "61bfbd378746e0b64657934d495842766ab491c9f41f1cdb92305e87d7e97153"),
    ('unique', 3, 4, 0, {'fill': 'symmetric'}, "a6d2cf6e4a8490d023f998290a92523cb2cc910f3a271237ef0ce58f420f63c8"),
]


def sha256_of(kind: str, n: int, seed: int, index: int, options: dict) -> str:
    grid, meta = puzzle_set.make(kind, n, seed, index, **options)
    return hashlib.sha256(grid_text.format_native(grid, meta).encode()).hexdigest()


@pytest.mark.parametrize("kind, n, seed, index, options, digest", PINS)
def test_each_kind_writes_the_pinned_instance(kind, n, seed, index, options, digest):
    assert sha256_of(kind, n, seed, index, options) == digest


def test_a_multi_file_is_the_earlier_one_plus_its_second_solution():
    """The `second=` line is the only change to multi instances: the puzzle is the same."""
    grid, meta = puzzle_set.make("multi", 2, 0, 0)
    meta.pop("second")
    assert hashlib.sha256(grid_text.format_native(grid, meta).encode()).hexdigest() == \
        "94c6c1039f3ce2c6a7c34ad58c2124ef89454f1f2961ea136e46179937f96020"


def test_every_kind_is_pinned():
    assert {pin[0] for pin in PINS} == set(puzzle_set.KINDS)


def test_the_reference_campaign_regenerates_bit_for_bit():
    """A sample of the committed reference campaign's instances, made again from their seed."""
    with open(ROOT / "results" / "reference-n2-10" / "runs.csv", newline="") as f:
        rows = {(r["instance"], r["instance_sha256"]) for r in csv.DictReader(f)
                if r.get("family", r.get("kind")) == "unique" and r["n"] in ("2", "3", "4")}
    checked = 0
    for instance, digest in sorted(rows)[:: max(1, len(rows) // 6)]:
        n, seed, index = _parse(instance)
        assert sha256_of("unique", n, seed, index, {}) == digest, instance
        checked += 1
    assert checked >= 5


def _parse(instance: str) -> tuple[int, int, int]:
    """``unique-n3-s0-0004.sudoku`` -> (3, 0, 4)."""
    _, n, seed, index = instance.removesuffix(".sudoku").split("-")
    return int(n[1:]), int(seed[1:]), int(index)
