"""Processes: reading a process tree and its memory (:mod:`.tree`), running a program under
limits and killing its group (:mod:`.limited`), and the forked members of ``parallel``
(:mod:`.members`)."""
