"""The methods the race compares: the one list every description of the project comes from.

A *method* is a way of solving Sudoku (backtracking, exact cover, SAT, ...); an *entrant* is
a solver the race runs, and several entrants may use one method (``sat`` and ``kissat`` are
both SAT). ``race --help``, the documentation site's description (``docs/hooks``), the PDF
reports' titles and the tests that check README.md and docs/index.md all read
:data:`METHODS`; a new method is one line here.

Pure Python, no imports: ``race --help`` reads it.
"""

from __future__ import annotations


class Method:
    """A way of solving Sudoku: ``name`` (short, as in a title), ``phrase`` (as the project's
    description says it) and ``entrants``, the built-in entrant names that use it."""

    def __init__(self, name: str, phrase: str, entrants: tuple[str, ...]) -> None:
        self.name = name
        self.phrase = phrase
        self.entrants = entrants

    def __repr__(self) -> str:
        return f"Method({self.name!r})"


#: every method of the race, in the order the project presents them
METHODS: tuple[Method, ...] = (
    Method("backtracking", "naive backtracking", ("backtracking",)),
    Method("dancing links", "Knuth's dancing links (DLX) on an exact-cover reduction", ("dlx",)),
    Method("bit sets", "bit-set candidates with singles and locked candidates (the fast 9x9 "
           "solvers' technique)", ("bitset",)),
    Method("SAT", "SAT (in-process CaDiCaL through PySAT, or the kissat binary)", ("sat", "kissat")),
    Method("CP-SAT", "constraint programming (OR-Tools CP-SAT)", ("cpsat",)),
)

#: the built-in entrants that are no method of their own, and what each is instead (one, several)
OTHERS: dict[str, tuple[str, str]] = {
    "parallel": ("portfolio run in parallel", "portfolios run in parallel"),
    "auto": ("portfolio choosing per puzzle", "portfolios choosing per puzzle"),
    "cmd": ("outside program", "outside programs"),
}
_PLUGIN = ("plugin", "plugins")

_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def count_word(count: int | None = None) -> str:
    """The number of methods (``count``, default all of :data:`METHODS`) as a word: ``four``."""
    count = len(METHODS) if count is None else count
    return _WORDS[count] if count < len(_WORDS) else str(count)


def join(words: list[str] | tuple[str, ...]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    words = list(words)
    if len(words) < 2:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def names(methods: tuple[Method, ...] | list[Method] = METHODS) -> str:
    """The methods' short names joined: ``backtracking, dancing links, SAT and CP-SAT``."""
    return join([m.name for m in methods])


def description() -> str:
    """One line that says what the project races, with every method."""
    return f"Race Sudoku solvers ({names()}) and measure how each scales with the box size n"


def of_entrant(spec: str) -> Method | None:
    """The method of entrant ``spec`` (``sat:backend=glucose4`` -> SAT); None for an entrant
    that is no single method of its own (``parallel``, ``auto``, an outside program)."""
    base = spec.split(":", 1)[0]
    return next((m for m in METHODS if base in m.entrants), None)


def of_entrants(specs: list[str] | tuple[str, ...]) -> list[Method]:
    """The methods of the entrants ``specs``, each once, in :data:`METHODS` order."""
    used = {id(m) for m in (of_entrant(s) for s in specs) if m is not None}
    return [m for m in METHODS if id(m) in used]


def what(spec: str) -> str:
    """What entrant ``spec`` is: its method's name, else what :data:`OTHERS` says (``outside
    program``), else ``plugin``."""
    method = of_entrant(spec)
    if method is not None:
        return method.name
    return OTHERS.get(spec.split(":", 1)[0], _PLUGIN)[0]


def raced(specs: list[str] | tuple[str, ...]) -> list[str]:
    """What the entrants ``specs`` are, each once: their methods in :data:`METHODS` order, then
    the other kinds in plural (``outside programs``)."""
    others = [OTHERS.get(s.split(":", 1)[0], _PLUGIN)[1] for s in specs if of_entrant(s) is None]
    return [m.name for m in of_entrants(specs)] + list(dict.fromkeys(others))
