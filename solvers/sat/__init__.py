"""SAT: Sudoku as CNF (:mod:`.sudoku_cnf`, its at-most-one encodings :mod:`.at_most_one`), the
``sat`` entrant (:mod:`.solver`) on PySAT's solvers or an outside binary (:mod:`.backends`,
:mod:`.binaries`, :mod:`.programs`), clauses loaded in bulk (:mod:`.clause_loading`), solutions
counted by blocking clauses (:mod:`.counting`), and OR-Tools' CP-SAT (:mod:`.cpsat`)."""
