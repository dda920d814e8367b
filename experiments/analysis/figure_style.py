"""The look shared by every figure (the report's, ``race plot``'s, the landscape's, the head
to head and the HTML page's plotly figures): the matplotlib style, each entrant's colour,
marker and dash, the legend placed under the axes and the campaign caption under it all.
Black-and-white safe: markers and line styles differ, not only colours.

**An entrant's style** is decided here and nowhere else (:func:`entrant_styles`): it follows
from the entrant's name, not from its place in a campaign, so ``sat`` looks the same in the
runtime figure, the landscape of another campaign and the HTML page. The built-in entrants
and the virtual best solver own a slot each (:data:`FIXED_SLOTS`), never taken by another
name. A variant of a built-in (``dlx:heuristic=first``) wears its solver's colour with a marker
and dash of its own; any other entrant the colour its name hashes to; each takes the first slot
of that colour that no entrant of the same figure holds.
"""

from __future__ import annotations

import functools
import hashlib
import math
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

# a figure written to a file: what every figure module imports from here
from experiments.analysis.figure_files import (  # noqa: F401
    renderer_of,
    save_failure,
    save_figure,
    tight_box,
)
from experiments.analysis.virtual_best import NAME as VIRTUAL_BEST

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.figure import Figure

    from experiments.analysis.campaign_data import Campaign

MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "h"]
#: the same markers as plotly symbols
SYMBOLS = {"o": "circle", "s": "square", "^": "triangle-up", "D": "diamond", "v": "triangle-down",
           "P": "cross", "X": "x", "*": "star", "h": "hexagon"}
#: dash patterns (on, off, ... in line widths; () is a solid line), drawn alike by matplotlib
#: (which scales them by the line width) and plotly (in pixels, scaled here)
DASHES: list[tuple[float, ...]] = [(), (3.7, 1.6), (6.4, 1.6, 1, 1.6), (1, 1.65), (5, 1, 1, 1), (8, 2),
                                   (8, 2, 1, 2, 1, 2), (3, 1, 1, 1, 1, 1)]
LINESTYLES = ["-" if not d else (0, d) for d in DASHES]
#: Okabe-Ito colours, ordered so neighbours differ in lightness too, and a wine red (Tol's) for
#: the fourth method, constraint programming
COLOURS = ["#000000", "#E69F00", "#0072B2", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#999999",
           "#882255"]
HATCHES = ["", "///", "...", "xxx", "\\\\\\", "ooo", "---", "+++"]
#: the slot of each built-in entrant and of the virtual best solver, whatever campaign it is in
FIXED_SLOTS = {"backtracking": 0, "dlx": 1, "sat": 2, "kissat": 3, VIRTUAL_BEST: 4, "auto": 5, "cmd": 6,
               "parallel": 7, "cpsat": 8, "bitset": 15}
#: distinct (colour, marker, dash) triples: a round of 9 slots of all-different colours and
#: markers, then rounds that shift the marker and the dash against the colour
SLOTS = 64
STYLE = {"font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9, "legend.fontsize": 8,
         "xtick.labelsize": 8, "ytick.labelsize": 8, "figure.dpi": 100, "savefig.bbox": "tight",
         "pdf.fonttype": 42, "axes.grid": True, "grid.alpha": 0.3, "grid.linewidth": 0.5,
         # names are drawn as written: a `$` in an entrant spec is no math
         "text.parse_math": False}


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend (files, no display), imported at first use:
    the commands that draw no matplotlib figure (the HTML page, export, compare) never load it."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


@dataclass(frozen=True)
class EntrantStyle:
    """One entrant's look: an Okabe-Ito colour, a marker and a dash pattern (in line widths)."""

    colour: str
    marker: str
    dash: tuple[float, ...]

    def matplotlib(self) -> dict:
        """Keyword arguments of ``Axes.plot``."""
        return {"marker": self.marker, "linestyle": (0, self.dash) if self.dash else "-",
                "color": self.colour, "markersize": 5, "linewidth": 1.4}

    @property
    def symbol(self) -> str:
        """The marker as a plotly symbol name."""
        return SYMBOLS[self.marker]

    def plotly_dash(self, width: float = 2.0) -> str:
        """The dash pattern as plotly's ``line.dash`` for a line ``width`` pixels wide."""
        return "solid" if not self.dash else ",".join(f"{width * v:g}px" for v in self.dash)


