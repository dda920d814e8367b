"""Bit sets: the ``bitset`` entrant (:mod:`.solver`: candidates as bit masks, constraint
propagation and branching; its kernels in :mod:`solvers.rules.bitsets`) and many 9x9 puzzles in
one call (:mod:`.batch`)."""
