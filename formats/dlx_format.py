"""Knuth's dlx text format (the input of his dlx1, dlx2 and dlx3 programs), read without numpy.

::

    | a comment: any line whose first non-blank character is |
    A B C D E F | G        <- the items: primary, then | and the secondary ones
    A C                     <- one option per line, as item names
    B D G

Knuth's extensions are read too: a *color* on a secondary item of an option (dlx2: ``x:red``;
options that give x the same color may share it, an option naming x without a color excludes
every other) and *multiplicities* of primary items (dlx3: ``2:3|C`` on the item line means C is
covered 2 to 3 times, ``3|C`` exactly 3 times).

Blank lines are skipped; lines end at ``\\n`` (or CRLF) only and names are separated by ASCII
blanks. Malformed text raises :class:`RaceError` naming the source, the line and, for a token of
an option, its column: a CR inside a line (CR-only line ends), no item line, a duplicate item name,
an illegal name, an unknown item in an option, an item repeated in one option, an empty color or a
color with a second ``:`` (``x::b``), a color on a primary item, or an option with no primary item
(it could never be chosen; Knuth's dlx1 ignores such lines with a warning, here it is an error so
nothing is dropped silently).

:func:`parse` gives a :class:`DlxProblem`: names and flat ``array('i')`` buffers, which the C
exact cover kernel takes as they are (``race cover`` reaches its first node without importing
numpy); :meth:`formats.exact_cover.ExactCover.from_dlx` makes the numpy form of it.
"""

from __future__ import annotations

import re
from array import array
from typing import TypedDict

from formats.errors import RaceError
from formats.source import BLANKS, reject_carriage_return, split_lines


class DlxProblem:
    """An exact cover problem as read: ``items`` (primary first), ``primary``, option ``o``
    covering the items ``flat[starts[o]:starts[o+1]]`` (0-based, in the order written), and
    the extensions: ``colors`` (per entry of flat: 0 or a 1-based index into ``color_names``;
    None when no option has a color), ``lower``/``upper`` (per primary item; None when every
    bound is 1). The buffers are ``array('i')`` (int32). (A plain class, not a dataclass:
    ``dataclasses`` imports ``inspect``, 6 ms of a 30 ms ``race cover``.)"""

    def __init__(self, items: list[str], primary: int, starts: array, flat: array,
                 colors: array | None = None, color_names: list[str] | None = None,
                 lower: array | None = None, upper: array | None = None) -> None:
        self.items = items
        self.primary = primary
        self.starts = starts
        self.flat = flat
        self.colors = colors
        self.color_names = [] if color_names is None else color_names
        self.lower = lower
        self.upper = upper

    def __repr__(self) -> str:
        return (f"DlxProblem({len(self.items)} items, {self.primary} primary, {len(self)} options"
                f"{', extended' if self.extended else ''})")

    def __len__(self) -> int:
        """Number of options."""
        return len(self.starts) - 1

    @property
    def extended(self) -> bool:
        """True if the problem uses colors or multiplicities (Knuth's dlx2/dlx3)."""
        return self.colors is not None or self.lower is not None

    def entry_names(self, o: int) -> list[str]:
        """Option ``o`` as its dlx tokens: item names, with ``:color`` where it has one."""
        lo, hi = self.starts[o], self.starts[o + 1]
        names = [self.items[i] for i in self.flat[lo:hi]]
        if self.colors is None:
            return names
        return [n if not c else f"{n}:{self.color_names[c - 1]}"
                for n, c in zip(names, self.colors[lo:hi])]


def check_name(name: str, source: str | None, line: int | None) -> None:
    """RaceError unless ``name`` is a legal item name."""
    if not name or not name.isprintable() or any(ch.isspace() for ch in name) \
            or "|" in name or ":" in name:
        raise RaceError(f"illegal item name {name[:40]!r} (names are non-blank, printable and "
                        f"contain no whitespace, '|' or ':')", source=source, line=line)


_BOUND = re.compile(r"(?:([0-9]{1,9}):)?([0-9]{1,9})\|(.*)")
_BLANKS_TO_SPACE = str.maketrans({ch: " " for ch in BLANKS})
#: characters str.split() takes for blanks in ASCII text that the format does not
_OTHER_SEPARATORS = re.compile("[\x1c-\x1f]")


def _tokens(line: str, plain: bool) -> list[str]:
    """The blank-separated tokens of ``line`` (``plain``: the text is ASCII with no separator
    but the format's blanks, so str.split() splits the same way, faster)."""
    if plain:
        return line.split()
    return [tok for tok in line.translate(_BLANKS_TO_SPACE).split(" ") if tok]


