"""Several task runs in flight at once in one process, for agents that mostly wait (a model's
latency): threads, because the model client, the world's copies and the checks are all blocking
calls that release the interpreter while they wait, and a thread per task run needs no change to
any of them. Starts and results are reported in the calling thread, as every executor does."""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable, Sequence

from assay.runs.execute import OnResult, OnStart, Stop
from assay.runs.plan import PlannedRun
from assay.score.result import TaskRunResult

RunOne = Callable[[PlannedRun], TaskRunResult]


def run_concurrently(
    planned: Sequence[PlannedRun],
    run_one: RunOne,
    concurrency: int,
    on_start: OnStart,
    on_result: OnResult,
    stop: Stop,
) -> None:
    """Run up to `concurrency` task runs at once until all are done; after a stop, those in
    flight finish and are reported, then KeyboardInterrupt (if some never began)."""
    waiting = deque(planned)
    done: queue.Queue[tuple[PlannedRun, TaskRunResult | None, BaseException | None]] = queue.Queue()
    in_flight = 0

    def work(run: PlannedRun) -> None:
        try:
            done.put((run, run_one(run), None))
        except BaseException as error:  # handed to the calling thread
            done.put((run, None, error))

    def start_more() -> None:
        nonlocal in_flight
        while waiting and in_flight < concurrency and not stop.requested:
            run = waiting.popleft()
            on_start(run)
            in_flight += 1
            threading.Thread(target=work, args=(run,), daemon=True, name="assay-task-run").start()

    failure: BaseException | None = None
    start_more()
    while in_flight:
        try:
            _, result, error = done.get(timeout=0.5)
        except queue.Empty:
            continue
        except KeyboardInterrupt:
            if stop.requested:
                raise
            stop.requested = True
            continue
        in_flight -= 1
        if error is not None:
            failure = failure or error
            stop.requested = True
            continue
        assert result is not None
        on_result(result)
        start_more()
    if failure is not None:
        raise failure
    if waiting:
        raise KeyboardInterrupt  # stopped before these began
