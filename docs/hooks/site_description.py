"""MkDocs hook: the site's description (its ``<meta name="description">``) says what the project
races, from the one list of methods (``solvers/methods.py``), as ``race --help`` does."""

from __future__ import annotations

from solvers import methods


def on_config(config):
    config.site_description = methods.description()
    return config
