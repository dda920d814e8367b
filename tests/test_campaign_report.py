"""`race report CAMPAIGN`: the PDF of the campaign the user raced, for four shapes of campaign
(the README's first race, `make race`'s default entrants and families made small, an outside
program with cpsat, an imported instance set of one family). Each PDF is read back with
pdftotext: no "n/a", no "??", no empty table, its title names the methods the campaign raced
(solvers/methods.py), and every number it quotes is one `race export` prints for the same
campaign. Each campaign is raced and reported once per session."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from solvers import methods
from tests.test_report import race_command, require_latex

ROOT = Path(__file__).resolve().parents[1]
PROGRAM = ROOT / "tests" / "outside_solvers" / "backtrack_solver.py"

#: shape -> the `race run` arguments (after --out), and an instance set to import first
SHAPES = {
    "first-race": ["--n", "2..3", "--solvers", "dlx,sat", "--instances", "3", "--timeout", "5", "-j", "1"],
    "make-race": ["--n", "2..5", "--instances", "1", "--timeout", "1", "-j", "1"],
    "cmd-cpsat": ["--n", "2..3", "--family", "unique", "--solvers", f"cpsat,cmd:path={PROGRAM}",
                  "--instances", "2", "--timeout", "5", "-j", "1"],
    "imported": ["--instances", "{collection}", "--solvers", "dlx,sat", "--timeout", "5", "-j", "1"],
}


def _run(*args: str, timeout: float = 600) -> str:
    done = subprocess.run([*race_command(), *args], capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"race {' '.join(args)}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done.stdout


def _pdfinfo(field: str, info: str) -> str:
    """The value pdfinfo printed for ``field``."""
    found = re.search(rf"^{field}:\s+(.*)$", info, flags=re.M)
    assert found is not None, f"pdfinfo printed no {field}"
    return found.group(1).strip()


@pytest.fixture(scope="session")
def reports(tmp_path_factory) -> dict[str, dict]:
    """Per shape: the campaign directory, its PDF's text (pdftotext, plain and -layout), its
    page count and title, and `race export -f markdown`'s rows."""
    require_latex()
    root = tmp_path_factory.mktemp("campaign-reports")
    collection = root / "collection"
    _run("import", str(ROOT / "tests" / "data" / "sample_collection.txt"), "-o", str(collection))
    out = {}
    for shape, args in SHAPES.items():
        args = [a.replace("{collection}", str(collection)) for a in args]
        _run("run", "--out", str(root / shape), "--no-report", *args)
        campaign = next(p.parent for p in (root / shape).glob("*/meta.json"))
        printed = _run("report", str(campaign), "--report-dir", str(root / f"{shape}-report"))
        pdf = root / f"{shape}-report" / "report.pdf"
        assert f"built {pdf}" in printed
        info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
        out[shape] = {
            "campaign": campaign,
            "text": _pdftotext(pdf),
            "layout": _pdftotext(pdf, "-layout"),
            "pages": int(_pdfinfo("Pages", info)),
            "title": _pdfinfo("Title", info),
            "subject": _pdfinfo("Subject", info),
            "author": _pdfinfo("Author", info),
            "export": _export_rows(_run("export", str(campaign), "-f", "markdown")),
            "tables": sorted(p for p in (root / f"{shape}-report" / "generated").glob("table_*.tex")
                             if p.name != "table_frontier.tex"),
            "sentences": _without_figures(root / f"{shape}-report"),
        }
    return out


def _without_figures(folder: Path) -> str:
    """The report's text without the figures' own (tick labels, legends): report.tex built again
    with every figure drawn as an empty box. The figures stand where they are cited, among the
    sentences."""
    source = (folder / "report.tex").read_text()
    blank = "\\renewcommand{\\includegraphics}[2][]{\\fbox{figure}}\n\\begin{document}"
    (folder / "sentences.tex").write_text(source.replace("\\begin{document}", blank, 1))
    subprocess.run(["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", "sentences.tex"],
                   cwd=folder, capture_output=True, check=True, timeout=300)
    return _pdftotext(folder / "sentences.pdf")


