"""Where a benchmark run started in this process runs its task runs: the executor, checked early."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from assay.errors import UsageError

if TYPE_CHECKING:
    from assay.runs.execute import Executor


@dataclass(frozen=True)
class Execution:
    """Where task runs happen: in worker processes or Ray actors, how many, on which PostgreSQL
    server if any, and how long an agent's action may take."""

    workers: int | None
    world_db: str | None
    action_timeout_s: float
    concurrency: int = 1
    kind: str = "pool"
    ray_address: str | None = None

    def check(self) -> None:
        """UsageError for an unknown executor, an address without Ray, or Ray not installed."""
        from assay.runs.execute import EXECUTOR_KINDS

        if self.kind not in EXECUTOR_KINDS.builtins:
            known = " nor ".join(EXECUTOR_KINDS.builtins)
            raise UsageError(f"--executor: {self.kind!r} is neither {known}")
        if self.kind != "ray":
            if self.ray_address is not None:
                raise UsageError("--ray-address: only with --executor ray")
            return
        from importlib.util import find_spec

        if find_spec("ray") is None:
            raise UsageError("--executor ray: the ray package is missing; pip install 'assay[ray]'")
        if self.concurrency > 1:
            from assay.runs.cluster import CONCURRENCY_REFUSED

            raise UsageError(CONCURRENCY_REFUSED)

    def executor(self, runs: int, quick: bool = False) -> Executor:
        """The executor for `runs` task runs; `quick`: each takes milliseconds (`quick_runs`)."""
        from assay.runs.execute import EXECUTOR_KINDS

        make = EXECUTOR_KINDS.get(self.kind)
        return make(
            self.workers,
            runs,
            self.action_timeout_s,
            self.concurrency,
            quick=quick,
            address=self.ray_address,
        )
