"""What a campaign's meta.json says its cells are (:class:`Plan`): its names, entrants, n,
families, repeats and instance files, and where those files are; what
:mod:`experiments.harness.stray_rows` checks each row of runs.csv against."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Any

from experiments.harness.identity import row_family
from experiments.harness.instance_families import file_stem, names_of


class Plan:
    """What a campaign's meta.json says its cells are (each part None when it does not say),
    and where its instance files are."""

    def __init__(self, meta: dict[str, Any], root: Path | None) -> None:
        self.names = {str(meta.get("campaign") or "")} | {
            str(part.get("campaign")) for part in meta.get("merged_from") or []
            if isinstance(part, dict)}
        self.names |= _named_by(meta)
        self.names = {name.strip() for name in self.names}    # as a row's is read: stripped
        self.names.discard("")
        self.entrants = set(map(str, meta.get("entrants") or [])) or None
        self.n_values = {int(n) for n in meta.get("n_values") or []} or None
        given = meta.get("families")
        families: dict[Any, Any] = given if isinstance(given, dict) else {}
        self.generators = {str(k): str((v or {}).get("kind") or "") for k, v in families.items()
                      if isinstance(v, dict)}
        # the first part of each family's instance file names (hard-... or, made before, holes-...)
        names = names_of(meta)
        self.stems = {str(k): file_stem(str(v.get("label") or ""), self.generators[str(k)], names)
                      for k, v in families.items() if isinstance(v, dict)}
        # per family and n, the suffix its generator options give the set's directory name
        self.options = {str(k): _labels(v["options"]) for k, v in families.items()
                        if isinstance(v, dict) and isinstance(v.get("options"), dict)}
        self.repeats = meta.get("repeats") if isinstance(meta.get("repeats"), int) else None
        imported = meta.get("instance_set")
        self.imported = Path(str(imported.get("directory"))) if isinstance(imported, dict) else None
        self.manifest_sha256 = str(imported.get("manifest_sha256") or "") if isinstance(imported, dict) else ""
        self.generated = self.imported is None and not meta.get("merged_from")
        self.instances = meta.get("instances") if isinstance(meta.get("instances"), int) else None
        self.seed = meta.get("seed")
        self.caches = [] if root is None else [d for d in (root.parent / "instances",
                                                           root / "instances") if d.is_dir()]
        self._digests: dict[str, str | None] = {}
        self._generated: dict[tuple[str, int], set[str]] = {}
        self._manifest: tuple[dict[str, str], int] | None | bool = False     # False: not read yet

    def outside(self, row: dict[str, str]) -> str | None:
        """What of ``row``'s cell is outside the plan, in a few words, or None."""
        family, n = row_family(row), int(row["n"])
        if self.entrants is not None and row["entrant"] not in self.entrants:
            return f"entrant {row['entrant']}"
        if self.n_values is not None and n not in self.n_values:
            return f"n={n}"
        if self.generators and family and family not in self.generators:
            return f"family {family}"
        if self.repeats is not None and int(row["repeat"] or 0) >= self.repeats:
            return f"repeat {row['repeat']}"
        misnamed = self.misnamed(row)
        if misnamed:
            return f"instance {row['instance']}: {misnamed}"
        stem = self.stems.get(family)
        if self.generated and stem and self.instances is not None and isinstance(self.seed, int):
            if row["instance"].rsplit("/", 1)[-1] not in self._names(stem, n):
                return f"instance {row['instance']}"
        return None

    def misnamed(self, row: dict[str, str]) -> str | None:
        """Why ``row``'s instance is no name the campaign gives an instance file, or None: a
        file name, or (a family with generator options) its set's directory and a file name;
        of an imported set, a relative name inside it."""
        instance = row["instance"]
        if not safe_name(instance):
            return "not a file name of the set (a path)"
        if self.imported is not None:
            return None
        directory, _, _ = instance.rpartition("/")
        if directory and not self.directory_ok(row_family(row), int(row["n"]), directory):
            return "not in the set's directory"
        return None

    def set_directory(self, family: str, n: int) -> str | None:
        """The directory name of ``family``'s generated set at ``n``, "" when its instance names
        carry none (no generator options), None when meta.json does not say."""
        stem, labels = self.stems.get(family), self.options.get(family)
        if not self.generated or not stem or not isinstance(self.seed, int) or labels is None \
                or n not in labels:
            return None
        return f"{stem}-n{n}-s{self.seed}{labels[n]}" if labels[n] else ""

    def directory_ok(self, family: str, n: int, directory: str) -> bool:
        """Whether an instance named ``directory/FILE`` of ``family`` at ``n`` may be the
        campaign's: the family's set directory at n (its beginning, when meta.json does not
        record the generator options)."""
        if "/" in directory:
            return False
        expected = self.set_directory(family, n)
        if expected is not None:
            return bool(expected) and directory == expected
        stem = self.stems.get(family)
        if not self.generated or not stem or not isinstance(self.seed, int):
            return True
        return directory.startswith(f"{stem}-n{n}-s{self.seed}")

    def _names(self, kind: str, n: int) -> set[str]:
        """The file names of the generated instances at ``n`` whose names begin with ``kind``
        (the family's file stem; computed once)."""
        if (kind, n) not in self._generated:
            from generators.puzzle_set import puzzle_name
            self._generated[(kind, n)] = {puzzle_name(kind, n, int(self.seed or 0), i)
                                          for i in range(self.instances or 0)}
        return self._generated[(kind, n)]

    def files(self, row: dict[str, str]) -> list[str]:
        """Where the instance file ``row`` names may be (paths as text: many are looked up)."""
        instance = row["instance"]
        if self.imported is not None:
            return [os.path.join(self.imported, instance)]
        if not safe_name(instance):                   # never looked for outside the set
            return []
        kind = self.stems.get(row_family(row))
        directory = self.set_directory(row_family(row), int(row["n"])) if "/" not in instance \
            else None
        found = []
        for cache in self.caches:
            found.append(os.path.join(cache, instance))
            if "/" not in instance and kind:
                found.append(os.path.join(cache, f"{kind}-n{row['n']}-s{self.seed}", instance))
            if directory:
                found.append(os.path.join(cache, directory, instance))
        return found

    def digest(self, path: str) -> str | None:
        """The sha256 of the file ``path``, None when it is no readable file (computed once)."""
        if path not in self._digests:
            self._digests[path] = None
            try:                              # no stat first; never blocks on a pipe
                fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            except OSError:                   # missing, unreadable
                return None
            try:
                with open(fd, "rb") as f:
                    if stat.S_ISREG(os.fstat(fd).st_mode):
                        self._digests[path] = hashlib.sha256(f.read()).hexdigest()
            except OSError:
                pass
        return self._digests[path]

    def manifest(self) -> tuple[dict[str, str], int] | None:
        """The imported set's manifest.csv as file -> sha256 (files listed once) and when it
        was written (mtime ns), when it hashes to the ``manifest_sha256`` meta.json recorded;
        else None (read once per plan)."""
        if self._manifest is False:
            self._manifest = self._read_manifest()
        return self._manifest if not isinstance(self._manifest, bool) else None

    def _read_manifest(self) -> tuple[dict[str, str], int] | None:
        if self.imported is None or not self.manifest_sha256:
            return None
        import pyarrow as pa
        import pyarrow.csv as csv
        path = os.path.join(self.imported, "manifest.csv")
        try:
            info = os.stat(path)
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return None
        if hashlib.sha256(data).hexdigest() != self.manifest_sha256:
            return None
        try:
            table = csv.read_csv(pa.py_buffer(data), convert_options=csv.ConvertOptions(
                include_columns=["file", "sha256"], column_types={"file": pa.string(), "sha256": pa.string()},
                strings_can_be_null=False))
        except (pa.ArrowException, ValueError):
            return None
        files, shas = table["file"].to_pylist(), table["sha256"].to_pylist()
        listed = dict(zip(files, shas))
        if len(listed) != len(files):                 # a file listed twice vouches for nothing
            seen: dict[str, int] = {}
            for name in files:
                seen[name] = seen.get(name, 0) + 1
            listed = {name: sha for name, sha in listed.items() if seen[name] == 1}
        return listed, info.st_mtime_ns

    def mismatch(self, row: dict[str, str]) -> bool:
        """True when the first instance file found for ``row`` has another sha256."""
        recorded = row.get("instance_sha256") or ""
        if not recorded:
            return False
        for path in self.files(row):
            actual = self.digest(path)
            if actual is not None:
                return actual != recorded
        return False


