"""TeX helpers of the report: escaping, numbers with units, letters-only macro names
and :class:`Macros`, the ``\\newcommand`` file."""

from __future__ import annotations

import math
import re
import unicodedata

from experiments.analysis.censored_stats import format_seconds

#: what a macro or table cell says when the campaign lacks the number
MISSING = "n/a"

_DIGITS = ["Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine"]
_NUMBER_WORDS = {10: "Ten", 11: "Eleven", 12: "Twelve"}


def number_word(value: int) -> str:
    """``5`` -> ``Five``, ``12`` -> ``Twelve``, ``195`` -> ``OneNineFive`` (letters only)."""
    if value in _NUMBER_WORDS:
        return _NUMBER_WORDS[value]
    return "".join(_DIGITS[int(d)] for d in str(value))


def macro_name(*parts: str) -> str:
    """A letters-only camelCase name from free text: ``("sat:backend=glucose4", "Median")``
    -> ``satBackendGlucoseFourMedian``."""
    words: list[str] = []
    for part in parts:
        for token in re.findall(r"[A-Za-z]+|[0-9]+", str(part)):
            words.append(number_word(int(token)) if token.isdigit() else token[0].upper() + token[1:])
    if not words:
        raise ValueError("empty macro name")
    name = "".join(words)
    return name[0].lower() + name[1:]


_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
            "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
            # < and > are no text glyphs of the default (OT1) fonts: "> 10 s" would print "¡ 10 s"
            "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}

#: characters outside ASCII that plain LaTeX (pdflatex, no font package) prints
_SYMBOLS = {"\u00b5": r"\ensuremath{\mu}", "\u03bc": r"\ensuremath{\mu}", "\u00d7": r"\ensuremath{\times}",
            "\u00b1": r"\ensuremath{\pm}", "\u00b7": r"\ensuremath{\cdot}", "\u00b0": r"\ensuremath{^\circ}",
            "\u2026": r"\ldots{}", "\u2013": "--", "\u2014": "---", "\u2018": "`", "\u2019": "'",
            "\u201c": "``", "\u201d": "''", "\u00a0": "~", "\u00df": r"\ss{}", "\u00e6": r"\ae{}",
            "\u00c6": r"\AE{}", "\u0153": r"\oe{}", "\u0152": r"\OE{}", "\u00f8": r"\o{}", "\u00d8": r"\O{}",
            "\u0142": r"\l{}", "\u0141": r"\L{}", "\u0131": r"\i{}", "\u00a7": r"\S{}", "\u00b6": r"\P{}",
            "\u00a9": r"\copyright{}", "\u00a3": r"\pounds{}", "\u00f0": "d", "\u00d0": "D", "\u00fe": "th",
            "\u00de": "Th", "\u2212": "-", "\u00ab": r"\textless{}\textless{}",
            "\u00bb": r"\textgreater{}\textgreater{}"}
#: combining accents (after NFD) as LaTeX's text accents
_ACCENTS = {"\u0301": "'", "\u0300": "`", "\u0302": "^", "\u0308": '"', "\u0303": "~", "\u0327": "c",
            "\u030c": "v", "\u030a": "r", "\u0304": "=", "\u0306": "u", "\u0307": ".", "\u030b": "H"}
#: Greek capitals drawn like Latin ones (TeX has no command for them)
_GREEK_LATIN = {"ALPHA": "A", "BETA": "B", "EPSILON": "E", "ZETA": "Z", "ETA": "H", "IOTA": "I",
                "KAPPA": "K", "MU": "M", "NU": "N", "OMICRON": "O", "RHO": "P", "TAU": "T", "CHI": "X"}
_GREEK_TEX = {"LAMDA": "lambda", "FINAL SIGMA": "varsigma"}


def _greek(name: str) -> str | None:
    """A Greek letter (its Unicode name) in math italics, e.g. ``\\ensuremath{\\tau}``."""
    match = re.fullmatch(r"GREEK (SMALL|CAPITAL) LETTER (.+)", name)
    if not match:
        return None
    case, letter = match.groups()
    if case == "CAPITAL" and letter in _GREEK_LATIN:
        return _GREEK_LATIN[letter]
    if case == "SMALL" and letter == "OMICRON":
        return "o"
    word = _GREEK_TEX.get(letter, letter.lower())
    if not word.isalpha():
        return None
    return f"\\ensuremath{{\\{word.capitalize() if case == 'CAPITAL' else word}}}"


