"""The "did you mean" of an error about a name or a value outside a closed set of choices.

:func:`did_you_mean` gives the text to add to such an error: the nearest choice by spelling
(:func:`difflib.get_close_matches`), or nothing when none is near. Every error that lists the
choices of a name (a solver, a parameter, one of its values, a SAT backend) asks it.
"""

from __future__ import annotations

from collections.abc import Iterable


def closest(text: str, choices: Iterable[object]) -> str | None:
    """The choice spelled nearest to ``text`` (case aside), or None when none is near."""
    import difflib  # only on the way to an error: not at every start
    named = {str(choice).lower(): str(choice) for choice in choices}
    found = difflib.get_close_matches(str(text).lower(), list(named), n=1, cutoff=0.6)
    return named[found[0]] if found else None


def did_you_mean(text: str, choices: Iterable[object]) -> str:
    """``" (did you mean X?)"`` for the choice X nearest to ``text``, else ``""``."""
    found = closest(text, choices)
    return f" (did you mean {found}?)" if found is not None and found != str(text) else ""
