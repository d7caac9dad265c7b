"""Two stored runs compared: their figures and the per-task changes, as the CLI, report and viewer
show them."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from assay.errors import UsageError
from assay.runs.aggregate import aggregate
from assay.runs.compare import Comparison, compare
from assay.runs.config import differences
from assay.runs.record import benchmark_result
from assay.runs.run import BenchmarkRunResult
from assay.runs.store import Store


class RunComparison(BaseModel, defer_build=True):
    """Run B against run A: both runs' figures and the comparison."""

    a: BenchmarkRunResult
    b: BenchmarkRunResult
    comparison: Comparison

    def as_json(self) -> dict[str, Any]:
        return {
            "a": _brief(self.a),
            "b": _brief(self.b),
            **self.comparison.model_dump(mode="json"),
            "config_differences": [
                {"setting": name, "a": a, "b": b} for name, a, b in self.config_differences()
            ],
        }

    def config_differences(self) -> list[tuple[str, Any, Any]]:
        """`(setting, in A, in B)` for each difference of how the runs were made; none when
        either run was stored without its configuration."""
        if self.a.config is None or self.b.config is None:
            return []
        return differences(self.a.config, self.b.config)


def load_comparison(store: Store, run_a: str, run_b: str) -> RunComparison:
    """Compare two stored runs (ids or starts of ids) of the same world; UsageError otherwise."""
    record_a = store.benchmark_run(run_a, "RUN_A")
    record_b = store.benchmark_run(run_b, "RUN_B")
    if record_a.world != record_b.world:
        raise UsageError(
            f"RUN_B: run {record_b.id} is of world {record_b.world}, "
            f"not {record_a.world} like run {record_a.id}"
        )
    rows_a, rows_b = store.task_rows(record_a.id), store.task_rows(record_b.id)
    return RunComparison(
        a=benchmark_result(record_a, aggregate(rows_a)),
        b=benchmark_result(record_b, aggregate(rows_b)),
        comparison=compare(rows_a, rows_b),
    )


def _brief(run: BenchmarkRunResult) -> dict[str, Any]:
    fields = ("id", "world", "world_version", "agent", "score", "verdict", "scored", "not_scored")
    return {name: getattr(run, name) for name in fields}
