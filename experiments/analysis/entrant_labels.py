"""Entrant names short enough for a legend or a table cell.

An entrant is named as written on the command line, and an outside program's spec can be
thousands of characters long (``cmd:path=...,args=...``): drawn whole it makes a legend wider
than any page (a figure too large to draw, a PDF dimension TeX refuses). :func:`short_label`
keeps a name of at most :data:`LABEL_CHARS` characters as it is and cuts a longer one, ending it
with ``…`` and four hex digits of its SHA-256, so two long specs that start alike stay apart.
The full name is kept where there is room for it: ``race export`` and the footnote of the PDF
report (:func:`shortened` says which names were cut).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

#: the longest name drawn or tabulated whole
LABEL_CHARS = 28
#: what stands for the cut part of a name
ELLIPSIS = "\u2026"


def short_label(name: str, limit: int = LABEL_CHARS) -> str:
    """``name`` when it has at most ``limit`` characters, else its first characters, ``…`` and
    the first four hex digits of its SHA-256, ``limit`` characters in all."""
    name = str(name)
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:4]
    return name[:max(limit - len(digest) - 1, 1)] + ELLIPSIS + digest


def shortened(names: Iterable[str], limit: int = LABEL_CHARS) -> dict[str, str]:
    """The names of ``names`` that :func:`short_label` cuts, each with its short label."""
    return {name: short_label(name, limit) for name in dict.fromkeys(map(str, names))
            if len(name) > limit}
