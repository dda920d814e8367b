"""Commands of the report part of the race CLI (filled in by that part)."""

COMMANDS: list = []
