"""Task runs in worker processes: the same results whatever the number of workers."""

from __future__ import annotations

import os
from typing import Any

import pytest
from comparekit import comparable

from assay.runs import ProcessExecutor, SerialExecutor, executor_for, prepare, run_benchmark
from assay.runs.execute import SampledExecutor, pool_is_faster, quick_runs
from assay.score.result import TaskRunResult


@pytest.fixture(scope="module")
def by_workers(shop) -> dict[int, Any]:
    outcomes = {}
    for workers in (1, 2):
        planned = prepare(shop, "reference", repeats=2)
        executor = ProcessExecutor(workers) if workers > 1 else SerialExecutor()
        told: list[tuple[str, str]] = []
        outcome = run_benchmark(
            shop,
            "reference",
            planned,
            repeats=2,
            executor=executor,
            on_start=lambda run, told=told: told.append(("start", run.id)),
            on_result=lambda result, told=told: told.append(("result", result.id)),
        )
        outcomes[workers] = (outcome, planned, told)
    return outcomes


def test_results_are_identical_whatever_the_number_of_workers(by_workers) -> None:
    one, two = comparable(by_workers[1][0]), comparable(by_workers[2][0])
    assert one == two
    assert len(one[1]) == 30 and one[0]["outcomes"]["verified"] == 30


def test_results_come_back_in_the_planned_order(by_workers) -> None:
    order = [(run.task_id, run.repeat) for run in by_workers[2][0].task_runs]
    assert order == sorted(order)


@pytest.mark.parametrize("workers", [1, 2])
def test_each_task_run_is_told_started_once_before_its_result(by_workers, workers) -> None:
    _, planned, told = by_workers[workers]
    assert sorted(told) == sorted(
        [("start", run.id) for run in planned] + [("result", run.id) for run in planned]
    )
    for run in planned:
        assert told.index(("start", run.id)) < told.index(("result", run.id))
    if workers == 1:
        assert told == [(kind, run.id) for run in planned for kind in ("start", "result")]


def test_a_noop_run_in_workers_matches_too(shop) -> None:
    outcomes = []
    for executor in (SerialExecutor(), ProcessExecutor(2)):
        planned = prepare(shop, "noop", ["update-address", "goodwill-credit"])
        outcomes.append(comparable(run_benchmark(shop, "noop", planned, executor=executor)))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize(
    ("workers", "runs", "kind", "count"),
    [
        (1, 30, SerialExecutor, None),
        (4, 1, SerialExecutor, None),
        (2, 30, ProcessExecutor, 2),
        (
            None,
            30,
            ProcessExecutor if (os.cpu_count() or 1) > 1 else SerialExecutor,
            os.cpu_count(),
        ),
    ],
)
def test_executor_for(workers, runs, kind, count) -> None:
    executor = executor_for(workers, runs)
    assert isinstance(executor, kind)
    if count is not None and isinstance(executor, ProcessExecutor):
        assert executor.workers == count


MANY_CORES = pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="a pool needs two cores")


def test_a_small_plan_of_quick_task_runs_runs_in_one_process() -> None:
    assert isinstance(executor_for(None, 15, quick=True), SerialExecutor)


@MANY_CORES
def test_a_big_plan_of_quick_task_runs_is_timed_before_a_pool_is_chosen() -> None:
    executor = executor_for(None, 100_000, quick=True)
    assert isinstance(executor, SampledExecutor)
    assert executor.cores == os.cpu_count()


@MANY_CORES
def test_a_small_plan_of_slow_task_runs_gets_a_pool() -> None:
    assert isinstance(executor_for(None, 15, quick=False), ProcessExecutor)


def test_workers_asked_for_are_kept_however_small_the_plan() -> None:
    executor = executor_for(2, 15, quick=True)
    assert isinstance(executor, ProcessExecutor)
    assert executor.workers == 2


@pytest.mark.parametrize(
    ("runs", "run_s", "cores", "pooled"),
    [
        (1_000, 0.0008, 2, False),  # bench/versus.py's world: a pool of two never catches up
        (100_000, 0.0008, 2, False),
        (100_000, 0.0025, 2, True),  # bench/retail.py's: worth it once the start is paid for
        (300, 0.0025, 2, False),
        (1_000, 0.0008, 16, False),  # the main process's share caps what 16 workers give
        (10_000, 0.0008, 16, True),
        (100, 0.05, 2, True),  # slow tools: a pool pays for its start within a few task runs
        (10, 0.05, 2, False),
        (1_000_000, 0.05, 1, False),  # one core: never
    ],
)
def test_a_pool_is_chosen_when_it_would_finish_sooner(runs, run_s, cores, pooled) -> None:
    assert pool_is_faster(runs, run_s, cores) is pooled


@pytest.mark.parametrize(
    ("agent", "quick"),
    [
        ("reference", True),
        ("noop", True),
        ("wrong:x", True),
        ("model:gpt", False),
        ("cli:x", False),
    ],
)
def test_scripted_agents_on_a_database_world_are_quick(shop, agent, quick) -> None:
    assert quick_runs(shop, agent) is quick


def test_ctrl_c_cancels_and_keeps_finished_task_runs(shop) -> None:
    planned = prepare(shop, "reference", repeats=4)
    seen: list[TaskRunResult] = []

    def interrupt(result: TaskRunResult) -> None:
        seen.append(result)
        if len(seen) == 1:
            raise KeyboardInterrupt

    outcome = run_benchmark(
        shop,
        "reference",
        planned,
        repeats=4,
        executor=ProcessExecutor(2),
        on_result=interrupt,
    )
    assert outcome.benchmark_run.phase == "cancelled"
    assert 1 <= len(outcome.task_runs) < len(planned)
    assert all(run.outcome == "verified" for run in outcome.task_runs)


DIES_IN_A_WORKER = """
import multiprocessing
import os
import signal

if multiprocessing.parent_process() is not None:  # loaded again in a worker: killed there
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_worker_killed_as_it_starts_is_one_line_not_a_reset_traceback(tmp_path) -> None:
    """It died with a task run unread in its pipe: the parent read a bare ConnectionResetError."""
    import subprocess
    import sys
    from pathlib import Path

    from worldkit import DESK_TOOLS, write_world

    root = write_world(tmp_path / "w", tools=DIES_IN_A_WORKER + DESK_TOOLS)
    assay = Path(sys.executable).parent / "assay"
    env = {**os.environ, "ASSAY_HOME": str(tmp_path / "home")}
    ran = subprocess.run(
        [str(assay), "run", str(root), "--workers", "2", "--repeats", "2"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert ran.returncode == 1, ran.stderr
    assert ran.stderr.startswith("error: a worker ended (exit code -9) in task run tr_"), ran.stderr
    assert ran.stderr.count("\n") == 1, ran.stderr
