"""One vocabulary for every `race` command: a short flag, and a long option name, means one
thing wherever it appears (``-s`` is the solver, ``-o/--out`` what a command writes, ...).

Every command is loaded from the lazy group and each click option is read. The *meaning*
of an option is its parameter's name (click's ``dest``), with :data:`SYNONYMS` mapping the
names that say the same thing in different commands to one word. The tests fail when one
spelling (``-s``, ``--count``) stands for two meanings, or one meaning has two short flags.
"""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from experiments.cli.main import COMMANDS, main

#: parameter name -> meaning, where commands name the same thing differently
SYNONYMS = {
    "spec": "solver",               # solve/count: an entrant spec; animate: the search to draw
    "seed_text": "seed",            # generate reads the seed as text (its own number checks)
    "n_text": "n",                  # box sizes
    "instances_text": "instances",  # generate: puzzles to write; run/landscape: per family and n
    "family_labels": "family",      # run: --family (--kind its older name)
    "family_text": "family",        # compare: --family (--kind its older name)
    "kind": "family",               # generate: --kind, the family of instances to generate
    "holes_text": "holes",          # the fraction(s) of empty cells
    "fmt": "format",                # export, compare: the output format
    "markdown": "format",           # compare --markdown: the old spelling of --format markdown
    "count_only": "count",          # cover --count: print only the number of solutions
}


def meaning(option: click.Option) -> str:
    return SYNONYMS.get(option.name, option.name)


def options() -> list[tuple[str, click.Option]]:
    """(command name, option) of every option of every command of `race`."""
    ctx = click.Context(main)
    found = []
    for name in main.list_commands(ctx):
        command = main.get_command(ctx, name)
        assert command is not None, name
        found += [(name, p) for p in command.params if isinstance(p, click.Option)]
    return found


def test_every_command_is_walked():
    walked = {name for name, _ in options()}
    without_options = {"check", "solvers"}
    assert walked == set(COMMANDS) - without_options


def test_a_spelling_means_one_thing_in_every_command():
    seen: dict[str, dict[str, list[str]]] = {}
    for command, option in options():
        for spelling in [*option.opts, *option.secondary_opts]:
            seen.setdefault(spelling, {}).setdefault(meaning(option), []).append(command)
    clashes = {spelling: meanings for spelling, meanings in seen.items() if len(meanings) > 1}
    assert not clashes, "spellings with two meanings (meaning: commands): " + "; ".join(
        f"{s} -> {m}" for s, m in clashes.items())


def test_a_meaning_has_one_short_flag():
    shorts: dict[str, dict[str, list[str]]] = {}
    for command, option in options():
        for spelling in option.opts:
            if not spelling.startswith("--"):
                shorts.setdefault(meaning(option), {}).setdefault(spelling, []).append(command)
    twice = {m: flags for m, flags in shorts.items() if len(flags) > 1}
    assert not twice, f"meanings with two short flags: {twice}"


def test_what_a_command_writes_is_o_out_everywhere():
    writers = [(command, option) for command, option in options() if meaning(option) == "out"]
    assert {c for c, _ in writers} >= {"animate", "encode", "export", "generate", "import",
                                        "landscape", "merge", "plot", "portfolio", "report", "run"}
    for command, option in writers:
        assert {"-o", "--out"} <= set(option.opts), command


def test_the_short_flags_and_what_they_mean():
    shorts = {}
    for _, option in options():
        for spelling in option.opts:
            if not spelling.startswith("--"):
                shorts[spelling] = meaning(option)
    assert shorts["-s"] == "solver" and shorts["-o"] == "out" and shorts["-t"] == "timeout"
    assert shorts["-f"] == "format" and shorts["-l"] == "limit" and shorts["-j"] == "jobs"


def _help(*args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--help"])
    assert result.exit_code == 0, result.output
    return result.output


def test_help_lists_the_vocabulary():
    assert "-s," not in _help("generate") and "-s " not in _help("generate")
    for command in ("encode", "run", "landscape"):
        assert "-o, --out" in _help(command), command
    assert "--output" not in _help("encode")          # the old spelling works, unlisted
    assert "--markdown" not in _help("compare")
    assert "-f, --format [text|markdown|json]" in _help("compare")
    assert "-t, --timeout" in _help("solve") and "-t, --timeout" in _help("run")


@pytest.mark.parametrize("args, names", [
    (["generate", "--n", "2", "-s", "3"], "--seed"),
    (["generate", "--n", "2", "--count", "3"], "--instances"),
    (["animate", "queens:4", "--output", "{tmp}/q.gif"], "-o/--out"),
    (["export", "results/reference-n2-10", "-f", "csv", "-t", "summary"], "--table"),
])
def test_a_spelling_a_command_gave_up_is_a_one_line_error_naming_the_new_one(args, names, tmp_path):
    result = CliRunner().invoke(main, [a.replace("{tmp}", str(tmp_path)) for a in args])
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("race: error: No such option") and names in lines[0]


def test_encode_output_is_still_taken(tmp_path):
    puzzle = tmp_path / "p.txt"
    puzzle.write_text("1 . . .\n. . 1 .\n. 1 . .\n. . . 1\n")
    for spelling in ("-o", "--out", "--output"):
        target = tmp_path / f"f{spelling.strip('-')}.cnf"
        result = CliRunner().invoke(main, ["encode", str(puzzle), spelling, str(target)])
        assert result.exit_code == 0, result.output
        assert "\np cnf " in target.read_text()


def test_compare_markdown_is_format_markdown():
    reference = "results/reference-n2-10"
    old = CliRunner().invoke(main, ["compare", reference, "dlx", "sat", "--n", "2", "--markdown"])
    new = CliRunner().invoke(main, ["compare", reference, "dlx", "sat", "--n", "2", "-f", "markdown"])
    assert old.exit_code == new.exit_code == 0
    assert old.stdout == new.stdout and old.stdout.startswith("**sat** (B) against **dlx** (A)")
    both = CliRunner().invoke(main, ["compare", reference, "dlx", "sat", "--markdown", "-f", "json"])
    assert both.exit_code == 2 and "--markdown is --format markdown" in both.stderr
