"""The one rule for an integer written on the command line, shared by click's options
(:class:`experiments.cli.params.Integer`) and the plain ``race cover`` start
(:mod:`experiments.cli.entry`), so both starts take and refuse exactly the same texts.

An integer is an optional sign and 1 to :data:`MAX_DIGITS` ASCII digits, spaces around it
ignored: never a Unicode digit, never a text long enough to make ``int()`` slow or refuse it.
"""

from __future__ import annotations

#: the most digits an integer may have (far beyond int64, far below int()'s 4,300-digit limit)
MAX_DIGITS = 30


def parse_integer(text: str) -> int | None:
    """The integer ``text`` writes (module docstring), or None when it is not one."""
    body = text.strip()
    digits = body[1:] if body[:1] in ("+", "-") else body
    if not (1 <= len(digits) <= MAX_DIGITS and digits.isascii() and digits.isdigit()):
        return None
    return int(body)
