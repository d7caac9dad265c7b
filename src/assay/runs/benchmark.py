"""A world ready to run: the loaded world and its registered verifiers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from assay.spec.task import TaskSpec
from assay.verify.python import Verifiers, collect_verifiers
from assay.world.live import World
from assay.world.load import load_world


@dataclass
class Benchmark:
    world: World
    verifiers: Verifiers

    @property
    def tasks(self) -> dict[str, TaskSpec]:
        return self.world.tasks

    def close(self) -> None:
        """Release the world's open connections (a PostgreSQL world holds some between runs)."""
        self.world.close()


def open_benchmark(
    path: str | Path, *, build: bool = True, world_db: str | None = None
) -> Benchmark:
    """Load a world and its verifiers; with `build`, make its snapshot now so data errors show early.

    `world_db` runs the world on that PostgreSQL server (see `load_world`).
    """
    world = load_world(path, world_db)
    verifiers = collect_verifiers(world)
    if build:
        _ = world.snapshot
    return Benchmark(world, verifiers)
