"""A stop from Python: the first SIGINT or SIGTERM starts nothing new and keeps what is in flight;
the second stops at once."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from assay.runs import ProcessExecutor, SerialExecutor, prepare, run_benchmark
from assay.runs.execute import stopping
from assay.score.result import TaskRunResult

NAP = f"{Path(__file__).parents[1] / 'e2e' / 'nap_agent.py'}:NapAgent"  # 0.5 s per task run


pytestmark = pytest.mark.usefixtures("plain_handlers")


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("workers", [1, 2])
def test_a_signal_after_the_first_result_keeps_only_what_had_begun(shop, workers, number):
    planned = prepare(shop, NAP, ["update-address", "goodwill-credit", "email-tracking"], repeats=2)
    started: list[str] = []
    finished: list[str] = []
    handler = signal.getsignal(number)

    def signal_once(result: TaskRunResult) -> None:
        finished.append(result.id)
        if len(finished) == 1:
            os.kill(os.getpid(), number)

    executor = SerialExecutor() if workers == 1 else ProcessExecutor(workers)
    outcome = run_benchmark(
        shop,
        NAP,
        planned,
        executor=executor,
        on_start=lambda run: started.append(run.id),
        on_result=signal_once,
    )
    assert outcome.benchmark_run.phase == "cancelled"
    # one had finished at the signal; those in flight then finished too; nothing began after
    assert [run.id for run in outcome.task_runs] == [run.id for run in planned[: len(started)]]
    assert 1 <= len(started) <= workers
    assert signal.getsignal(number) == handler  # the caller's own again


def test_a_signal_the_caller_ignores_stays_ignored():
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        with stopping() as stop:
            assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGINT) == stop.ask
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_second_signal_stops_at_once():
    with stopping() as stop, pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        assert stop.requested
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)  # the handler runs before this ends
