"""Commands of the run part of the race CLI (filled in by that part)."""

COMMANDS: list = []
