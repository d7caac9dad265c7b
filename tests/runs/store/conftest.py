"""Stores on both backends, and real task-run results of the example world to put in them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from assay.runs import prepare, run_benchmark, run_task
from assay.runs.plan import new_id
from assay.runs.store import Store, open_store
from assay.score.result import TaskRunResult
from assay.taskrun.agents.resolve import agent_factory
from assay.taskrun.rollout import RunError

WRONG = [
    ("refund-double-charge", "refunds both charges"),
    ("refund-double-charge", "says it refunded without refunding"),
    ("email-tracking", "emails the wrong address"),
]


@pytest.fixture(scope="session")
def shop_results(shop) -> list[TaskRunResult]:
    """Every task by the reference, three wrong solutions, and one run that was not scored."""
    benchmark = shop
    results = run_benchmark(benchmark, "reference", prepare(benchmark, "reference")).task_runs
    for repeat, (task_id, wrong) in enumerate(WRONG, start=1):
        task = benchmark.tasks[task_id]
        agent = agent_factory(f"wrong:{wrong}")(task)
        results.append(
            run_task(benchmark, task, agent, run_id=new_id("tr"), repeat=repeat, agent_name="x")
        )
    failed = results[0].model_copy(
        update={
            "id": new_id("tr"),
            "repeat": 9,
            "status": "failed",
            "outcome": "not_scored",
            "reward": None,
            "score": None,
            "verdict": None,
            "error": RunError(side="world", message="the world broke"),
        }
    )
    return [*results, failed]


@pytest.fixture
def results(shop_results) -> list[TaskRunResult]:
    """The shop results under new task-run ids, so that tests sharing a database do not collide."""
    return [result.model_copy(update={"id": new_id("tr")}) for result in shop_results]


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path) -> Iterator[Store]:
    url = f"sqlite:///{tmp_path / 'records.db'}"
    if request.param == "postgresql":
        url = request.getfixturevalue("postgres_store")
    with open_store(url) as opened:
        yield opened
