"""Quick task runs with no number of workers asked for: the first ones run in this process, timed,
and a pool takes the rest only when it would finish them sooner. Either way every planned task run
runs once, told started before its result, with the results a single process gives."""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest
from comparekit import comparable

from assay.runs import SerialExecutor, prepare, run_benchmark
from assay.runs import execute as executing
from assay.runs.execute import SAMPLE_RUNS, SampledExecutor
from assay.runs.plan import PlannedRun
from assay.score.result import TaskRunResult


def _run(shop: Any, executor: Any, **callbacks: Any) -> tuple[Any, list[PlannedRun]]:
    planned = prepare(shop, "reference", repeats=2)  # 30 task runs: 20 timed, 10 more
    outcome = run_benchmark(shop, "reference", planned, repeats=2, executor=executor, **callbacks)
    return outcome, planned


def _told_run(shop: Any, executor: Any) -> tuple[Any, list[PlannedRun], list[tuple[str, str]]]:
    """`_run`, with each start and result told, in order."""
    told: list[tuple[str, str]] = []
    outcome, planned = _run(
        shop,
        executor,
        on_start=lambda run: told.append(("start", run.id)),
        on_result=lambda result: told.append(("result", result.id)),
    )
    return outcome, planned, told


def test_quick_task_runs_on_two_cores_stay_in_this_process(shop) -> None:
    executor = SampledExecutor(cores=2)
    outcome, planned, told = _told_run(shop, executor)
    assert not executor.pooled  # a millisecond a task run: a pool of two would finish later
    assert told == [(kind, run.id) for run in planned for kind in ("start", "result")]
    assert comparable(outcome) == comparable(_run(shop, SerialExecutor())[0])


def test_the_rest_goes_to_a_pool_when_the_timing_says_it_is_sooner(shop, monkeypatch) -> None:
    asked: list[tuple[int, float, int]] = []

    def sooner(runs: int, run_s: float, cores: int) -> bool:
        asked.append((runs, run_s, cores))
        return True

    monkeypatch.setattr(executing, "pool_is_faster", sooner)
    executor = SampledExecutor(cores=2)
    outcome, planned, told = _told_run(shop, executor)
    assert executor.pooled
    ((runs, run_s, cores),) = asked
    assert (runs, cores) == (len(planned) - SAMPLE_RUNS, 2) and 0 < run_s < 1
    for run in planned:
        assert told.count(("start", run.id)) == told.count(("result", run.id)) == 1
        assert told.index(("start", run.id)) < told.index(("result", run.id))
    assert comparable(outcome) == comparable(_run(shop, SerialExecutor())[0])


@pytest.mark.parametrize("stopped_in", [5, SAMPLE_RUNS])
@pytest.mark.usefixtures("plain_handlers")
def test_a_stop_while_timing_starts_nothing_after(shop, stopped_in) -> None:
    """Ctrl-C during a timed task run (the last one too) lets it finish and begins no other."""
    began: list[PlannedRun] = []

    def start(run: PlannedRun) -> None:
        began.append(run)
        if len(began) == stopped_in:
            os.kill(os.getpid(), signal.SIGINT)

    finished: list[TaskRunResult] = []
    outcome, planned = _run(
        shop, SampledExecutor(cores=2), on_start=start, on_result=finished.append
    )
    assert outcome.benchmark_run.phase == "cancelled"
    assert len(began) == len(finished) == stopped_in < len(planned)
