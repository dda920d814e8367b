"""Exact cover problems (Task 10) and Knuth's dlx text format.

An :class:`ExactCover` is a list of item names, of which the first ``primary``
must be covered exactly once and the rest (secondary items, as in Knuth's
"generalized cover" problems) at most once, plus a list of options, each a set
of item indices. The options are stored as one flat index array with row
starts (CSR), so a Sudoku matrix with n⁶ options costs a few numpy arrays, not
millions of Python lists; :attr:`ExactCover.options` gives them as lists.

Knuth's dlx text format (his dlx1-dlx3 programs' input, with colors and
multiplicities) is read by :mod:`formats.dlx_format` (without numpy, for the C
kernel of ``race cover``); :func:`parse` and :func:`read` give the same problem as
an :class:`ExactCover` (:meth:`ExactCover.from_dlx`), and :func:`format_dlx` writes
one. :attr:`ExactCover.colors` holds one color id per option entry (0: none; ids
index :attr:`ExactCover.color_names` from 1), :attr:`ExactCover.lower` /
:attr:`ExactCover.upper` the bounds of the primary items (None: every bound is 1).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from formats import dlx_format
from formats.dlx_format import DlxProblem, check_name
from formats.errors import RaceError
from formats.source import read_source

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
        assert self.upper is not None               # the bounds are set together
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
                     options: Iterable[Sequence[int]], source: str | None = None) -> ExactCover:
        """A problem from item names and options given as lists of item indices.
        ``primary=None`` makes every item primary. Raises RaceError for an empty
        option, an index out of range or an item repeated in one option."""
        options = [list(o) for o in options]
        starts = np.zeros(len(options) + 1, dtype=np.int64)
        starts[1:] = np.cumsum([len(o) for o in options])
        flat = np.fromiter((i for o in options for i in o), dtype=INDEX_DTYPE, count=int(starts[-1]))
        return cls.from_csr(items, primary, starts, flat, source=source)

    @classmethod
    def from_dlx(cls, parsed: DlxProblem) -> ExactCover:
        """The problem :func:`formats.dlx_format.parse` read (checked there)."""
        problem = cls(parsed.items, parsed.primary, np.array(parsed.starts, dtype=np.int64),
                      np.array(parsed.flat, dtype=INDEX_DTYPE))
        if parsed.colors is not None:
            problem.colors = np.array(parsed.colors, dtype=np.int32)
            problem.color_names = list(parsed.color_names)
        if parsed.lower is not None:
            problem.lower = np.array(parsed.lower, dtype=np.int64)
            problem.upper = np.array(parsed.upper, dtype=np.int64)
        return problem

    def to_dlx(self) -> DlxProblem:
        """The same problem as :class:`~formats.dlx_format.DlxProblem` buffers (int32)."""
        from array import array

        def int32(values: np.ndarray) -> array:
            return array("i", np.ascontiguousarray(values, dtype=np.int32).tobytes())
        out = DlxProblem(list(self.items), self.primary, int32(self.starts), int32(self.flat))
        if self.colors is not None and self.colors.any():
            out.colors, out.color_names = int32(self.colors), list(self.color_names)
        lower, upper = self.bounds()
        if self.lower is not None and (np.any(lower != 1) or np.any(upper != 1)):
            out.lower, out.upper = int32(lower), int32(upper)
        return out

    @classmethod
    def from_csr(cls, items: Sequence[str], primary: int | None, starts: np.ndarray,
                 flat: np.ndarray, source: str | None = None, check: bool = True) -> ExactCover:
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
                   primary: int | None = None) -> ExactCover:
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
            check_name(name, source, None)
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


def parse(text: str, source: str = "<text>") -> ExactCover:
    """Parse Knuth's dlx format (:func:`formats.dlx_format.parse`) into an ExactCover."""
    return ExactCover.from_dlx(dlx_format.parse(text, source))


def read(path_or_dash: str | Path) -> ExactCover:
    """Read a dlx file (``-`` = stdin)."""
    text, name = read_source(path_or_dash, what="a dlx file")
    return parse(text, name)


def format_dlx(problem: ExactCover, comment: str | None = None) -> str:
    """The problem in Knuth's dlx format (parse(format_dlx(p)) reproduces p)."""
    out: list[str] = []
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
