"""What one ``race`` invocation shares between its commands: the solver registry.

The click group puts the registry in its context object (``obj={"registry": ...}``; the
built-ins plus installed plugins by default, a test's fake solvers when it passes its
own); every command that creates solvers takes it from here, so ``race run`` and
``race solve`` see the same entrants.
"""

from __future__ import annotations

import click


def current_registry():
    """The solver registry of this invocation (see the module docstring)."""
    from solvers import registry
    context = click.get_current_context(silent=True)
    obj = context.find_root().obj if context is not None else None
    if isinstance(obj, dict) and "registry" in obj:
        return obj["registry"]
    return registry.INSTALLED
