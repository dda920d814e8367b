"""Commands of the sat part of the race CLI (filled in by that part)."""

COMMANDS: list = []
