"""The part of a task run that must not change when it is repeated: what grades it, never ids,
times or free text (a test script's output holds its run time: `2 passed in 0.63s`)."""

from __future__ import annotations

import json
from typing import Any

from assay.score.result import TaskRunResult
from assay.verify.check_run import CheckRun
from assay.verify.script import GRADED_EVIDENCE


def run_record(result: TaskRunResult) -> dict[str, Any]:
    """Outcome, check runs, summary and final-state hash, in the JSON form a baseline file holds."""
    record = {
        "outcome": result.outcome,
        "reward": result.reward,
        "score": result.score,
        "verdict": result.verdict,
        "passed": result.passed,
        "checks": [_graded(check) for check in result.checks],
        "summary": result.summary.model_dump(mode="json"),
        "final_state_hash": result.final_state_hash,
        "error": None if result.error is None else result.error.model_dump(mode="json"),
    }
    # Through JSON and back, so a fresh record compares equal to one read from a file.
    return json.loads(json.dumps(record, sort_keys=True, default=str))


def _graded(check: CheckRun) -> dict[str, Any]:
    """The check run as JSON; a script check's evidence only where it grades (status, rewards,
    reason…), not the test's output, its exit code, the sandbox's notes or the artifact list."""
    found = check.as_json()
    evidence = found.get("evidence")
    if check.kind == "script" and isinstance(evidence, dict):
        found["evidence"] = {key: evidence[key] for key in GRADED_EVIDENCE if key in evidence}
    return found