def slot_style(slot: int) -> EntrantStyle:
    """The style of slot ``slot`` (see :data:`SLOTS`; taken modulo it)."""
    slot %= SLOTS
    turn, k = divmod(slot, len(COLOURS))
    return EntrantStyle(COLOURS[k], MARKERS[(k + turn) % len(MARKERS)], DASHES[(k + 2 * turn) % len(DASHES)])


def _preferred_colour(entrant: str) -> int:
    """The colour an entrant that owns no slot wears: its solver's (the name before ``:``)
    when that is a built-in, else the one its name hashes to."""
    base = entrant.split(":", 1)[0]
    if base in FIXED_SLOTS:
        return FIXED_SLOTS[base] % len(COLOURS)
    digest = hashlib.sha256(entrant.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:4], "big") % len(COLOURS)


def entrant_styles(entrants: Iterable[str]) -> dict[str, EntrantStyle]:
    """The style of each of ``entrants`` (every entrant a figure, or a page of figures, may
    draw): a built-in entrant's own slot (:data:`FIXED_SLOTS`); any other entrant, in the
    order given, the first free slot of its colour (:func:`_preferred_colour`) outside the
    built-ins' slots, else of the next colour. Two entrants of one call never share a style
    (up to :data:`SLOTS` entrants)."""
    names = list(dict.fromkeys(entrants))
    slots: dict[str, int] = {e: FIXED_SLOTS[e] for e in names if e in FIXED_SLOTS}
    taken = set(FIXED_SLOTS.values())           # a built-in's look is never another's
    for entrant in names:
        if entrant in slots:
            continue
        colour = _preferred_colour(entrant)
        free = [s for s in range(SLOTS) if s not in taken]
        slot = min(free, key=lambda s: ((s - colour) % len(COLOURS), s)) if free else colour
        slots[entrant] = slot
        taken.add(slot)
    return {e: slot_style(slots[e]) for e in names}


def legend_below(fig: Figure, handles: list[Artist], labels: list[str], columns: int,
                 handlelength: float = 3.2) -> None:
    """One legend under the axes, outside the data (lays the axes out first); ``handlelength``
    (in font sizes): how long a line's sample is drawn."""
    with warnings.catch_warnings():     # "Tight layout not applied": the figure is still drawn
        warnings.simplefilter("ignore", UserWarning)
        fig.tight_layout()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=max(1, columns),
               frameon=False, handlelength=handlelength, columnspacing=1.4)


@functools.lru_cache(maxsize=4)
def _glyphs(family: str) -> frozenset[int]:
    """The code points the font matplotlib draws ``family`` text in has a glyph for."""
    from matplotlib import font_manager, ft2font
    path = font_manager.findfont(font_manager.FontProperties(family=[family]))
    return frozenset(ft2font.FT2Font(path).get_charmap())


def drawable(text: str) -> str:
    """``text`` with each character the figure font has no glyph for (a CJK ideograph in
    DejaVu Sans) spelled as its code point, ``[U+6D4B]``, as the LaTeX report spells it: a
    figure never shows an empty box where a name was."""
    import matplotlib
    glyphs = _glyphs(matplotlib.rcParams["font.family"][0])
    return "".join(c if ord(c) in glyphs or c in "\n\t " else f"[U+{ord(c):04X}]" for c in str(text))


def caption_below(fig: Figure, text: str, size: float = 5.5) -> None:
    """``text`` (e.g. the campaign's name) in small grey type under everything the figure
    draws (axes, labels, a legend below them), right-aligned: never over a label. Call it
    last; ``savefig(bbox_inches="tight")`` keeps it in the picture. A text longer than
    the figure is wide is wrapped."""
    renderer = renderer_of(fig)
    box = fig.get_tightbbox(renderer)                     # inches, legends included
    width, height = fig.get_size_inches()
    fig.text(box.x1 / width, (box.y0 - 0.04) / height, drawable(text), ha="right", va="top",
             fontsize=size, color="0.4", wrap=True)


