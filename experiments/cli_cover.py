"""Commands of the cover part of the race CLI (filled in by that part)."""

COMMANDS: list = []
