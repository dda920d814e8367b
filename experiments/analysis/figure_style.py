"""The look shared by every figure (the report's, ``race plot``'s, the landscape's and the
head to head): the matplotlib style, each entrant's marker, line and colour, and the legend
placed under the axes. Black-and-white safe: markers and line styles differ, not only colours."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

from matplotlib.figure import Figure
from matplotlib.ticker import LogFormatter

MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1, 1, 1)), (0, (1, 1)), (0, (8, 2)), (0, (3, 1, 1, 1, 1, 1))]
#: Okabe-Ito colours, ordered so neighbours differ in lightness too
COLOURS = ["#000000", "#E69F00", "#0072B2", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#999999"]
HATCHES = ["", "///", "...", "xxx", "\\\\\\", "ooo", "---", "+++"]
STYLE = {"font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9, "legend.fontsize": 8,
         "xtick.labelsize": 8, "ytick.labelsize": 8, "figure.dpi": 100, "savefig.bbox": "tight",
         "pdf.fonttype": 42, "axes.grid": True, "grid.alpha": 0.3, "grid.linewidth": 0.5,
         # names are drawn as written: a `$` in an entrant spec is no math
         "text.parse_math": False}


_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


class PlainLogFormatter(LogFormatter):
    """Tick labels of a log axis as plain text: 10\u207b\u2074, 2\u00d710\u207b\u2074. The figures draw text as
    written (``text.parse_math`` off), so matplotlib's own log labels would show their TeX
    source (``$\\mathdefault{10^{-4}}$``); which ticks get a label stays matplotlib's choice."""

    def _num_to_string(self, x: float, vmin: float, vmax: float) -> str:
        exponent = math.floor(math.log10(x) + 1e-9)
        power = "10" + str(exponent).translate(_SUPERSCRIPT)
        coeff = x / 10.0 ** exponent
        return power if abs(coeff - 1) < 1e-6 else f"{coeff:.3g}\u00d7{power}"


def log_scale(ax, which: str = "y", **scale: object) -> None:
    """Put ``which`` ("x" or "y") axis of ``ax`` on a log scale (``scale``: e.g.
    ``symlog=True, linthresh=1``) with plain-text tick labels (:class:`PlainLogFormatter`)."""
    kind = "symlog" if scale.pop("symlog", False) else "log"
    getattr(ax, f"set_{which}scale")(kind, **scale)
    axis = ax.xaxis if which == "x" else ax.yaxis
    axis.set_major_formatter(PlainLogFormatter(labelOnlyBase=False))
    if kind == "log":
        axis.set_minor_formatter(PlainLogFormatter(labelOnlyBase=False))


def save_figure(fig: Figure, path: Path, **options: object) -> None:
    """``fig.savefig(path, **options)``, whole or not at all: drawn into a file beside
    ``path`` and renamed. A full disk (an OSError, or zlib's "buffer error" from the PDF
    backend) is a one-line RaceError naming ``path``, and no cut figure is left."""
    from formats.errors import RaceError
    from formats.whole_file import replacing
    path = Path(path)
    try:
        with replacing(path) as temporary:
            fig.savefig(temporary, format=path.suffix.lstrip(".") or None, **options)
    except Exception as exc:      # noqa: BLE001 - OSError, zlib.error, a backend's own
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else f"{type(exc).__name__}: {exc}"
        raise RaceError(f"cannot write the figure ({why}; is the disk full?)", source=str(path)) from None


#: the look of the entrants of a method that has its own (beyond the index's line style):
#: constraint programming (``cp``, the cpsat entrant) draws hexagons in wine red, a colour
#: outside :data:`COLOURS`, so a CP entrant is told apart in every figure
METHOD_STYLES: dict[str, dict] = {"cp": {"marker": "h", "color": "#882255"}}


def method_of(entrant: str) -> str:
    """The method family of the solver of an entrant spec (``cp`` for ``cpsat:seed=1``), ""
    when it is not a solver known here (the figure then styles it by index only)."""
    from solvers.registry import INSTALLED, parse_spec
    try:
        return INSTALLED.solver_class(parse_spec(str(entrant))[0]).method
    except Exception:        # noqa: BLE001 - the VBS, a plugin gone, a spec from elsewhere
        return ""


def style(index: int, entrant: str = "") -> dict:
    """Line style of the entrant at ``index`` (stable across figures); an ``entrant`` of a
    method with its own look (:data:`METHOD_STYLES`) takes that marker and colour."""
    look = {"marker": MARKERS[index % len(MARKERS)], "linestyle": LINESTYLES[index % len(LINESTYLES)],
            "color": COLOURS[index % len(COLOURS)], "markersize": 5, "linewidth": 1.4}
    return look | METHOD_STYLES.get(method_of(entrant), {}) if entrant else look


def legend_below(fig: Figure, handles: list, labels: list, columns: int) -> None:
    """One legend under the axes, outside the data (lays the axes out first)."""
    with warnings.catch_warnings():     # "Tight layout not applied": the figure is still drawn
        warnings.simplefilter("ignore", UserWarning)
        fig.tight_layout()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=columns,
               frameon=False, handlelength=3.2, columnspacing=1.4)
