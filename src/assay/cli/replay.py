"""`--agent replay:…` on `assay run`: the tasks and repeats come from the trajectories replayed.

`replay:FILE` replays one saved task run, `replay:DIR` every `*.json` in a directory and
`replay:run:RUN` every finished task run of a stored run (its trajectories are written under
`$ASSAY_HOME/replays/RUN/` first, so that every worker reads the same files).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from assay.errors import UsageError

if TYPE_CHECKING:
    from assay.runs.store import Store

STORED = "run:"


def replay_choice(
    records: Store, agent: str, tasks: Sequence[str], repeats: int | None
) -> tuple[str, Sequence[str], int | None]:
    """The agent, tasks and repeats to run; for a replay, those its trajectories hold."""
    from assay.taskrun.agents.names import parse_agent

    named = parse_agent(agent)
    if named.kind != "replay":
        return agent, tasks, repeats
    source = named.argument
    if source.startswith(STORED):
        source = str(_written(records, source.removeprefix(STORED)))
    from assay.taskrun.agents.replay import Replays

    counts = Replays(Path(source)).counts()
    chosen = list(tasks) or sorted(counts)
    for task_id in chosen:
        if task_id not in counts:
            held = ", ".join(sorted(counts))
            raise UsageError(
                f"--task: {source} has no trajectory of task {task_id} (it has: {held})"
            )
    held = {counts[task_id] for task_id in chosen}
    if len(held) > 1:
        raise UsageError(
            f"--agent: {source} holds {min(held)} trajectories of some tasks and {max(held)} of "
            "others; a run gives every task the same repeats (choose tasks with --task)"
        )
    (most,) = held
    if repeats is not None and repeats > most:
        raise UsageError(
            f"--repeats: {source} holds {most} trajectories of each task, not {repeats}"
        )
    return f"replay:{source}", chosen, repeats or most


def _written(records: Store, run_id: str) -> Path:
    """The stored run's trajectories, one file per finished task run, in a directory of its own."""
    from assay.cli.run_output import save
    from assay.runs.store.location import HOME

    run = records.benchmark_run(run_id, parameter="--agent")
    directory = Path(os.environ.get(HOME, ".assay")) / "replays" / run.id
    for old in directory.glob("*.json"):
        old.unlink()  # a run resumed since then has other task runs
    if save(records, run.id, directory) == 0:
        raise UsageError(f"--agent: run {run.id} has no finished task run to replay")
    return directory.resolve()
