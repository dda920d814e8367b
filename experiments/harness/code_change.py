"""What ``race run`` does when an entrant's code differs from the code that measured its rows
(:mod:`experiments.harness.code_identity`), as it was told before the campaign resumes:

* ``--mixed``: keep the rows; meta.json's ``entrant_code`` records the earlier identity under
  ``earlier``, with ``until`` (rows started before then were measured by it) and the count of
  ``rows`` it measured, and the new one as measuring from now;
* ``--rerun ENTRANT``: move that entrant's rows to :data:`RERUN_NAME` beside runs.csv
  (appended, under the same header: nothing is lost), record the identity that measured them
  under ``replaced``, so its cells run again (whether its code changed or not).

Without either, the resume is refused by :func:`experiments.harness.code_identity.merge`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from experiments.harness import records
from experiments.harness.code_identity import (
    KEY,
    current,
    label,
    measured_by,
    merge,
    recorded,
    short,
)
from experiments.harness.lock import CampaignLock
from experiments.harness.provenance import (
    RESUME_ADVICE,
    previous_meta,
    read_meta,
    save_meta,
    utc_now,
)
from experiments.harness.runs_table import RunsTable
from experiments.harness.schema import COLUMNS
from formats.errors import RaceError, printable

#: where ``--rerun`` moves an entrant's rows (beside runs.csv, appended, canonical header)
RERUN_NAME = "runs.replaced.csv"


def settle(config: Any, mixed_code: bool = False, rerun: Iterable[str] = ()) -> list[str]:
    """Before ``race run`` resumes the campaign of ``config``: for each entrant whose code
    differs from what meta.json recorded for it, with ``mixed_code`` record the earlier
    identity under ``earlier`` (its ``until`` and the count of ``rows`` it measured) and the
    new one as measuring from now; for each spec of ``rerun`` move its rows of runs.csv to
    :data:`RERUN_NAME` beside it (its earlier identity under ``replaced``). Holds the campaign
    lock meanwhile. Returns the lines to say (one per entrant settled). Raises RaceError,
    before anything moves, for a ``rerun`` spec that is not an entrant of this race, for a
    resume :func:`experiments.harness.provenance.previous_meta` refuses (another seed, limit,
    family) and, when told either, for an entrant whose code changed and that is neither mixed
    nor re-run (:func:`merge`; without either, the preparation refuses it the same way)."""
    from solvers.registry import entrant_label
    specs = [e.spec for e in config.entrants]
    labels = {entrant_label(spec): spec for spec in specs}      # a cmd entrant's name= too
    for given in rerun:
        if given not in specs and given not in labels:
            raise RaceError(f"--rerun {printable(given)}: not an entrant of this race "
                            f"(--solvers gives {', '.join(printable(s) for s in specs)})")
    rerun = list(dict.fromkeys(given if given in specs else labels[given] for given in rerun))
    path = config.directory / "meta.json"
    if not path.is_file() or not (mixed_code or rerun):
        return []
    with CampaignLock(config.directory):
        return _settle(config, path, mixed_code, rerun)


def _settle(config: Any, path: Path, mixed_code: bool, rerun: list[str]) -> list[str]:
    previous_meta(config, code=False)         # another seed, limit, family: refused first
    meta = read_meta(path, advice=RESUME_ADVICE)
    code = dict(meta.get(KEY) or {})
    now = utc_now()
    said: list[str] = []
    identities = current(config.entrants)
    changed = {spec: identity for spec, identity in identities.items()
               if (before := recorded(meta, spec)) is not None and identity.get("digest")
               and before["digest"] != identity["digest"]}
    for spec, identity in changed.items():       # refused before anything moves
        if spec not in rerun and not mixed_code:
            merge({spec: recorded(meta, spec)}, {spec: identity}, now, config.campaign, str(path))
    runs = config.runs_path
    rows: list[dict[str, str]] = []
    if runs.is_file() and (changed or rerun):
        table = RunsTable(runs, text=True)          # the rows as written: moved as they are
        table.set_aside_damaged()
        rows = table.rows()
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.get("entrant", "")] = counts.get(row.get("entrant", ""), 0) + 1
    for spec in rerun:
        before = recorded(meta, spec)
        moved = [row for row in rows if row.get("entrant") == spec]
        if moved:
            side = runs.with_name(RERUN_NAME)
            _append_rows(side, moved)
            rows = [row for row in rows if row.get("entrant") != spec]
            records.rewrite(runs, rows)
        entry = {**identities[spec], "since": now}
        if before is not None:
            replaced = {k: v for k, v in before.items() if k not in ("replaced",)}
            entry["replaced"] = [*(before.get("replaced") or []),
                                 {**replaced, "until": now, "rows": len(moved),
                                  "moved_to": RERUN_NAME}]
        code[spec] = entry
        (meta.get("entrant_provenance") or {}).pop(spec, None)   # read afresh: its rows are gone
        said.append(f"race: note: {printable(spec)}: {len(moved)} row(s) measured by "
                    f"{label(measured_by(meta, spec))} moved to {runs.with_name(RERUN_NAME)}; "
                    f"its cells run again with {short(identities[spec].get('digest'))}")
    for spec, identity in changed.items():
        if spec in rerun or not mixed_code:
            continue
        before = recorded(meta, spec) or {}
        earlier = [*(before.get("earlier") or []),
                   {**{k: v for k, v in before.items() if k != "earlier"}, "until": now,
                    "rows": counts.get(spec, 0)}]
        code[spec] = {**identity, "since": now, "earlier": earlier}
        said.append(f"race: note: {printable(spec)}: its {counts.get(spec, 0)} row(s) were measured "
                    f"by {short(before.get('digest'))}, the cells run now by "
                    f"{short(identity['digest'])} (--mixed: both recorded in meta.json, "
                    f"{KEY})")
    meta[KEY] = code
    save_meta(path, meta)
    return said


def _append_rows(side: Path, rows: list[dict[str, str]]) -> None:
    """Append ``rows`` to the runs table ``side`` (its header first when it is new), synced
    before runs.csv is rewritten without them: a kill leaves them in both files, never in
    neither."""
    data = b"".join(records.encode_row(row) for row in rows)
    try:
        fresh = not side.exists() or side.stat().st_size == 0
        with open(side, "ab") as f:
            if fresh:
                f.write((",".join(COLUMNS) + "\n").encode())
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        raise records.RecordWriteError(f"cannot move rows aside: {exc.strerror}",
                                       source=str(side)) from None