def _plain(ch: str) -> str:
    """One character of text as plain LaTeX prints it (pdflatex, no font or input package): ASCII
    escaped, accented letters with accent commands, Greek letters in math, a few symbols by name;
    any other character (a CJK ideograph, say) spelled as its code point, ``[U+6D4B]``, so that
    every name builds: a character LaTeX has no glyph for stops a pdflatex run."""
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    if ch < "\x7f":
        return ch if ch >= " " or ch in "\n\t" else " "
    if ch in _SYMBOLS:
        return _SYMBOLS[ch]
    name = unicodedata.name(ch, "")
    greek = _greek(name)
    if greek is not None:
        return greek
    decomposed = unicodedata.normalize("NFD", ch)
    base, marks = decomposed[:1], decomposed[1:]
    if base != ch and marks:
        text = _plain(base)
        for mark in marks:
            accent = _ACCENTS.get(mark)
            if accent is not None:
                text = "\\" + accent + "{" + ("\\i" if text == "i" else text) + "}"   # i: dotless under it
        return text
    return f"[U+{ord(ch):04X}]"


def escape(text: object) -> str:
    """Text made safe for LaTeX: special characters escaped and every character outside ASCII
    written so that plain pdflatex prints it (:func:`_plain`)."""
    text = "".join(map(_plain, str(text)))
    return text.replace("--", "-{}-")  # no en-dash ligature in command lines


def tex_seconds(value: float, limit: float | None = None) -> str:
    """A time for the text, with its unit: ``12.3\\,ms``; censored -> ``$>$\\,10\\,s``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    text = format_seconds(value, limit)
    return escape(text).replace(r"\textgreater{} ", r"$>$\,").replace(" ", r"\,")


def tex_int(value: float) -> str:
    """An integer count with thousands separators: ``16680`` -> ``16,680``."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return MISSING
    return f"{int(round(value)):,}".replace(",", "{,}")


def tex_float(value: float, digits: int = 2) -> str:
    """A ratio or slope with ``digits`` significant digits (no exponent for usual sizes)."""
    if value is None or not math.isfinite(value):
        return MISSING
    if abs(value) >= 10 ** digits:
        return tex_int(value)
    return f"{value:.{digits}g}"


def tex_factor_high(value: float) -> str:
    """The upper end of a growth factor's interval: ``unbounded`` when a resample's median
    was censored."""
    if value is not None and math.isinf(value):
        return "unbounded"
    return tex_float(value)


def tex_ratio(value: float) -> str:
    """A time ratio B/A: 3 significant digits; ``inf`` (only A answered) as ``$\\infty$``."""
    if value is None or math.isnan(value):
        return MISSING
    if math.isinf(value):
        return r"$\infty$"
    return "0" if value == 0 else f"{value:.3g}"


class Macros:
    """An ordered set of ``\\newcommand`` definitions with letters-only names.

    With ``wanted`` (the control words a document uses, see :func:`used_names`) only
    those macros and ``\\if`` flags are kept; without it, every one added."""

    def __init__(self, wanted: set[str] | None = None) -> None:
        self.values: dict[str, str] = {}
        self.flags: dict[str, bool] = {}
        self.wanted = wanted

    def add(self, name: str, value: object) -> None:
        """Define ``\\<name>`` as ``value`` (when wanted)."""
        if not re.fullmatch(r"[A-Za-z]+", name):
            raise ValueError(f"macro name {name!r} must be letters only")
        if self.wanted is None or name in self.wanted:
            self.values[name] = str(value)

    def flag(self, name: str, value: bool) -> None:
        """A TeX conditional ``\\if<name>`` (e.g. ``\\ifhasKissat``), true or false (when wanted)."""
        if not re.fullmatch(r"[A-Za-z]+", name):
            raise ValueError(f"flag name {name!r} must be letters only")
        if self.wanted is None or f"if{name}" in self.wanted:
            self.flags[name] = value

    def text(self) -> str:
        lines = ["% Generated by `race report` from the campaign; do not edit.",
                 "% Every number the report quotes is one of these macros."]
        for name, value in self.flags.items():
            lines += [f"\\newif\\if{name}", f"\\{name}{'true' if value else 'false'}"]
        lines += [f"\\newcommand{{\\{name}}}{{{value}}}" for name, value in self.values.items()]
        return "\n".join(lines) + "\n"


def used_names(tex: str) -> set[str]:
    """Every control word (``\\name``) in the TeX source ``tex``, without the backslash."""
    return set(re.findall(r"\\([A-Za-z]+)", tex))
