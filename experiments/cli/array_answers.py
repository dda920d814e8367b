"""``race solve`` and ``race count`` on a one-line file of 9x9 puzzles with the bit-set entrant:
whole arrays from the file to the printed lines.

The file is read and parsed into one (P, 9, 9) array (:func:`formats.one_line_array.puzzles_9x9`,
else :func:`formats.grid_text.parse_one_line_many`),
solved or counted in one call of the C kernel, every solution checked at once (IsSolved and the
clues: :func:`solvers.bitsets.batch.answer_array`), and printed as one block of text; no Python
object is made per puzzle. What is printed, and the exit status, are those of the general path
(:mod:`experiments.cli.solve`): a line per puzzle, an empty one where a puzzle has no solution
("puzzle i: no solution" on stderr, exit 1); a count per line, "(limit reached)" where the limit
stopped it. A claim of no solution is confirmed by a second method (DLX) before it is printed;
a refuted claim or a grid that fails the check is an error (exit 2), after the lines before it.

Used by the click commands and by the plain start of :mod:`experiments.cli.entry` (no click).
"""

from __future__ import annotations

import sys

from formats.errors import RaceError


def answer_file(command: str, source: str, spec: str, limit: int | None = 1) -> int | None:
    """Answer ``race solve`` (``command`` "solve") or ``race count`` ("count", up to ``limit``
    solutions, None = all) for the puzzles of the file ``source`` with the entrant ``spec``:
    writes the answers on stdout (and what stderr says) and returns the exit status. Returns
    None, having written nothing, when this path does not serve: ``spec`` is not the bit-set
    entrant without parameters, or the file is not a one-line file of 9x9 puzzles.
    Raises RaceError for a file that cannot be read or parsed, and after writing the lines
    before it, for an answer that fails its check."""
    from solvers.bitsets import batch as bitset_batch
    if spec.strip() not in bitset_batch.SPECS or source == "-":
        return None                         # stdin is read once: the general path reads it
    from formats.one_line_array import puzzles_9x9
    from formats.source import decode_utf8, read_source
    data, name = read_source(source, binary=True, what="a puzzle file")
    puzzles = puzzles_9x9(data)
    if puzzles is None:                     # anything but the plainest file: the general reader
        from formats import grid_text
        many = grid_text.parse_one_line_many(decode_utf8(data, name), name)
        if many is None:
            return None
        n, puzzles = many
    else:
        n = 3
    if not bitset_batch.handles(spec, n):
        return None
    answer = bitset_batch.answer_array(puzzles, limit if command == "count" else 1)
    total = len(puzzles)
    wrong = answer.wrong.nonzero()[0]
    stop = int(wrong[0]) if len(wrong) else total
    none = (answer.counts[:stop] == 0).nonzero()[0]
    where = (lambda i: f"puzzle {i + 1}: ") if total > 1 else (lambda i: "")
    _confirm_no_solution(puzzles, none, where, spec)
    out = sys.stdout.buffer
    if command == "solve":
        for i in none.tolist():
            sys.stderr.write(f"{where(i)}no solution\n")
        sys.stderr.flush()
        if total > 1 or answer.verified[:stop].any():     # one puzzle: no empty line
            out.write(bitset_batch.one_line_text(answer.solutions[:stop], answer.verified[:stop]))
    else:
        reached = " (limit reached)"
        out.write("".join(f"{c}{reached if limit and c >= limit else ''}\n"
                          for c in answer.counts[:stop].tolist()).encode())
    if stop < total:
        out.flush()
        raise RaceError(f"{where(stop)}solver {spec.strip()} returned a grid that is not a solution")
    return 1 if command == "solve" and len(none) else 0


def _confirm_no_solution(puzzles, none, where, spec: str) -> None:
    """Each claim of no solution (``none``: indices into ``puzzles``) checked by DLX, counting
    up to one; RaceError naming the first puzzle DLX finds a solution for."""
    if not len(none):
        return
    from solvers.exact_cover.batch import dlx_many
    counts, _, _, _ = dlx_many(puzzles[none], 3, limit=1)
    found = counts.nonzero()[0]
    if len(found):
        raise RaceError(f"{where(int(none[found[0]]))}solver {spec.strip()} said no solution, "
                        "but dlx found one")
