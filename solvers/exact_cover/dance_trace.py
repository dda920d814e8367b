"""The dance, step by step: Algorithm X on dancing links as a stream of events (the thesis's log).

:func:`trace` runs the same search as :func:`solvers.exact_cover.algorithm_x.dlx_search`
(same Choose rule, same cover/uncover order, same node and update counts) in
plain Python and yields one :class:`Step` per event:

* ``choose``: the item chosen at ``level``, with its ``size`` (options left);
* ``cover``: an item covered (the chosen one, or another item of the option
  just tried), with the ``updates`` it made;
* ``try``: an option tried for the chosen item (one search-tree node);
* ``solution``: every primary item is covered (``options`` = the chosen ones);
* ``uncover``: an item uncovered on the way back (a backtrack).

It is for teaching and for drawing the search (``race cover --trace``,
``race animate``), so it is a generator: the caller stops it after as many
steps as it wants, and a stopped trace leaves the links as they were at that
step (use a copy of the structure).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from solvers.exact_cover.algorithm_x import FIRST, MRV
from solvers.exact_cover.dancing_links import ROOT, DancingLinks


@dataclass(frozen=True)
class Step:
    action: str                   # choose, cover, try, solution, uncover
    level: int
    item: str | None = None       # the item's name (choose, cover, uncover, try: the chosen item)
    size: int | None = None       # choose: options left in the item
    option: int | None = None     # try: the option's index in the problem
    updates: int | None = None    # cover: updates this cover made
    options: tuple[int, ...] = field(default=())   # solution: the chosen options

    def describe(self, dl: DancingLinks | None = None,
                 option_names: Callable[[int], list[str]] | None = None) -> str:
        """One line: level, what happened, to which item or option."""
        head = f"L{self.level:<3d}{'  ' * self.level}"
        if self.action == "choose":
            return f"{head}choose {self.item} (size {self.size})"
        if self.action == "cover":
            return f"{head}cover {self.item} ({self.updates} updates)"
        if self.action == "uncover":
            return f"{head}uncover {self.item}"
        if self.action == "try":
            assert self.option is not None              # a try names its option
            names = " ".join(option_names(self.option)) if option_names else ""
            return f"{head}try option {self.option + 1} for {self.item}: {names}".rstrip(": ")
        return f"{head}solution: options {' '.join(str(o + 1) for o in self.options)}"


def trace(dl: DancingLinks, heuristic: int = MRV) -> Iterator[Step]:
    """The search on ``dl`` as steps (see the module docstring); ``heuristic`` is
    :data:`~solvers.exact_cover.algorithm_x.MRV` or :data:`~solvers.exact_cover.algorithm_x.FIRST`."""
    L, R, U, D, C, S = dl.links
    names = dl.names
    chosen: list[int] = []

    def name(c: int) -> str:
        return names[int(c) - 1]

    def cover(c: int) -> int:
        R[L[c]], L[R[c]] = R[c], L[c]
        k = 1
        i = D[c]
        while i != c:
            j = R[i]
            while j != i:
                D[U[j]], U[D[j]] = D[j], U[j]
                S[C[j]] -= 1
                k += 1
                j = R[j]
            i = D[i]
        return k

    def uncover(c: int) -> None:
        i = U[c]
        while i != c:
            j = L[i]
            while j != i:
                S[C[j]] += 1
                D[U[j]] = j
                U[D[j]] = j
                j = L[j]
            i = U[i]
        R[L[c]] = c
        L[R[c]] = c

    def choose() -> int:
        c = int(R[ROOT])
        if heuristic == FIRST:
            return c
        best, j = c, int(R[c])
        while j != ROOT:
            if S[j] < S[best]:
                best = j
            j = int(R[j])
        return best

    def search(level: int) -> Iterator[Step]:
        if R[ROOT] == ROOT:
            yield Step("solution", level, options=tuple(int(dl.option_of[x]) for x in chosen))
            return
        c = choose()
        yield Step("choose", level, name(c), size=int(S[c]))
        yield Step("cover", level, name(c), updates=cover(c))
        r = int(D[c])
        while r != c:
            chosen.append(r)
            yield Step("try", level, name(c), option=int(dl.option_of[r]))
            j = int(R[r])
            while j != r:
                yield Step("cover", level, name(C[j]), updates=cover(int(C[j])))
                j = int(R[j])
            yield from search(level + 1)
            j = int(L[r])
            while j != r:
                uncover(int(C[j]))
                yield Step("uncover", level, name(C[j]))
                j = int(L[j])
            chosen.pop()
            r = int(D[r])
        uncover(c)
        yield Step("uncover", level, name(c))

    yield from search(0)


def totals(steps: Iterable[Step]) -> tuple[int, int, int]:
    """(solutions, nodes, updates) of a complete trace, counted as Knuth counts them."""
    solutions = nodes = updates = 0
    nodes = 1
    for step in steps:
        if step.action == "solution":
            solutions += 1
        elif step.action == "try":
            nodes += 1
        elif step.action == "cover":
            assert step.updates is not None              # a cover counts its updates
            updates += step.updates
    return solutions, nodes, updates
