"""The SAT entrant (work in progress): see solvers.sat_counting for IncrementalCounter."""

from solvers.sat_counting import IncrementalCounter  # noqa: F401  (API for the generators)
