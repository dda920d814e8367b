"""MkDocs hook: the figures the pages show, taken from where the project writes them.

The reference report's figures (``report/generated/``) and the reference landscape
(``results/reference-landscape/``) are committed once, outside docs/; the site serves them
under ``figures/`` instead of keeping copies that could drift.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
#: site path -> file in the repository
FIGURES = {
    "figures/runtime.png": "report/generated/runtime.png",
    "figures/solved.png": "report/generated/solved.png",
    "figures/cactus.png": "report/generated/cactus.png",
    "figures/scatter.png": "report/generated/scatter.png",
    "figures/work.png": "report/generated/work.png",
    "figures/phases.png": "report/generated/phases.png",
    "figures/landscape.png": "results/reference-landscape/landscape.png",
}


def on_files(files, config):
    for uri, source in FIGURES.items():
        files.append(File.generated(config, uri, abs_src_path=str(ROOT / source)))
    return files
