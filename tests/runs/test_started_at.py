"""A task run's started_at is when it began, not when it was graded."""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path

from assay.runs import prepare, run_benchmark

NAP = f"{Path(__file__).parents[1] / 'e2e' / 'nap_agent.py'}:NapAgent"  # 0.5 s per task run


def _seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def test_started_at_is_when_the_task_run_began(shop):
    (run,) = prepare(shop, NAP, ["update-address"])
    before = time.time()
    (result,) = run_benchmark(shop, NAP, [run]).task_runs
    after = time.time()
    began = _seconds(result.started_at)
    # It began before the agent's half-second nap, so not when it was graded (the agent's own
    # process starting first takes a machine-dependent while, so `before` is no tight bound).
    assert before - 0.01 <= began <= after - 0.45
    assert result.duration_s >= 0.5 and abs(began + result.duration_s - after) < 0.3
