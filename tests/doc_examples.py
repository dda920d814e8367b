"""The shell examples of README.md and docs/: how they are found, run and checked.

Every fenced block whose language is ``console`` or ``sh`` (also ``bash``, ``shell``) is an
example, and so is every command in the ``Command`` column of docs/TASKS.md:

* ``console``: each line starting with ``$ `` is a command (a line ending with ``\\``
  continues it); the lines after it, up to the next ``$ ``, are its expected output, stdout
  and stderr together as a terminal shows them. Output is compared line by line, trailing
  blanks ignored, with one ellipsis rule: a line that is only ``...`` stands for any number
  of lines (none included), and ``...`` inside a line for any text on that line.
* ``sh``: each line is a command (``#`` lines are comments); its output is not shown, so
  only its success is checked.
* TASKS.md: in a row's Command cell, each code span starting with a command word
  (:data:`COMMAND_WORDS`) is a command; a code span after the word "prints" (and each one
  joined to it by "/", "," "and" or "then") is text its output must contain, and "exit N"
  after it is the exit status it must end with.

A command must exit 0 unless its example says otherwise (above, or ``; echo "exit $?"``
in the command). An example that cannot run where the tests run is marked just before
its block with ``<!-- not-run: REASON -->``; its commands are still parsed, never run.

The commands of one document run in order, in one temporary directory holding a copy of
what they read (:data:`FIXTURES`), so that a file one command writes is there for the next
and nothing is written into the repository.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the documents whose examples are run
DOCUMENTS: tuple[Path, ...] = (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")))
#: copied into each document's working directory (relative to the repository)
FIXTURES: tuple[str, ...] = ("tests/data", *sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "results").glob("reference-*") if p.is_dir()))
#: the languages of fenced blocks that are run
SHELL_LANGUAGES = frozenset({"console", "sh", "bash", "shell"})
#: what starts a command in a TASKS.md cell
COMMAND_WORDS = ("race ", "printf ", "head ", "echo ")
#: the mark of an example that is not run, with its reason
NOT_RUN = re.compile(r"<!--\s*not-run:\s*(.*?)\s*-->")
#: a command's time limit (s): an example is small by design
COMMAND_TIMEOUT_S = 180

_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)")
_SPAN = re.compile(r"`([^`]+)`")


@dataclass
class Step:
    """One command, its expected output (None: not shown) and exit status, and its line."""
    command: str
    line: int
    expected: str | None = None
    exit_status: int = 0
    contains: list[str] = field(default_factory=list)


@dataclass
class Example:
    """The commands of one block (or one TASKS.md row) of ``path``, from ``line``."""
    path: Path
    line: int
    language: str
    steps: list[Step]
    not_run: str | None = None

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def fenced_blocks(text: str) -> list[tuple[int, str, list[str], str | None]]:
    """Every fenced block of a Markdown text: (line of the fence, language, the lines
    inside with the fence's indentation removed, the not-run reason marked before it)."""
    lines = text.splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = len(m.group("indent")), m.group("fence"), m.group("lang")
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        i += 1
        before = start - 1
        while before >= 0 and not lines[before].strip():
            before -= 1
        mark = NOT_RUN.search(lines[before]) if before >= 0 else None
        blocks.append((start + 1, lang, body, mark.group(1) if mark else None))
    return blocks


_HEREDOC = re.compile(r"""<<-?\s*(['"]?)(\w+)\1""")


def _commands(body: list[str], first_line: int, console: bool) -> list[Step]:
    """The steps of a block: its commands (a line ending with ``\\`` continues one, a
    here-document's lines belong to it) and, in a console block, the output after each."""
    steps: list[Step] = []
    i = 0
    while i < len(body):
        line = body[i]
        number = first_line + 1 + i
        i += 1
        if console and not line.startswith("$ "):
            if steps:
                steps[-1].expected = line if steps[-1].expected is None \
                    else f"{steps[-1].expected}\n{line}"
            continue
        text = line[2:] if console else line
        if not console and (not text.strip() or text.lstrip().startswith("#")):
            continue
        lines = [text]
        while lines[-1].rstrip().endswith("\\") and i < len(body):
            lines.append(body[i])
            i += 1
        heredoc = _HEREDOC.search(lines[0])
        if heredoc:
            while i < len(body):
                lines.append(body[i])
                i += 1
                if lines[-1].strip() == heredoc.group(2):
                    break
        steps.append(Step("\n".join(lines), number))
    for step in steps if console else ():
        step.expected = "" if step.expected is None else step.expected
    return steps


def examples(path: Path) -> list[Example]:
    """The examples of one document (see the module docstring)."""
    text = path.read_text(encoding="utf-8")
    found = []
    for line, lang, body, not_run in fenced_blocks(text):
        if lang in SHELL_LANGUAGES:
            found.append(Example(path, line, lang, _commands(body, line, lang == "console"),
                                 not_run))
    if path.name == "TASKS.md":
        found.extend(table_examples(path, text))
    return found


def table_examples(path: Path, text: str) -> list[Example]:
    """The commands of the ``Command`` column of a Markdown table (docs/TASKS.md)."""
    found = []
    column = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith("|"):
            column = None
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if column is None:
            column = cells.index("Command") if "Command" in cells else -1
            continue
        if column < 0 or column >= len(cells) or set(cells[column]) <= set("-: "):
            continue
        steps = _cell_steps(cells[column].replace("\\|", "|"), number)
        if steps:
            found.append(Example(path, number, "table", steps))
    return found


def _cell_steps(cell: str, number: int) -> list[Step]:
    steps: list[Step] = []
    spans = list(_SPAN.finditer(cell))
    for k, span in enumerate(spans):
        code = span.group(1)
        if code.startswith(COMMAND_WORDS):
            steps.append(Step(code, number))
            following = cell[span.end():spans[k + 1].start() if k + 1 < len(spans) else len(cell)]
            status = re.search(r"\bexit (\d+)", following)
            if status:
                steps[-1].exit_status = int(status.group(1))
        elif steps and (re.search(r"\bprints\s*$", cell[:span.start()]) or (
                steps[-1].contains and k > 0 and spans[k - 1].group(1) == steps[-1].contains[-1]
                and re.fullmatch(r"[\s,/]*(?:and|then)?[\s,/]*", cell[spans[k - 1].end():span.start()]))):
            steps[-1].contains.append(code)
            following = cell[span.end():spans[k + 1].start() if k + 1 < len(spans) else len(cell)]
            status = re.search(r"\bexit (\d+)", following)
            if status:
                steps[-1].exit_status = int(status.group(1))
    return steps


def screen(raw: str) -> str:
    """What a terminal shows of ``raw`` output: each line's text after its last carriage
    return (a progress bar redraws its line), trailing blanks and blank last lines gone."""
    lines = [line.rsplit("\r", 1)[-1].rstrip() for line in raw.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def output_pattern(expected: str) -> re.Pattern[str]:
    """The regular expression of an expected output under the ellipsis rule."""
    parts = []
    for line in screen(expected).split("\n") if expected.strip() else []:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(p) for p in line.split("...")) + r"[ \t]*\n")
    return re.compile("".join(parts))


