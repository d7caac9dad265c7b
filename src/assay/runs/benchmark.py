"""A world ready to run: the loaded world and its registered verifiers, every task proved
gradable (`assay.world.loadable`)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from assay.formats.task import TaskSpec
from assay.runs.kept import keep_trials
from assay.verify.python import Verifiers, registered_verifiers
from assay.world.live import World
from assay.world.load import load_world
from assay.world.loadable import prove_gradable

if TYPE_CHECKING:
    from assay.formats.verifier_choice import VerifierChoice


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
    path: str | Path,
    *,
    build: bool = True,
    world_db: str | None = None,
    verifier_mode: VerifierChoice = "task",
    keep_artifacts: str | Path | None = None,
    left_out: Collection[str] = (),
) -> Benchmark:
    """Load a world and its verifiers, and prove every task gradable (`assay.world.loadable`:
    SpecError naming the task file and field); with `build`, make its snapshot now so data errors
    show early, and prove every check's names against it.

    `world_db` runs the world on that PostgreSQL server, `verifier_mode` separate verifies every
    container-format task in a fresh sandbox (see `load_world`), `keep_artifacts` keeps each of
    their task runs' trial folder in that directory (`assay.runs.kept`), `left_out` names tasks
    not to load at all (withdrawn ones: they never block the rest).
    """
    world = load_world(path, world_db, verifier_mode, left_out)
    if keep_artifacts is not None:
        keep_trials(world, Path(keep_artifacts))
    verifiers = registered_verifiers(world)
    prove_gradable(world, verifiers, built=build)
    return Benchmark(world, verifiers)