def _pdftotext(pdf: Path, *options: str) -> str:
    text = subprocess.run(["pdftotext", *options, str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    return text.replace("\u03bc", "\u00b5").replace("\u2019", "'")      # the TeX mu is the micro sign


def _export_rows(markdown: str) -> list[dict[str, str]]:
    lines = [line for line in markdown.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(header, (c.strip() for c in line.strip("|").split("|")))) for line in lines[2:]]


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _bare(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.fixture(params=list(SHAPES))
def report(request, reports) -> dict:
    return reports[request.param] | {"shape": request.param}


def test_no_placeholder_no_unresolved_reference_no_empty_table(report):
    flat = _flat(report["text"])
    assert "n/a" not in flat and "nan" not in flat.split() and "??" not in flat
    assert report["tables"], "no summary table"
    for table in report["tables"]:
        rows = [line for line in table.read_text().splitlines() if line.endswith(r"\\")]
        assert len(rows) >= 2, f"{table.name}: a table without a row"            # header + a row
    assert "Results" in flat and "The campaign" in flat


def test_the_title_names_the_methods_the_campaign_raced(report):
    expected = {"first-race": "dancing links and SAT",
                "make-race": "backtracking, dancing links, bit sets and SAT",
                "cmd-cpsat": "CP-SAT and outside programs",
                "imported": "dancing links and SAT"}[report["shape"]]
    assert report["title"] == f"Sudoku solvers raced: {expected}"
    assert all(m.name in report["title"] for m in methods.of_entrants(_entrants(report)))
    assert report["title"] in _flat(report["text"])
    # the PDF's metadata: the title above, the subtitle as its subject, the project as author
    assert report["subject"] == f"campaign {report['campaign'].name}"
    assert report["subject"] in _flat(report["text"])
    assert report["author"] == "sudoku-race"


def _entrants(report) -> list[str]:
    return list(dict.fromkeys(row["entrant"] for row in report["export"]))


def test_every_summary_row_of_the_export_is_in_the_pdf(report):
    """The PDF's tables hold `race export`'s summary, row by row (a skipped cell says so)."""
    layout = [_bare(line) for line in report["layout"].splitlines()]
    for row in report["export"]:
        cells = [row["entrant"], row["n"], row["solved"], row["median"], row["IQR"], row["PAR-2"], row["wrong"]]
        numbers = _bare("".join(cells[1:]))
        skipped = _bare(row["n"] + "skipped (not run)")
        start = _bare(row["entrant"])[:8]        # a long name wraps inside its column
        assert any(line.startswith(start) and (numbers in line or skipped in line) for line in layout), \
            f"row missing: {cells}"


TIME = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?) ?(µs|ms|s)\b")


def test_every_time_the_text_quotes_is_one_the_export_prints(report):
    """Times in the sentences and tables: each one of export's medians, quartiles or PAR-2 values, or
    the campaign's limit."""
    known = set()
    for row in report["export"]:
        for key in ("median", "IQR", "PAR-2"):
            known |= {_bare(f"{v} {u}") for v, u in TIME.findall(row[key])}
    sentences = report["sentences"]                         # the figures' own tick labels aside
    limit = re.search(r"limit of (\d+(?:\.\d+)? s)", _flat(sentences)).group(1)
    known.add(_bare(limit))
    quoted = {_bare(f"{v} {u}") for v, u in TIME.findall(sentences)}
    assert quoted, "no time quoted"
    assert quoted <= known, sorted(quoted - known)


def _sections(report) -> dict[str, str]:
    """The text of each family's subsection, by family name (an entrant's name that wraps at a
    line end made whole again)."""
    flat = _flat(report["sentences"])
    for entrant in _entrants(report):
        wrapped = "".join(re.escape(c) + (r"\s?" if c in "/:=,+" else "") for c in entrant)
        flat = re.sub(wrapped, entrant, flat)
    # a heading, then its first sentence or its table (set under the heading, or at the top of the page)
    parts = re.split(r" (\S+) puzzles (?=\S+ answered |Table \d+: The \1 puzzles: )", flat)
    return dict(zip(parts[1::2], parts[2::2]))


def test_every_sentence_about_an_entrant_matches_the_export(report):
    """'X answered every puzzle at n = ...', '... then S of T at n = k', 'Its median time was A at
    n = a', 'the smallest median was X's (A), then Y's (B)': each checked against the export row."""
    rows = {(r["family"], r["entrant"], int(r["n"])): r for r in report["export"]}
    sections = _sections(report)
    assert set(sections) == {r["family"] for r in report["export"]}
    checked = 0
    # an entrant's sentences end where the next entrant's begin (a float LaTeX placed between
    # two paragraphs may stand in between, so not always after a full stop)
    starts = re.compile(r" (?=(?:{}) answered )".format("|".join(map(re.escape, _entrants(report)))))
    for family, text in sections.items():
        for sentence in starts.split(text):
            found = re.match(r"(\S+) answered (every puzzle at n = ([\d ,toand]+?))?(?:, then |\.|$)", sentence)
            if not found:
                continue
            entrant = found.group(1)
            if found.group(3):
                for n in _ns(found.group(3)):
                    solved, total = rows[(family, entrant, n)]["solved"].split("/")
                    assert solved == total, (family, entrant, n)
                    checked += 1
            then = re.search(r"then (\d+) of (\d+) at n = (\d+)", sentence)
            if then:
                assert rows[(family, entrant, int(then.group(3)))]["solved"] == f"{then.group(1)}/{then.group(2)}"
                checked += 1
            for value, n in re.findall(r"(\d+(?:\.\d+)? (?:µs|ms|s)) at n = (\d+)", sentence):
                assert rows[(family, entrant, int(n))]["median"] == value, (family, entrant, n)
                checked += 1
        for n, a, ta, b, tb in re.findall(r"At n = (\d+) the smallest median was (\S+)'s \(([^)]+)\), "
                                          r"then (\S+)'s \(([^)]+)\)", text):
            assert rows[(family, a, int(n))]["median"] == ta and rows[(family, b, int(n))]["median"] == tb
            timed = [r for r in report["export"] if r["family"] == family and r["n"] == n
                     and r["median"][:1].isdigit()]             # not censored, not skipped
            assert min(timed, key=lambda r: _seconds(r["median"]))["entrant"] == a
            checked += 1
    assert checked >= 4


def _ns(text: str) -> list[int]:
    text = text.strip()
    if " to " in text:
        low, high = text.split(" to ")
        return list(range(int(low), int(high) + 1))
    return [int(v) for v in re.split(r", | and ", text)]


def _seconds(text: str) -> float:
    value, unit = text.split()
    return float(value) * {"µs": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def test_the_campaign_paragraph_names_what_was_raced(report):
    flat = _flat(report["text"])
    entrants = _entrants(report)
    assert f"raced {len(entrants)} entrant" in flat
    for entrant in entrants:
        assert entrant in flat
    families = list(dict.fromkeys(r["family"] for r in report["export"]))
    assert f"on {len(families)} famil" in flat
    if report["shape"] == "imported":
        assert families == ["imported"] and "read from the instance set" in flat
    if report["shape"] == "make-race":
        assert entrants == ["backtracking", "dlx", "bitset", "sat", "kissat"] and families == ["unique", "hard"]
        assert "at n = 2 to 5" in flat


def test_a_skipped_cell_is_reported_as_skipped(reports):
    """make race's shape: backtracking misses at n = 4 on hard puzzles and is skipped at n = 5."""
    report = reports["make-race"]
    rows = {(r["family"], r["entrant"], r["n"]): r for r in report["export"]}
    hard4 = rows[("hard", "backtracking", "4")]
    if hard4["solved"].startswith("0/"):
        assert "At n = 5 its runs were skipped, not run" in _sections(report)["hard"]


def test_a_sentence_whose_number_is_missing_is_left_out(tmp_path):
    """Without LaTeX: on a campaign where backtracking answers nothing beyond n = 2 and is skipped,
    it gets no median beyond n = 2 and no 'went from ... to' sentence; a family where only one
    entrant has a median at some n gets no comparison at that n; nothing says n/a."""
    from experiments.analysis import censored_stats
    from experiments.report import campaign_report, campaign_text
    from tests.test_report import synthetic_campaign
    campaign = censored_stats.load(synthetic_campaign(tmp_path / "syn", families=("hard", "unique")))
    table = censored_stats.summary(campaign)
    said = campaign_text.entrant_sentences(table, "hard", "backtracking")
    assert said[0] == (r"\texttt{backtracking} answered every puzzle at $n=2$, then 0 of 3 at $n=3$ (2 of "
                       "those runs skipped, not run); 3 of 9 over the $n$ it ran.")
    medians = [s for s in said if "median" in s]
    assert len(medians) == 1 and "$n=2$" in medians[0] and "the only $n$ where it was below the limit" in medians[0]
    fastest = " ".join(campaign_text.fastest_sentences(table, "hard"))
    timed = table[(table["family"] == "hard") & table["median_s"].map(lambda v: v < float("inf"))]
    for n, group in timed.groupby("n"):
        assert (f"At $n={n}$" in fastest) == (len(group) >= 2)
    tex = campaign_report.document(campaign, table, ["runtime", "solved"])
    assert "n/a" not in tex and "nan" not in tex.split() and r"\infty" not in tex
    assert r"\title{Sudoku solvers raced: backtracking, dancing links and SAT" in tex
