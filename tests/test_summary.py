"""The end-of-run summary text, exactly (survivors of the mutation pass)."""

from __future__ import annotations

from experiments.analysis import censored_stats
from experiments.analysis.summary import summary_text
from tests.test_analysis import run, write_campaign

HEAD = ("entrant                     n   solved     median                95% CI                    IQR"
        "  timeout   memout    error  unknown  skipped  WRONG")
ZEROS = "        0" * 5 + "      0"
WRONG_HEAD = ("!!! WRONG ANSWERS: {} cell(s) gave a wrong answer (a grid that is NOT a solution, or a "
              "false claim); none counts as solved !!!")


def two_families(tmp_path) -> censored_stats.Campaign:
    rows = [run("a", n, f"u{n}-{k}", "solved", t, family="unique") for n, t in ((2, 0.2), (3, 2.0))
            for k in range(3)]
    rows += [run("b", 2, f"u2-{k}", "solved", 0.5, family="unique") for k in range(2)]
    rows += [run("b", 2, "u2-2", "unsat", 0.1, family="unique")]
    rows += [run("b", 3, f"u3-{k}", s, 1.0, family="unique", message="not a solution")
             for k, s in enumerate(("timeout", "memout", "wrong"))]
    rows += [run("a", 2, f"h{k}", "skipped", None, family="hard") for k in range(2)]
    rows += [run("b", 2, f"h{k}", s, 0.3, family="hard") for k, s in enumerate(("error", "unknown", "skipped"))]
    return censored_stats.load(write_campaign(tmp_path / "s", rows, {"entrants": ["a", "b"]}))


def test_summary_text_of_two_families_exactly(tmp_path):
    # b, n=2: its unsat claim on u2-2 is refuted by a's verified grid (wrong, censored): 0.5,
    # 0.5, inf -> median 0.5, quartiles 0.5 and inf; a resample draws two or three inf with
    # probability 7/27 > 2.5%, so the interval is [0.5, > 10 s]. a's medians are
    # 0.2 s and 2 s on every resample: growth x10, interval [10, 10]. b, n=3: no answer.
    text = summary_text(two_families(tmp_path))
    assert text.split("\n") == [
        HEAD, "-" * len(HEAD),
        "[unique puzzles]",
        "a                           2      3/3     200 ms      [200 ms, 200 ms]       200 ms .. 200 ms" + ZEROS,
        "a                           3      3/3        2 s            [2 s, 2 s]             2 s .. 2 s" + ZEROS,
        "b                           2      2/3     500 ms      [500 ms, > 10 s]       500 ms .. > 10 s"
        "        0        0        0        0        0      1",
        "b                           3      0/3     > 10 s      [> 10 s, > 10 s]       > 10 s .. > 10 s"
        "        1        1        0        0        0      1",
        # the VBS: per instance the best answered time (b's refuted unsat answers nothing)
        "virtual best (VBS)          2      3/3     200 ms      [200 ms, 200 ms]       200 ms .. 200 ms",
        "virtual best (VBS)          3      3/3        2 s            [2 s, 2 s]             2 s .. 2 s",
        "[hard puzzles]",
        "a                           2        -    skipped" + " " * 45 + "        0        0        0        0        2      0",
        "b                           2      0/3     > 10 s      [> 10 s, > 10 s]       > 10 s .. > 10 s"
        "        0        0        1        1        1      0",        # one skipped of three: a row
        "virtual best (VBS)          2      0/3     > 10 s      [> 10 s, > 10 s]       > 10 s .. > 10 s",
        "skipped: a skipped run (never raced: the entrant was censored at a smaller n) counts as "
        "unsolved in solved and PAR-2; an n whose every run was skipped reads skipped",
        "",
        "growth of the median time per step of n (fit over the n where the median is measured) "
        "[95% bootstrap CI]:",
        "  unique: a                          x10       [10, 10]             n = 2..3",
        "",
        "who wins where: instances on which each entrant gave the fastest verified answer (the virtual "
        "best solver, VBS, takes it), and the VBS's median speed-up over the best single entrant:",
        "family      n            a            b  nobody  best single  VBS speed-up [95% CI]",
        "-" * 83,
        "unique      2            3            0       0  a            x1 [1, 1]",
        "unique      3            3            0       0  a            x1 [1, 1]",
        "hard        2            0            0       3  -            n/a (all censored)",
        "",
        WRONG_HEAD.format(2),
        "!!!   b n=2 u2-2 repeat 0: claimed no solution, but a returned a verified solution of this "
        "instance",
        "!!!   b n=3 u3-2 repeat 0: not a solution"]


def test_summary_text_uses_the_table_it_is_given(tmp_path):
    campaign = two_families(tmp_path)
    table = censored_stats.summary(campaign)
    lines = summary_text(campaign, table[table["n"] == 2]).split("\n")
    assert [line.split()[:2] for line in lines[3:8]] == [["a", "2"], ["b", "2"], ["virtual", "best"],
                                                          ["[hard", "puzzles]"], ["a", "2"]]
    assert not any(line.startswith("growth") for line in lines)     # one n left: nothing to fit