def _column(raw: str, k: int) -> int:
    """The 1-based column where the ``k``-th token (0-based) of ``raw`` starts."""
    at, seen = 0, -1
    while True:
        while raw[at] in BLANKS:
            at += 1
        seen += 1
        if seen == k:
            return at + 1
        while at < len(raw) and raw[at] not in BLANKS:
            at += 1


def parse(text: str, source: str = "<text>") -> DlxProblem:
    """Parse Knuth's dlx format (see the module docstring)."""
    plain = text.isascii() and not _OTHER_SEPARATORS.search(text)
    items: list[str] | None = None
    primary = 0
    index: dict[str, int] = {}
    starts = array("i", [0])
    flat = array("i")
    colors = array("i")                   # filled only once a color is seen
    color_ids: dict[str, int] = {}
    lower = array("i")
    upper = array("i")
    lookup = index.__getitem__
    for no, raw in enumerate(split_lines(text), 1):
        if "\r" in raw:              # CR-only line ends: a comment would swallow the file
            reject_carriage_return(raw, source, no)
        line = raw.strip(BLANKS)
        if not line or line[0] == "|":
            continue
        tokens = _tokens(line, plain)
        if items is None:
            items, primary = _item_line(tokens, index, lower, upper, source, no)
            continue
        try:                         # the common case: plain names, each once, one primary
            ids = list(map(lookup, tokens))
            if len(set(ids)) != len(ids) or min(ids) >= primary:
                raise KeyError
        except KeyError:
            ids, cols = _option(raw, tokens, index, primary, color_ids, source, no)
            if cols is not None and not len(colors):
                colors.frombytes(bytes(4 * len(flat)))   # zeros for the options before
            if len(colors) or cols is not None:
                colors.extend(cols or [0] * len(ids))
        else:
            if len(colors):
                colors.extend([0] * len(ids))
        flat.extend(ids)
        starts.append(len(flat))
    if items is None:
        raise RaceError("no item line (expected the primary item names first)", source=source)
    if primary == 0:
        raise RaceError("no primary items (the item line must name at least one before '|')",
                        source=source)
    problem = DlxProblem(items, primary, starts, flat)
    if color_ids:
        problem.colors = colors
        problem.color_names = list(color_ids)
    if any(lo != 1 or hi != 1 for lo, hi in zip(lower, upper)):
        problem.lower, problem.upper = lower, upper
    return problem


def _item_line(tokens: list[str], index: dict[str, int], lower: array, upper: array,
               source: str, no: int) -> tuple[list[str], int]:
    """The items of the item line (filling ``index`` and the bounds) and the primary count."""
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
        check_name(tok, source, no)
        if tok in index:
            raise RaceError(f"duplicate item name {tok!r}", source=source, line=no)
        index[tok] = len(index)
        items.append(tok)
        if k < bar:
            lower.append(lo)
            upper.append(hi)
    return items, bar


class _Where(TypedDict):
    """Where a bad token is, as :class:`RaceError` takes it."""
    source: str
    line: int
    column: int


def _option(raw: str, tokens: list[str], index: dict[str, int], primary: int,
            color_ids: dict[str, int], source: str, no: int) -> tuple[list[int], list[int] | None]:
    """One option line token by token: its items and their colors (None when it has none);
    a RaceError naming the line and the column of the first bad token."""
    ids: list[int] = []
    cols: list[int] = []
    seen: set[int] = set()
    for k, tok in enumerate(tokens):
        name, colon, color = tok.partition(":")
        i = index.get(name)
        where: _Where = {"source": source, "line": no, "column": _column(raw, k)}
        if i is None:
            raise RaceError(f"unknown item {name[:40]!r} in an option", **where)
        if i in seen:
            raise RaceError(f"item {name!r} occurs twice in one option", **where)
        if colon and i < primary:
            raise RaceError(f"{tok[:40]!r}: only a secondary item takes a color (item:color)",
                            **where)
        if colon and not color:
            raise RaceError(f"{tok[:40]!r}: an empty color (write item:color, or the item "
                            f"alone for no color)", **where)
        if ":" in color:
            raise RaceError(f"{tok[:40]!r}: a second ':' (write item:color; a color has no ':')",
                            **where)
        seen.add(i)
        ids.append(i)
        cols.append(color_ids.setdefault(color, len(color_ids) + 1) if colon else 0)
    if min(seen) >= primary:
        raise RaceError("empty option: no primary item, so it could never be chosen",
                        source=source, line=no)
    return ids, (cols if any(cols) else None)
