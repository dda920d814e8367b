"""Every shell example of README.md and docs/ runs, and prints what it shows.

The rules (what an example is, the ellipsis rule, the not-run mark) are in
tests/doc_examples.py. The documents run two at a time, each in a temporary directory of
its own; the repository must be as it was afterwards.
"""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.doc_examples import (
    DOCUMENTS,
    ROOT,
    SHELL_LANGUAGES,
    Example,
    Step,
    examples,
    fenced_blocks,
    matches,
    run_document,
    run_step,
    screen,
    table_examples,
)

#: at most this many examples may be marked not-run (each says why in its mark)
MAX_NOT_RUN = 8
#: fenced blocks that are not shell examples must say what they are: one of these
OTHER_LANGUAGES = frozenset({"text", "csv", "json", "toml", "yaml", "python", "dimacs", "tex"})


def _repository_state() -> str:
    """What git sees changed or added in the checkout (ignored files left out)."""
    return subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout


@pytest.fixture(scope="module")
def outcomes(request, tmp_path_factory):
    """The outcomes of the documents the session runs (all of them unless a selection such
    as ``-k README`` leaves some out), two documents at a time, those with the most commands
    first; and the repository's state before and after."""
    selected = {item.callspec.params["path"] for item in request.session.items
                if item.path == request.path and getattr(item, "callspec", None)
                and "path" in item.callspec.params}
    paths = sorted(selected or DOCUMENTS,
                   key=lambda p: -sum(len(e.steps) for e in examples(p) if e.not_run is None))
    before = _repository_state()
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {path: pool.submit(run_document, path, tmp_path_factory.mktemp(path.stem))
                   for path in paths}
        done = {path: future.result() for path, future in futures.items()}
    return done, before, _repository_state()


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_example_runs_and_prints_what_it_shows(outcomes, path):
    failed = [outcome for outcome in outcomes[0][path] if outcome.problems]
    assert not failed, "\n\n".join(outcome.report() for outcome in failed)


def test_the_examples_leave_the_repository_as_it_was(outcomes):
    _, before, after = outcomes
    assert after == before, f"the examples changed the checkout:\n{after}"


def test_every_document_has_examples_and_few_are_not_run():
    found = {path: examples(path) for path in DOCUMENTS}
    marked = [example for path in DOCUMENTS for example in found[path] if example.not_run is not None]
    assert len(marked) <= MAX_NOT_RUN, "\n".join(f"{e.where}: {e.not_run}" for e in marked)
    assert all(len(example.not_run) >= 10 for example in marked), "a not-run mark says why"
    commands = sum(len(example.steps) for path in DOCUMENTS for example in found[path]
                   if example.not_run is None)
    assert commands >= 100
    tasks = [e for e in found[ROOT / "docs" / "TASKS.md"] if e.language == "table"]
    assert len(tasks) >= 15 and all(e.not_run is None for e in tasks)


def test_no_fenced_block_hides_a_shell_example():
    """A block is a shell example (run) or says which other language it holds; a block of
    another language never shows a ``$`` prompt."""
    for path in DOCUMENTS:
        for line, lang, body, _ in fenced_blocks(path.read_text(encoding="utf-8")):
            where = f"{path.relative_to(ROOT)}:{line}"
            assert lang in SHELL_LANGUAGES | OTHER_LANGUAGES, f"{where}: language {lang!r}"
            if lang not in SHELL_LANGUAGES:
                assert not any(text.startswith("$ ") for text in body), where


def test_the_ellipsis_rule():
    assert matches("a\nb", "a\nb\n")
    assert matches("a  \nb", "a\nb   ")                    # trailing blanks do not count
    assert not matches("a\nb", "a\nc")
    assert not matches("a", "a\nb")                        # every line must be accounted for
    assert matches("a\n...\nz", "a\nb\nc\nz")              # ... alone: any lines
    assert matches("a\n...\nz", "a\nz")                    # ... also none
    assert not matches("a\n...\nz", "a\nb\ny")
    assert matches("took ... s", "took 0.25 s")            # ... in a line: any text
    assert not matches("took ... s", "took 0.25 ms\n")
    assert not matches("took ... s", "took\n0.25 s")       # ... never spans lines
    assert matches("", "")
    assert not matches("", "something")
    assert screen("10%\r50%\r100% done\n") == "100% done"  # a progress bar as a terminal shows it


def test_a_wrong_example_fails(tmp_path):
    """The runner reports a wrong output, a wrong exit status and a missing text."""
    example = Example(ROOT / "README.md", 1, "console", [])
    env = {"PATH": "/usr/bin:/bin"}
    assert not run_step(example, Step("echo hi", 1, expected="hi"), tmp_path, env).problems
    assert run_step(example, Step("echo hi", 1, expected="ho"), tmp_path, env).problems
    assert run_step(example, Step("exit 3", 1), tmp_path, env).problems
    assert not run_step(example, Step("exit 3", 1, exit_status=3), tmp_path, env).problems
    assert run_step(example, Step("echo hi", 1, contains=["ho"]), tmp_path, env).problems


def test_the_documents_are_found():
    assert ROOT / "README.md" in DOCUMENTS and ROOT / "docs" / "TASKS.md" in DOCUMENTS
    assert all(path.suffix == ".md" for path in DOCUMENTS)


def test_how_examples_are_read(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("""
<!-- not-run: needs a cluster of its own -->
```sh
race run --executor dask
```

- a list item
    ```console
    $ cat > a.txt <<'EOF'
    $ not a command
    EOF
    $ race solve \\
        a.txt
    1 2

    3 4
    $ true
    ```

```text
$ shown, never run
```
""", encoding="utf-8")
    found = examples(page)
    assert [e.language for e in found] == ["sh", "console"]
    assert found[0].not_run == "needs a cluster of its own" and found[1].not_run is None
    heredoc, solve, true = found[1].steps
    assert heredoc.command == "cat > a.txt <<'EOF'\n$ not a command\nEOF" and heredoc.expected == ""
    assert solve.command == "race solve \\\n    a.txt" and solve.expected == "1 2\n\n3 4"
    assert true.expected == ""


def test_how_the_tasks_table_is_read():
    text = """| Task | Command |
|---|---|
| 1. x | `race check a` (prints `solved`); `printf 'x\\n' \\| race check -` prints `bad` / `worse`, exit 1; the `--show` option |
"""
    (row,) = table_examples(ROOT / "docs" / "TASKS.md", text)
    first, second = row.steps
    assert (first.command, first.contains, first.exit_status) == ("race check a", ["solved"], 0)
    assert second.command == "printf 'x\\n' | race check -"
    assert (second.contains, second.exit_status) == (["bad", "worse"], 1)


def test_following_the_readme_in_a_clone_leaves_no_untracked_file(outcomes, tmp_path_factory):
    """Every file or directory the README's examples write (run in a scratch directory, as in
    the checkout) is one .gitignore names: a newcomer's `git status` stays clean."""
    from tests.doc_examples import FIXTURES
    if ROOT / "README.md" not in outcomes[0]:
        pytest.skip("the README's examples were not run in this session")
    scratch = tmp_path_factory.getbasetemp() / "README0"
    copied = {Path(f).parts[0] for f in FIXTURES}
    written = sorted(p.name + "/" * p.is_dir() for p in scratch.iterdir() if p.name not in copied)
    assert "my-results/" in written and "first-race.html" in written
    ignored = subprocess.run(["git", "check-ignore", "--no-index", *written], cwd=ROOT,
                             capture_output=True, text=True).stdout.split()
    assert sorted(ignored) == written
