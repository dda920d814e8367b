"""Commands of the generate part of the race CLI (filled in by that part)."""

COMMANDS: list = []
