"""The tasks inspect finds: `assay/world -T world=PATH`, and `assay/<name>` for each world under
./worlds of the directory inspect runs in."""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.solver import TaskState

from assay.errors import SpecError, UsageError
from assay.inspect.agent import assay_agent, close_run
from assay.inspect.scorer import assay_grade
from assay.runs.benchmark import open_benchmark

LOCAL_WORLDS = Path("worlds")


@task
def world(world: str, tasks: str | None = None, split: str | None = None) -> Task:
    """The world at `world`'s tasks (comma-separated `tasks`, or one `split`; holdout only by
    name), each a sample whose input is the customer's request."""
    return world_task(Path(world), tasks, split)


def world_task(path: Path, tasks: str | None = None, split: str | None = None) -> Task:
    try:
        benchmark = open_benchmark(path)
    except (SpecError, UsageError) as error:  # inspect shows a prerequisite as its one line
        raise PrerequisiteError(f"-T world: {error}") from None
    chosen = [name.strip() for name in tasks.split(",")] if tasks else None
    unknown = sorted(set(chosen or ()) - set(benchmark.tasks))
    if unknown:
        raise PrerequisiteError(f"-T tasks: unknown task {unknown[0]!r} in {path}")
    samples = [
        Sample(
            id=spec.id,
            input=spec.customer.request if spec.customer else spec.title,
            metadata={"task_id": spec.id, "title": spec.title, "split": spec.split},
        )
        for spec in benchmark.tasks.values()
        if (spec.id in chosen if chosen else spec.split != "holdout")
        and (split is None or spec.split == split)
    ]

    async def cleanup(state: TaskState) -> None:
        close_run(state)

    return Task(
        name=path.resolve().name,
        dataset=MemoryDataset(samples, name=path.name),
        solver=assay_agent(benchmark),
        scorer=assay_grade(),
        cleanup=cleanup,
        version=1,
    )


def _register_local_worlds() -> None:
    for path in sorted(LOCAL_WORLDS.glob("*/world.toml")) if LOCAL_WORLDS.is_dir() else []:
        directory = path.parent

        def made(tasks: str | None = None, split: str | None = None, _at: Path = directory) -> Task:
            return world_task(_at, tasks, split)

        made.__name__ = directory.name
        task(name=directory.name)(made)


_register_local_worlds()