def safe_name(instance: str) -> bool:
    """Whether ``instance`` is a relative name that stays inside its directory: no empty,
    ``.`` or ``..`` part, no backslash, no NUL."""
    return not ("\\" in instance or "\0" in instance
                or any(part in ("", ".", "..") for part in instance.split("/")))


def _labels(options: dict[str, Any]) -> dict[int, str]:
    """Generator options per n (meta.json's ``families.KEY.options``) -> the suffix of the
    set's directory name per n (:func:`experiments.harness.config.options_label`)."""
    from experiments.harness.config import options_label
    return {int(n): options_label(given) for n, given in options.items()
            if str(n).isdigit() and isinstance(given, dict)}


def _named_by(meta: dict[str, Any]) -> set[str]:
    """The campaign names the commands that grew the campaign gave (``--campaign NAME``): a
    campaign grown under another name, then renamed, holds their rows as its own."""
    import shlex
    texts = [str(c.get("command") or "") for c in meta.get("commands") or [] if isinstance(c, dict)]
    names = set()
    for text in texts + [str(meta.get("command") or "")]:
        try:
            words = shlex.split(text)
        except ValueError:
            continue
        for k, word in enumerate(words):
            if word == "--campaign" and k + 1 < len(words):
                names.add(words[k + 1])
            elif word.startswith("--campaign="):
                names.add(word.split("=", 1)[1])
    return names
