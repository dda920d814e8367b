"""The set-up's warm-up (experiments/cli/warm_up.py): every command it runs is one the race
command line takes, and a command that fails is named and makes the exit status 1."""

from __future__ import annotations

from experiments.cli import warm_up


def test_a_failing_command_is_named_and_the_status_is_1(monkeypatch, capsys):
    ran = []

    def fake(args):
        ran.append(args)
        return (3, "boom: a broken kernel") if args[0] == "cover" and "--show" in args else (0, "")
    monkeypatch.setattr(warm_up, "_race", fake)
    monkeypatch.setattr(warm_up, "_without_c_kernels", lambda: None)
    monkeypatch.setattr(warm_up, "_batch", lambda run: None)
    assert warm_up.warm_up() == 1
    err = capsys.readouterr().err
    assert "race cover" in err and "--show failed: boom: a broken kernel" in err
    assert [a[0] for a in ran] == ["example"] + [c[0] for c in warm_up.COMMANDS]
    assert all("{tmp}" not in a for args in ran for a in args)


def test_every_command_is_one_the_race_command_line_takes():
    from click.testing import CliRunner

    from experiments.cli.main import main
    for command in warm_up.COMMANDS:
        # the command and its options parse (--help stops before anything runs)
        result = CliRunner().invoke(main, [command[0], "--help"])
        assert result.exit_code == 0, result.output
        options = {a.split("=")[0] for a in command[1:] if a.startswith("-")}
        assert all(option in result.output for option in options), (command, result.output)


def test_the_small_problems_have_the_solutions_they_should(tmp_path):
    from click.testing import CliRunner

    from experiments.cli.main import main
    for text, count in ((warm_up.SMALL, "2"), (warm_up.BOUNDS, None)):
        path = tmp_path / "p.dlx"
        path.write_text(text)
        result = CliRunner().invoke(main, ["cover", str(path), "--count"])
        assert result.exit_code == 0, result.output
        if count:
            assert result.output.strip() == count
        else:
            assert int(result.output.strip()) >= 1
