"""The part of a task run that must not change when it is repeated: no ids, no times."""

from __future__ import annotations

import json
from typing import Any

from assay.score.result import TaskRunResult


def run_record(result: TaskRunResult) -> dict[str, Any]:
    """Outcome, check runs, summary and final-state hash, in the JSON form a baseline file holds."""
    record = {
        "outcome": result.outcome,
        "reward": result.reward,
        "score": result.score,
        "verdict": result.verdict,
        "passed": result.passed,
        "checks": [check.as_json() for check in result.checks],
        "summary": result.summary.model_dump(mode="json"),
        "final_state_hash": result.final_state_hash,
        "error": None if result.error is None else result.error.model_dump(mode="json"),
    }
    # Through JSON and back, so a fresh record compares equal to one read from a file.
    return json.loads(json.dumps(record, sort_keys=True, default=str))
