"""Proofs of container-format task runs: replay compares what grades, never the test's output,
and a task scored with several metrics and no primary reward is proved by its metrics."""

from __future__ import annotations

from typing import Any

from trustkit import result

from assay.formats.task import TaskSpec
from assay.score.result import TaskRunResult
from assay.trust.proofs import noop_proof, proved_outcome, reference_proof, replay_proof
from assay.trust.record import run_record
from assay.verify.check_run import CheckRun

SOLVED = TaskSpec.model_validate(
    {
        "id": "t",
        "title": "t",
        "role": "agent",
        "customer": {"request": "x"},
        "solution": {"steps": [{"finish": ""}]},
    }
)


def script_check(passed: bool = True, **evidence: Any) -> CheckRun:
    found = {
        "status": "SCORED",
        "rewards": {"reward": 1.0},
        "primary": 1.0,
        "source": "reward.txt",
        "reason": None,
        "pass_threshold": 1.0,
        "exit_code": 0,
        "notes": ["public through pasta (pid 4242)"],
        "artifacts": [],
        "test_stdout_tail": "4 passed in 0.80s",
        "agent_acted": True,
        "failure_side": None,
        **evidence,
    }
    return CheckRun(
        name="the test script's reward",
        type="goal",
        kind="script",
        weight=1.0,
        axis=None,
        passed=passed,
        score=1.0 if passed else 0.0,
        details="primary reward 1 reaches the pass threshold 1",
        evidence=found,
    )


def no_primary(**rewards: float) -> CheckRun:
    return script_check(passed=False, rewards=rewards, primary=None, source="reward.json")


def unscored(check: CheckRun) -> TaskRunResult:
    """A run whose script check left it not scored, as grading leaves it (no error: by design)."""
    update = {"outcome": "not_scored", "reward": None, "score": None, "verdict": None}
    return result([check]).model_copy(update=update)


def test_replay_ignores_the_tests_output_exit_code_and_notes():
    first = result([script_check()])
    second = result(
        [script_check(test_stdout_tail="4 passed in 0.63s", notes=["pid 17"], exit_code=1)]
    )
    assert replay_proof(first, second).status == "passed"


def test_replay_still_compares_rewards_and_the_status():
    first = result([script_check()])
    second = result([script_check(status="INDETERMINATE", reason="verifier timeout")])
    reasons = replay_proof(first, second).reasons
    assert (
        'two runs of the reference differ: check "the test script\'s reward": '
        + ('evidence.status: "SCORED" → "INDETERMINATE"')
        in reasons
    )


def test_the_record_keeps_only_the_graded_evidence():
    (check,) = run_record(result([script_check()]))["checks"]
    assert sorted(check["evidence"]) == [
        "agent_acted",
        "failure_side",
        "pass_threshold",
        "primary",
        "reason",
        "rewards",
        "source",
        "status",
    ]


def test_a_run_with_no_primary_is_proved_by_every_metric():
    solved = unscored(no_primary(correctness=1.0, speed=1.0))
    assert solved.outcome == "not_scored"  # by design: no primary reward to score it by
    assert proved_outcome(solved) == "verified"
    proof = reference_proof(SOLVED, solved)
    assert proof.status == "passed"
    assert proof.notes == [
        "no primary reward: judged by every metric reaching 1 (correctness 1, speed 1)"
    ]


def test_one_metric_short_is_not_achieved():
    half = unscored(no_primary(correctness=1.0, speed=0.0))
    assert proved_outcome(half) == "not_achieved"
    proof = reference_proof(SOLVED, half)
    assert proof.status == "failed"
    assert proof.reasons[0] == "the reference solution is not achieved"
    assert proof.reasons[-1].endswith("(correctness 1, speed 0)")
    assert noop_proof(half)[0].status == "passed"


def test_a_run_not_scored_for_another_reason_stays_not_scored():
    timed_out = unscored(script_check(passed=False, status="INDETERMINATE", primary=None))
    assert proved_outcome(timed_out) == "not_scored"
