"""MkDocs hook and module: the ``race`` click group as the command reference shows it.

``experiments/cli/main.py``'s group is lazy: it imports a command's module only when that
command runs, so a tool walking the group object may see some commands or none. Here every
command of its table (``COMMANDS``) is loaded, and each one's help text is put in a text
block as ``race COMMAND --help`` prints it (click's help is plain text with its own
layout, not Markdown). docs/reference.md hands :data:`race` to mkdocs-click, which writes
each command's usage and options from the click objects themselves: nothing is written by
hand, and a new command or option appears by itself.
"""

from __future__ import annotations

import copy
import sys
import textwrap

import click

from experiments.cli.main import COMMANDS, main

# mkdocs loads this file as a hook (under its path as a name); mkdocs-click imports the
# module named in docs/reference.md: the same module, registered under that name
sys.modules.setdefault("cli_reference", sys.modules[__name__])

#: the width the help texts are laid out in
WIDTH = 100


def _help_block(command: click.Command, name: str) -> str:
    """``command``'s help text as click lays it out, in a fenced text block."""
    formatter = click.HelpFormatter(width=WIDTH)
    command.format_help_text(click.Context(command, info_name=name), formatter)
    return "```text\n" + textwrap.dedent(formatter.getvalue()).strip("\n") + "\n```"


def _documented(command: click.Command, name: str, short: str) -> click.Command:
    clone = copy.copy(command)
    clone.help = _help_block(command, name)
    clone.short_help = short
    return clone


def reference_group() -> click.Group:
    """``race`` with every command loaded, as mkdocs-click should render it."""
    commands = {name: _documented(main.get_command(None, name), name, short)
                for name, (_, _, short) in COMMANDS.items()}
    group = copy.copy(main)
    group.commands = commands
    group.help = _help_block(main, "race")
    return group


race = reference_group()
