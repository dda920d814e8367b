"""The cells of a campaign: one measurement each (an entrant on an instance of a family at
box size n, one repeat), the order they go out in, and a campaign ready to run
(:class:`Prepared`: every cell and those without a record yet)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from experiments.harness.config import Config
from experiments.harness.identity import CellKey
from experiments.harness.instances import Instance, instance_name

if TYPE_CHECKING:
    from experiments.harness.instance_families import Family

#: the stream of the order's random generator (apart from the instances' streams)
ORDER_STREAM = 0x0D3E


@dataclass(frozen=True)
class Cell:
    """One measurement: an entrant on an instance (``instance`` None when not generated) of
    the family with key ``family`` (:attr:`experiments.harness.instance_families.Family.key`)."""
    entrant: str
    n: int
    instance_file: str
    repeat: int
    instance: Instance | None = None
    family: str = ""

    @property
    def key(self) -> CellKey:
        """The cell's identity (:func:`experiments.harness.identity.cell_key`; its fields are
        of their types already, so made as the tuple it is: the parent asks for it per cell)."""
        return self.family, self.entrant, self.n, self.instance_file, self.repeat


def cell_instance(family: Family, instance: Instance) -> str:
    """The ``instance`` column of a cell: the file name, prefixed by its set's directory
    when the family has options (``holes-n3-s0-holes0.55-balanced/holes-n3-s0-0000.sudoku``)
    so that the sets of one kind with different options never share a name."""
    return f"{instance.path.parent.name}/{instance.file}" if family.options_for(instance.n) \
        else instance.file


def make_cells(config: Config, instances: dict[tuple[str, int], list[Instance]]) -> list[Cell]:
    """Every cell of the campaign, entrant-major, then family, n, instance, repeat.
    ``instances`` maps (family key, n) to the family's instances at n."""
    cells = []
    for entrant in config.entrants:
        for family in config.families:
            for n in config.n_values:
                given: list[Instance | None] = list(instances.get((family.key, n)) or []) \
                    or [None] * config.instances
                prefixed = bool(family.options_for(n))     # cell_instance, decided once per n
                for index, inst in enumerate(given):
                    if inst is None:
                        file = instance_name(family.stem(config.instance_names), n, config.seed, index)
                    else:
                        file = cell_instance(family, inst) if prefixed else inst.file
                    for repeat in range(config.repeats):
                        cells.append(Cell(entrant.spec, n, file, repeat, inst, family.key))
    return cells


def interleave(cells: list[Cell], seed: int) -> list[Cell]:
    """``cells`` grouped by (n, family) -- n ascending, families in their order of first
    appearance -- and within each group sorted by a seeded hash of the cell (entrant,
    instance, repeat): a random order that is the same on every run of the campaign, so a
    resume (or a campaign grown by more entrants or instances) keeps the order of the cells
    it still has to run."""
    families = list(dict.fromkeys(c.family for c in cells))

    def rank(cell: Cell) -> tuple[int, int, bytes]:
        text = f"{seed}\0{ORDER_STREAM}\0{cell.entrant}\0{cell.instance_file}\0{cell.repeat}"
        return cell.n, families.index(cell.family), hashlib.blake2b(text.encode(), digest_size=8).digest()
    return sorted(cells, key=rank)


@dataclass
class Prepared:
    """A campaign ready to run: every cell and those without a record yet."""
    config: Config
    cells: list[Cell]
    pending: list[Cell]
    meta: dict[str, Any]
    #: the cells runs.csv already records -> the status of each record, in file order
    recorded: dict[CellKey, str] = field(default_factory=dict)
