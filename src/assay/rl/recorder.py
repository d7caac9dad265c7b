"""Task runs of an RL environment kept in the records store, as one open-ended benchmark run."""

from __future__ import annotations

from assay.runs.aggregate import aggregate
from assay.runs.config import RunConfig, stored_config
from assay.runs.plan import new_id
from assay.runs.store import Store
from assay.score.result import TaskRunResult
from assay.world.live import World


class Recorder:
    """One benchmark run per environment: created when it opens (with `config`, how the pool was
    made), each task run stored whole as it ends, its figures set when the environment closes."""

    def __init__(self, store: Store, world: World, agent: str, config: RunConfig | None = None):
        self.store = store
        config = config or RunConfig(agent=agent)
        self.run_id = new_id("br")
        store.create_benchmark_run(
            self.run_id,
            world=world.name,
            world_version=world.version,
            world_path=str(world.root.resolve()),
            agent=agent,
            repeats=1,
            planned=[],
            splits={},
            verifier_mode=world.verifier_mode,
            config=stored_config(config, world.files_digest).model_dump(mode="json"),
        )
        store.start_benchmark_run(self.run_id)

    def save(self, result: TaskRunResult) -> None:
        self.store.save_task_run(self.run_id, result, first=True)

    def close(self) -> None:
        self.store.count_task_runs(self.run_id)
        figures = aggregate(self.store.task_rows(self.run_id))
        self.store.finish_benchmark_run(
            self.run_id,
            phase="completed",
            status="completed",
            figures=figures.model_dump(mode="json"),
        )
        self.store.close()