#: the smallest and largest type, in points, of a figure drawn for a given width (``--width``):
#: read at that width in a column or on a page
PRINT_SIZES = (8.0, 10.0)
#: the type, in points, of a note inside a panel ("> limit", a count) at a figure's own size
#: (laid out for a width, it is raised to the smallest of PRINT_SIZES)
NOTE_SIZE = 6.5


#: the units ``--width`` takes, in inches
WIDTH_UNITS = {"in": 1.0, "cm": 1 / 2.54, "mm": 1 / 25.4, "pt": 1 / 72.27, "bp": 1 / 72}
#: the narrowest and widest figure ``--width`` draws, in inches
WIDTH_RANGE = (1.5, 20.0)


def parse_width(text: str) -> float:
    """A figure's width as written on the command line (``3.3in``, ``8.4cm``, ``240pt``; a bare
    number is inches) in inches. Raises RaceError naming the text when it is no such length or
    lies outside :data:`WIDTH_RANGE`."""
    import re

    from formats.errors import RaceError
    found = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(in|cm|mm|pt|bp)?\s*", str(text))
    if not found:
        raise RaceError(f"--width {text!r}: expected a length such as 3.3in, 6.8in, 8.4cm or 240pt")
    inches = float(found.group(1)) * WIDTH_UNITS[found.group(2) or "in"]
    low, high = WIDTH_RANGE
    if not low <= inches <= high:
        raise RaceError(f"--width {text!r}: a figure from {low:g} to {high:g} inches wide, please "
                        f"(3.3in: a column, 6.8in: a page)")
    return inches


def fit_width(fig: Figure, width: float, rounds: int = 6) -> None:
    """Lay ``fig`` out to be at most ``width`` inches wide as saved (``bbox_inches`` the tight
    box), its type between :data:`PRINT_SIZES` points: included at that width the text reads
    at its own size, never shrunk. The figure takes the width; titles wrap; a legend below
    the axes loses columns until it fits; then the figure narrows by what still sticks out
    (a tick label, the legend), a few rounds. Call it before :func:`caption_below`."""
    from matplotlib.text import Text
    low, high = PRINT_SIZES
    for text in fig.findobj(Text):
        if text.get_text():
            text.set_fontsize(min(max(text.get_fontsize(), low), high))
    for ax in fig.axes:
        ax.title.set_wrap(True)
    suptitle = vars(fig).get("_suptitle")
    if suptitle is not None:
        suptitle.set_wrap(True)
        suptitle.set_y(0.99)                         # in the figure: the layout makes room
    import matplotlib
    _, height = fig.get_size_inches()
    width -= 2 * matplotlib.rcParams["savefig.pad_inches"]      # the tight box's padding
    fig.set_size_inches(width, height)
    fixed_aspect = any(ax.get_aspect() != "auto" for ax in fig.axes)
    shown = fig.dpi
    fig.set_dpi(150)                                      # text measured as tight_box measures it
    try:
        for _ in range(rounds):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                fig.tight_layout()
            _fit_titles(fig)
            _fit_legends(fig, width)
            box = fig.get_tightbbox(renderer_of(fig))
            excess = box.width - width
            if excess <= 0.005:
                return
            now = fig.get_size_inches()[0]
            narrower = max(now - excess - 0.01, 1.0)
            if fixed_aspect:                              # square panels: narrower ones are lower
                height *= narrower / now
            fig.set_size_inches(narrower, height)
    finally:
        fig.set_dpi(shown)


def _fit_titles(fig: Figure) -> None:
    """Each panel's title on as many lines as keep it within its panel's width (at spaces)."""
    import textwrap
    renderer = renderer_of(fig)
    for ax in fig.axes:
        title = ax.title
        text = " ".join(title.get_text().split())
        room = ax.get_window_extent(renderer).width
        if not text or " " not in text or title.get_window_extent(renderer).width <= room:
            continue
        chars = len(text)
        while chars > 8:
            chars -= 4
            title.set_text(textwrap.fill(text, chars, break_long_words=False))
            if title.get_window_extent(renderer).width <= room:
                break


