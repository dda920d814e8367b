"""The rules core: every solver, encoder and generator takes Sudoku's rules from here.

* :mod:`solvers.rules.geometry` -- units, peers, boxes, unit tables (any n);
* :mod:`solvers.rules.checks` -- CanPlace, candidates, conflicts, IsSolved;
* :mod:`solvers.rules.propagation` -- the one compiled, incremental
  naked + hidden singles kernel (assign, eliminate, propagate).

``from solvers import rules`` then ``rules.is_solved(grid)`` etc.
"""

from solvers.rules.checks import (
                                  UNIT_KINDS,
                                  Conflict,
                                  are_solutions_of,
                                  are_solved,
                                  can_place,
                                  can_place_cells,
                                  candidate_table,
                                  cell_candidates,
                                  conflicts,
                                  is_consistent,
                                  is_solution_of,
                                  is_solved,
                                  keeps_clues,
                                  unit_value_counts,
)
from solvers.rules.geometry import (
                                  Units,
                                  box_of,
                                  pattern_solution,
                                  peers_of,
                                  unit_tables,
)
from solvers.rules.propagation import Candidates, Propagation, propagate

__all__ = ["UNIT_KINDS", "Candidates", "Conflict", "Propagation", "Units", "are_solutions_of",
           "are_solved", "box_of", "can_place",
           "can_place_cells", "candidate_table", "cell_candidates", "conflicts", "is_consistent",
           "is_solution_of", "is_solved", "keeps_clues", "pattern_solution", "peers_of", "propagate",
           "unit_tables", "unit_value_counts"]
