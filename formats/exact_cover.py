"""Exact cover problems (Task 10) and Knuth's dlx text format.

An :class:`ExactCover` is a list of item names, of which the first ``primary``
must be covered exactly once and the rest (secondary items, as in Knuth's
"generalized cover" problems) at most once, plus a list of options, each a set
of item indices. The options are stored as one flat index array with row
starts (CSR), so a Sudoku matrix with n⁶ options costs a few numpy arrays, not
millions of Python lists; :attr:`ExactCover.options` gives them as lists.

Knuth's dlx format (the input of his dlx1 program)::

    | a comment: any line whose first non-blank character is |
    A B C D E F | G        <- the items: primary, then | and the secondary ones
    A C                     <- one option per line, as item names
    B D G

Knuth's extensions are read too: a *color* on a secondary item of an option
(his dlx2: ``x:red``; options that give x the same color may share it, an
option naming x without a color excludes every other) and *multiplicities* of
primary items (his dlx3: ``2:3|C`` on the item line means C is covered 2 to 3
times, ``3|C`` exactly 3 times). :attr:`ExactCover.colors` holds one color id
per option entry (0: none; ids index :attr:`ExactCover.color_names` from 1),
:attr:`ExactCover.lower` / :attr:`ExactCover.upper` the bounds of the primary
items (None: every bound is 1).

Blank lines are skipped; lines end at ``\\n`` (or CRLF) only and names are
separated by ASCII blanks. Malformed text raises :class:`RaceError` naming the
source and line: a CR inside a line (CR-only line ends), no item line, a
duplicate item name, an illegal name, an unknown item in an option, an item
repeated in one option, an empty color, or an option with no primary item (it
could never be chosen; Knuth's dlx1 ignores such lines with a warning, here it
is an error so nothing is dropped silently).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from formats.errors import RaceError
from formats.source import BLANKS, read_source, reject_carriage_return, split_lines

INDEX_DTYPE = np.int32


@dataclass(eq=False)
class ExactCover:
    """An exact cover problem: ``items`` (primary first), ``primary`` (how many
    of them are primary) and the options as CSR arrays: option ``o`` covers the
    items ``flat[starts[o]:starts[o+1]]`` (in the order given)."""

    items: list[str]
    primary: int
    starts: np.ndarray
    flat: np.ndarray
    colors: np.ndarray | None = None          # per entry of flat: 0 or a color id (1-based)
    color_names: list[str] = field(default_factory=list)
    lower: np.ndarray | None = None           # per primary item (None: all 1)
    upper: np.ndarray | None = None

    @property
    def extended(self) -> bool:
        """True if the problem uses colors or multiplicities (Knuth's dlx2/dlx3)."""
        return bool((self.colors is not None and self.colors.any())
                    or (self.lower is not None and (np.any(self.lower != 1) or np.any(self.upper != 1))))

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) per primary item, 1 and 1 where none were given."""
        if self.lower is None:
            ones = np.ones(self.primary, dtype=np.int64)
            return ones, ones.copy()
        return self.lower, self.upper

    def entry_names(self, o: int) -> list[str]:
        """Option o as its dlx tokens: item names, with ``:color`` where it has one."""
        names = self.option_names(o)
        if self.colors is None:
            return names
        cols = self.colors[self.starts[o]:self.starts[o + 1]]
        return [n if not c else f"{n}:{self.color_names[c - 1]}" for n, c in zip(names, cols)]

    # -- construction ------------------------------------------------------
    @classmethod
    def from_options(cls, items: Sequence[str], primary: int | None,
                     options: Iterable[Sequence[int]], source: str | None = None) -> "ExactCover":
        """A problem from item names and options given as lists of item indices.
        ``primary=None`` makes every item primary. Raises RaceError for an empty
        option, an index out of range or an item repeated in one option."""
        options = [list(o) for o in options]
        starts = np.zeros(len(options) + 1, dtype=np.int64)
        starts[1:] = np.cumsum([len(o) for o in options])
        flat = np.fromiter((i for o in options for i in o), dtype=INDEX_DTYPE, count=int(starts[-1]))
        return cls.from_csr(items, primary, starts, flat, source=source)

    @classmethod
    def from_csr(cls, items: Sequence[str], primary: int | None, starts: np.ndarray,
                 flat: np.ndarray, source: str | None = None, check: bool = True) -> "ExactCover":
        """A problem from CSR arrays (``starts`` has one more entry than there are
        options). ``check`` validates indices, empty and repeated items."""
        items = list(items)
        primary = len(items) if primary is None else int(primary)
        problem = cls(items, primary, np.asarray(starts, dtype=np.int64),
                      np.ascontiguousarray(flat, dtype=INDEX_DTYPE))
        if check:
            problem.validate(source)
        return problem

    @classmethod
    def from_dense(cls, matrix: np.ndarray, names: Sequence[str] | None = None,
                   primary: int | None = None) -> "ExactCover":
        """A problem from a dense 0-1 matrix (rows = options, columns = items).
        Columns are named ``names`` or 1, 2, ...; the first ``primary`` columns
        are primary (all by default). An all-zero row raises RaceError."""
        matrix = np.asarray(matrix)
        if matrix.ndim != 2:
            raise RaceError(f"a 0-1 matrix must be 2-dimensional, got shape {matrix.shape}")
        if matrix.size and not np.isin(matrix, (0, 1)).all():
            raise RaceError("a 0-1 matrix may hold only 0 and 1")
        rows, cols = np.nonzero(matrix)
        if names is None:
            names = [str(j + 1) for j in range(matrix.shape[1])]
        if len(names) != matrix.shape[1]:
            raise RaceError(f"{len(names)} names for {matrix.shape[1]} columns")
        starts = np.zeros(matrix.shape[0] + 1, dtype=np.int64)
        starts[1:] = np.cumsum(np.bincount(rows, minlength=matrix.shape[0]))
        return cls.from_csr(names, primary, starts, cols, source="matrix")

    # -- views ---------------------------------------------------------------
    @property
    def secondary(self) -> int:
        """Number of secondary items."""
        return len(self.items) - self.primary

    def __len__(self) -> int:
        """Number of options."""
        return len(self.starts) - 1

    def option(self, o: int) -> list[int]:
        """The item indices of option ``o``."""
        return self.flat[self.starts[o]:self.starts[o + 1]].tolist()

    @property
    def options(self) -> list[list[int]]:
        """All options as lists of item indices."""
        return [self.option(o) for o in range(len(self))]

    def option_names(self, o: int) -> list[str]:
        """The item names of option ``o``."""
        return [self.items[i] for i in self.option(o)]

    def to_dense(self) -> np.ndarray:
        """The 0-1 matrix (options x items) as uint8."""
        dense = np.zeros((len(self), len(self.items)), dtype=np.uint8)
        rows = np.repeat(np.arange(len(self)), np.diff(self.starts))
        dense[rows, self.flat] = 1
        return dense

    def validate(self, source: str | None = None) -> None:
        """Raise RaceError unless every option is a non-empty set of known items
        and item names are unique and legal."""
        if not 0 <= self.primary <= len(self.items):
            raise RaceError(f"{self.primary} primary items of {len(self.items)}", source=source)
        seen: set[str] = set()
        for name in self.items:
            _check_name(name, source, None)
            if name in seen:
                raise RaceError(f"duplicate item name {name!r}", source=source)
            seen.add(name)
        if self.starts[0] != 0 or np.any(np.diff(self.starts) < 0) or self.starts[-1] != len(self.flat):
            raise RaceError("option starts are not a valid CSR index", source=source)
        lengths = np.diff(self.starts)
        if np.any(lengths == 0):
            o = int(np.argmax(lengths == 0))
            raise RaceError(f"option {o + 1} is empty (an option must cover at least one item)",
                            source=source)
        if len(self.flat) and (self.flat.min() < 0 or self.flat.max() >= len(self.items)):
            raise RaceError(f"an option refers to an item index outside 0..{len(self.items) - 1}",
                            source=source)
        # an item repeated inside one option: sort each option's items and compare neighbours
        rows = np.repeat(np.arange(len(self), dtype=np.int64), lengths)
        key = rows * len(self.items) + self.flat
        order = np.sort(key)
        dup = np.nonzero(np.diff(order) == 0)[0]
        if len(dup):
            o, i = divmod(int(order[dup[0]]), len(self.items))
            raise RaceError(f"option {o + 1} lists item {self.items[i]!r} twice", source=source)


def _check_name(name: str, source: str | None, line: int | None) -> None:
    if not name or not name.isprintable() or any(ch.isspace() for ch in name) \
            or "|" in name or ":" in name:
        raise RaceError(f"illegal item name {name[:40]!r} (names are non-blank, printable and "
                        f"contain no whitespace, '|' or ':')", source=source, line=line)


_BLANKS_TO_SPACE = str.maketrans({ch: " " for ch in BLANKS})


# -- Knuth's dlx text format -------------------------------------------------

_BOUND = re.compile(r"(?:([0-9]{1,9}):)?([0-9]{1,9})\|(.*)")


def parse(text: str, source: str = "<text>") -> ExactCover:
    """Parse Knuth's dlx format (see the module docstring)."""
    items: list[str] | None = None
    primary = 0
    index: dict[str, int] = {}
    starts = [0]
    flat: list[int] = []
    colors: list[int] = []
    color_ids: dict[str, int] = {}
    lower: list[int] = []
    upper: list[int] = []
    for no, raw in enumerate(split_lines(text), 1):
        if "\r" in raw:              # CR-only line ends: a comment would swallow the file
            reject_carriage_return(raw, source, no)
        line = raw.strip(BLANKS)
        if not line or line.startswith("|"):
            continue
        tokens = [tok for tok in line.translate(_BLANKS_TO_SPACE).split(" ") if tok]
        if items is None:
            if tokens.count("|") > 1:
                raise RaceError("the item line has more than one '|'", source=source, line=no)
            bar = tokens.index("|") if "|" in tokens else len(tokens)
            items = []
            for k, tok in enumerate(tokens[:bar] + tokens[bar + 1:]):
                lo = hi = 1
                if "|" in tok:
                    m = _BOUND.fullmatch(tok)
                    if m is None or k >= bar:
                        raise RaceError(f"bad item {tok[:40]!r} (bounds are written lo:hi|NAME or "
                                        f"n|NAME, before primary items only)", source=source, line=no)
                    hi = int(m.group(2))
                    lo = int(m.group(1)) if m.group(1) is not None else hi
                    tok = m.group(3)
                    if hi < 1 or lo > hi:
                        raise RaceError(f"bounds {lo}:{hi} of item {tok[:40]!r} need 0 <= lo <= hi, hi >= 1",
                                        source=source, line=no)
                _check_name(tok, source, no)
                if tok in index:
                    raise RaceError(f"duplicate item name {tok!r}", source=source, line=no)
                index[tok] = len(index)
                items.append(tok)
                if k < bar:
                    lower.append(lo)
                    upper.append(hi)
            primary = bar
            continue
        seen: set[int] = set()
        for tok in tokens:
            name, colon, color = tok.partition(":")
            i = index.get(name)
            if i is None:
                raise RaceError(f"unknown item {name!r} in an option", source=source, line=no)
            if i in seen:
                raise RaceError(f"item {name!r} occurs twice in one option", source=source, line=no)
            if colon and i < primary:
                raise RaceError(f"{tok[:40]!r}: only a secondary item takes a color (item:color)",
                                source=source, line=no)
            if colon and not color:
                raise RaceError(f"{tok[:40]!r}: an empty color (write item:color, or the item "
                                f"alone for no color)", source=source, line=no)
            seen.add(i)
            flat.append(i)
            colors.append(color_ids.setdefault(color, len(color_ids) + 1) if colon else 0)
        if min(seen) >= primary:
            raise RaceError("empty option: no primary item, so it could never be chosen",
                            source=source, line=no)
        starts.append(len(flat))
    if items is None:
        raise RaceError("no item line (expected the primary item names first)", source=source)
    if primary == 0:
        raise RaceError("no primary items (the item line must name at least one before '|')",
                        source=source)
    problem = ExactCover(items, primary, np.array(starts, dtype=np.int64), np.array(flat, dtype=INDEX_DTYPE))
    if color_ids:
        problem.colors = np.array(colors, dtype=np.int32)
        problem.color_names = list(color_ids)
    if any(lo != 1 or hi != 1 for lo, hi in zip(lower, upper)):
        problem.lower = np.array(lower, dtype=np.int64)
        problem.upper = np.array(upper, dtype=np.int64)
    return problem


def read(path_or_dash: str | Path) -> ExactCover:
    """Read a dlx file (``-`` = stdin)."""
    text, name = read_source(path_or_dash, what="a dlx file")
    return parse(text, name)


def format_dlx(problem: ExactCover, comment: str | None = None) -> str:
    """The problem in Knuth's dlx format (parse(format_dlx(p)) reproduces p)."""
    out = []
    if comment:
        out.extend(f"| {line}" for line in comment.splitlines())
    lower, upper = problem.bounds()
    head = " ".join(name if (lo, hi) == (1, 1) else (f"{hi}|{name}" if lo == hi else f"{lo}:{hi}|{name}")
                    for name, lo, hi in zip(problem.items, lower, upper))
    if problem.secondary:
        head += " | " + " ".join(problem.items[problem.primary:])
    out.append(head)
    names = np.array(problem.items, dtype=object)
    for o in range(len(problem)):
        if problem.colors is not None:
            out.append(" ".join(problem.entry_names(o)))
        else:
            out.append(" ".join(names[problem.flat[problem.starts[o]:problem.starts[o + 1]]]))
    return "\n".join(out) + "\n"