def _fit_legends(fig: Figure, width: float) -> None:
    """Each legend under the axes (:func:`legend_below`'s) with as many columns as fit
    ``width`` inches, one at least: drawn again with one column less until it fits."""
    import textwrap
    renderer = renderer_of(fig)
    for legend in list(fig.legends):
        columns, chars = int(vars(legend).get("_ncols", 1)), None
        while legend.get_window_extent(renderer).width / fig.dpi > width:
            labels = [t.get_text() for t in legend.texts]
            if columns > 1:
                columns -= 1
            else:                     # one column and still too wide: a long note on more lines
                longest = max(len(line) for label in labels for line in label.splitlines() or [""])
                chars = min(chars or longest, longest) - 6
                if chars < 20:
                    break
                labels = [textwrap.fill(" ".join(label.split()), chars) if len(label) > chars else label
                          for label in labels]
            kept = [(h, label) for h, label in zip(legend.legend_handles, labels) if h is not None]
            length = legend.handlelength
            legend.remove()
            legend = fig.legend([h for h, _ in kept], [label for _, label in kept], loc="upper center", bbox_to_anchor=(0.5, 0.0),
                                ncol=columns, frameon=False, handlelength=length, columnspacing=1.4)


def campaign_styles(*campaigns) -> dict[str, EntrantStyle]:
    """:func:`entrant_styles` of every entrant of ``campaigns`` (objects with ``entrants``)
    and the virtual best solver: what every figure of those campaigns asks for its styles."""
    return entrant_styles([*(e for c in campaigns for e in c.entrants), VIRTUAL_BEST])


#: the censored strip above the time limit: at least this share of the axis's decades
#: (and ``STRIP_MIN_DECADES``), more when its rows need the room: one row per entrant that
#: has a censored value, ``ROW_POINTS`` apart
STRIP_SHARE = 0.12
STRIP_MIN_DECADES = 0.3
ROW_POINTS = 6.5


def censored_rows(entrants: list[str], limit: float, low: float, height_points: float = 150.0
                  ) -> dict[str, float]:
    """The y of each of ``entrants``' row in the censored strip drawn above the time limit
    ``limit`` on a log axis from ``low``, ``height_points`` tall: censored values sit in a
    row of their own per entrant ("> limit"), not piled on the limit line. Rows are evenly
    spaced in the strip, at least :data:`ROW_POINTS` apart. Empty without entrants."""
    if not entrants:
        return {}
    span = math.log10(limit / low) if 0 < low < limit else 3.0
    slots = len(entrants) + 1
    room = height_points / slots - ROW_POINTS      # points left for the rest of the axis, per slot
    needed = ROW_POINTS * span / room if room > 0 else span
    strip = min(span, max(STRIP_MIN_DECADES, STRIP_SHARE * span, needed))
    return {e: limit * 10 ** (strip * (k + 1) / slots) for k, e in enumerate(entrants)}


def strip_top(rows: dict[str, float], limit: float) -> float:
    """The top of the axis that holds the censored strip of ``rows`` (one and a half rows'
    step above the highest row: room for its markers)."""
    if not rows:
        return limit * 1.5
    highest = max(rows.values())
    return highest * (highest / limit) ** (1.5 / len(rows))


def axes_height_points(fig: Figure, ax) -> float:
    """The height of ``ax`` in points (before the layout tightens it a little)."""
    return 0.85 * ax.get_position().height * fig.get_size_inches()[1] * 72


def family_title(campaign: Campaign, family: str) -> str:
    """``<family> puzzles``, with the share of holes when the family has one fixed share."""
    import pandas as pd
    runs = campaign.runs
    if "holes" in runs.columns and "family" in runs.columns:
        shares = pd.to_numeric(runs.loc[runs["family"] == family, "holes"], errors="coerce").dropna()
        if len(shares) and shares.nunique() == 1:
            return f"{family} puzzles ({100 * float(shares.iloc[0]):.0f}% empty)"
    return f"{family} puzzles"