def matches(expected: str, actual: str) -> bool:
    """True when ``actual`` output (as :func:`screen` shows it) is what ``expected`` shows."""
    shown = screen(actual)
    return output_pattern(expected).fullmatch(shown + "\n" if shown else "") is not None


def workdir(base: Path) -> Path:
    """A fresh working directory under ``base`` with a copy of :data:`FIXTURES`."""
    base.mkdir(parents=True, exist_ok=True)
    for name in FIXTURES:
        shutil.copytree(ROOT / name, base / name)
    return base


def environment(base: Path) -> dict[str, str]:
    """The environment of the examples: this checkout's ``race`` first on PATH, output
    unbuffered (stdout and stderr interleave as on a terminal), a fixed terminal width."""
    env = dict(os.environ)
    bindir = Path(sys.executable).parent
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    env.update({"PYTHONUNBUFFERED": "1", "COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb",
                "TMPDIR": str(base)})
    return env


@dataclass
class Outcome:
    """What running one step gave, and what was wrong with it (empty: nothing)."""
    example: Example
    step: Step
    status: int
    output: str
    problems: list[str]

    def report(self) -> str:
        return (f"{self.example.where} (line {self.step.line}): $ {self.step.command}\n  "
                + "\n  ".join(self.problems) + "\n--- output ---\n" + screen(self.output))


def run_step(example: Example, step: Step, cwd: Path, env: dict[str, str]) -> Outcome:
    """Run one command with bash, as a reader would type it (the exit status of a pipeline is
    its last command's), and check it."""
    try:
        done = subprocess.run(["bash", "-c", step.command], cwd=cwd, env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=COMMAND_TIMEOUT_S)
        status, output = done.returncode, done.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as exc:
        status = -1
        output = (exc.stdout or b"").decode("utf-8", "replace")
    problems = []
    if status != step.exit_status:
        problems.append(f"exit status {status}, expected {step.exit_status}")
    if step.expected is not None and not matches(step.expected, output):
        problems.append("output differs from the example's:\n" + step.expected)
    for text in step.contains:
        if text not in screen(output):
            problems.append(f"output lacks {text!r}")
    return Outcome(example, step, status, output, problems)


def run_document(path: Path, base: Path) -> list[Outcome]:
    """Run every example of ``path`` that is not marked not-run, in order, in a fresh
    working directory under ``base``; the outcome of every step."""
    cwd = workdir(base)
    env = environment(cwd)
    outcomes: list[Outcome] = []
    for example in examples(path):
        if example.not_run is None:
            outcomes.extend(run_step(example, step, cwd, env) for step in example.steps)
    return outcomes
