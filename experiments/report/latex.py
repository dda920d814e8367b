"""Building the report's PDF with latexmk, reproducibly (dates fixed to the campaign's)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from datetime import datetime
from pathlib import Path

from experiments.analysis import censored_stats
from formats.errors import RaceError

INSTALL_HINT = ("apt-get update && apt-get install -y texlive-latex-base texlive-latex-recommended "
                "texlive-fonts-recommended latexmk poppler-utils")


def campaign_epoch(campaign: censored_stats.Campaign) -> int | None:
    """The campaign's creation time (meta.json ``created_at``) in seconds since 1970."""
    try:
        stamp = datetime.fromisoformat(str(campaign.meta.get("created_at", "")).replace("Z", "+00:00"))
    except ValueError:
        return None
    return int(stamp.timestamp()) if stamp.tzinfo else None


def _first_latex_error(log: str) -> str:
    for line in log.splitlines():
        if re.match(r"^(\S+\.tex:\d+:|! )", line):
            return line.strip()
    return log.strip().splitlines()[-1] if log.strip() else "latexmk failed"


def build_pdf(report_dir: str | Path, timeout: float = 300,
              epoch: int | None = None) -> Path:
    """Run latexmk on ``report_dir/report.tex``; return the PDF path. With ``epoch``
    (seconds since 1970) the PDF's dates and ID are fixed to it, so the same campaign
    gives the same bytes.

    Raises RaceError when latexmk is missing (naming the packages to install) or
    when LaTeX fails (with the first error line of the log).
    """
    root = Path(report_dir)
    if shutil.which("latexmk") is None:
        raise RaceError(f"latexmk not found; install LaTeX with: {INSTALL_HINT}")
    if not (root / "report.tex").is_file():
        raise RaceError(f"{root / 'report.tex'}: missing")
    cmd = ["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error",
           "report.tex"]
    try:
        env = dict(os.environ)
        if epoch is not None:
            env.update(SOURCE_DATE_EPOCH=str(epoch), FORCE_SOURCE_DATE="1")
        proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise RaceError(f"latexmk did not finish within {timeout:.0f} s", source=str(root)) from None
    pdf = root / "report.pdf"
    if proc.returncode != 0 or not pdf.is_file():
        log_path = root / "report.log"
        log = log_path.read_text(errors="replace") if log_path.is_file() else proc.stdout + proc.stderr
        raise RaceError(f"LaTeX failed: {_first_latex_error(log)} (full log: {log_path})")
    return pdf
