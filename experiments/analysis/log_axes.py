"""Log axes whose tick labels are plain text (10\u207b\u2074, 2\u00d710\u207b\u2074), as every
matplotlib figure draws them: the figures draw text as written, so matplotlib's own log
labels would show their TeX source."""

from __future__ import annotations

import math

from matplotlib.ticker import LogFormatter

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
