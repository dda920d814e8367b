"""Exact cover: Knuth's Algorithm X on dancing links (:mod:`.algorithm_x`), his Algorithm M
with multiplicities (:mod:`.algorithm_m`), the links themselves (:mod:`.dancing_links`), Sudoku
as an exact cover problem (:mod:`.sudoku_cover`), the ``dlx`` entrant (:mod:`.dlx`), many
puzzles in one call (:mod:`.batch`), threads over first choices (:mod:`.threads`), and the
search's step log (:mod:`.dance_trace`) and level profile (:mod:`.search_profile`)."""