def test_summary_text_of_one_family_lists_20_wrong_answers_and_refuted_claims(tmp_path):
    rows = [run("a", 2, f"i{k:02}", "solved", 1.0) for k in range(21)]
    rows += [run("a", 3, f"j{k}", s, 2.0) for k, s in enumerate(("solved", "solved", "timeout"))]
    rows += [run("b", 2, f"i{k:02}", "unsat", 0.5) for k in range(21)]
    rows += [run("b", 2, f"i{k:02}", "wrong", 0.5, repeat=1, message=f"bad {k}") for k in range(21)]
    lines = summary_text(censored_stats.load(write_campaign(tmp_path / "w", rows, {"entrants": ["a", "b"]}))
                         ).split("\n")
    # a, n=3: 2, 2, censored: median 2 s, upper quartile censored, and a resample draws two or
    # three censored times with probability 7/27: the growth interval is unbounded above
    assert lines[:16] == [
        HEAD, "-" * len(HEAD),
        "a                           2    21/21        1 s            [1 s, 1 s]             1 s .. 1 s" + ZEROS,
        "a                           3      2/3        2 s         [2 s, > 10 s]          2 s .. > 10 s"
        "        1        0        0        0        0      0",
        "b                           2     0/21     > 10 s      [> 10 s, > 10 s]       > 10 s .. > 10 s"
        "        0        0        0        0        0     42",
        "virtual best (VBS)          2    21/21        1 s            [1 s, 1 s]             1 s .. 1 s",
        "virtual best (VBS)          3      2/3        2 s         [2 s, > 10 s]          2 s .. > 10 s",
        "",
        "growth of the median time per step of n (fit over the n where the median is measured) "
        "[95% bootstrap CI]:",
        "  a                          x2        [2, unbounded]       n = 2..3",
        "",
        "who wins where: instances on which each entrant gave the fastest verified answer (the virtual "
        "best solver, VBS, takes it), and the VBS's median speed-up over the best single entrant:",
        "  n            a            b  nobody  best single  VBS speed-up [95% CI]",
        "-" * 73,
        "  2           21            0       0  a            x1 [1, 1]",
        "  3            2            0       1  a            x1 [1, 1]"]
    # b's 21 unsat claims are refuted by a's verified grids: wrong, listed first (file order)
    refuted = "claimed no solution, but a returned a verified solution of this instance"
    assert lines[16:19] == ["", WRONG_HEAD.format(42), f"!!!   b n=2 i00 repeat 0: {refuted}"]
    assert lines[19:38] == [f"!!!   b n=2 i{k:02} repeat 0: {refuted}" for k in range(1, 20)]
    assert lines[38:] == ["!!!   ... and 22 more (status wrong in runs.csv)"]


def test_summary_text_lists_exactly_20_wrong_answers_without_a_remainder(tmp_path):
    rows = [run("b", 2, f"i{k:02}", "wrong", 0.5, message="bad") for k in range(20)]
    lines = summary_text(censored_stats.load(write_campaign(tmp_path / "w", rows))).split("\n")
    assert lines[3:5] == ["", WRONG_HEAD.format(20)]
    assert lines[5:] == [f"!!!   b n=2 i{k:02} repeat 0: bad" for k in range(20)]


def test_an_unsat_claim_nobody_contradicts_stays_an_answer(tmp_path):
    rows = [run("a", 2, "i1", "unsat", 0.5), run("b", 2, "i1", "timeout", None), run("b", 2, "i2", "solved", 1.0)]
    text = summary_text(censored_stats.load(write_campaign(tmp_path / "u", rows)))
    assert "WRONG" not in text.split("\n", 1)[1]


def test_a_refuted_claim_is_settled_when_no_row_has_a_message(tmp_path):
    """A campaign whose message column is blank throughout (read back as numbers) still has its
    refuted "no solution" turned into a wrong answer (it was a pandas TypeError)."""
    rows = [run("a", 2, "i1", "solved", 0.5), run("b", 2, "i1", "unsat", 0.1)]
    campaign = censored_stats.load(write_campaign(tmp_path / "m", rows))
    b = campaign.runs[campaign.runs["entrant"] == "b"].iloc[0]
    assert b["status"] == "wrong" and "a returned a verified solution" in b["message"]


def test_an_unruled_no_solution_claim_is_checked_against_its_instance_file(tmp_path):
    """A campaign recorded before the referee (or edited): an "unsat" row with no referee
    verdict, on an instance whose file records its solution, is wrong when read back."""
    import hashlib

    from formats import grid_text
    from generators import puzzle_set
    grid, meta = puzzle_set.make("unique", 2, 0, 0)
    data = grid_text.format_native(grid, meta).encode()
    (tmp_path / "instances" / "unique-n2-s0").mkdir(parents=True)
    (tmp_path / "instances" / "unique-n2-s0" / "u0.sudoku").write_bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    rows = [run("liar", 2, "u0.sudoku", "unsat", 0.1, instance_sha256=sha),
            run("ruled", 2, "u0.sudoku", "unsat", 0.1, instance_sha256=sha, referee="as the run ruled")]
    campaign = censored_stats.load(write_campaign(tmp_path / "c", rows))
    status = dict(zip(campaign.runs["entrant"], campaign.runs["status"]))
    assert status == {"liar": "wrong", "ruled": "unsat"}
    message = campaign.runs.loc[campaign.runs["entrant"] == "liar", "message"].iloc[0]
    assert "claimed no solution, but the instance records its solution" in message
    other = write_campaign(tmp_path / "d", [run("liar", 2, "u0.sudoku", "unsat", 0.1,
                                                instance_sha256="another-file")])
    assert censored_stats.load(other).runs["status"].tolist() == ["unsat"]      # not that file
