"""The proofs that run a task, as pure functions of its results: thresholds and messages."""

from __future__ import annotations

import pytest
from trustkit import check_run, result

from assay.formats.task import TaskSpec
from assay.taskrun.rollout import RunError
from assay.trust.proofs import live_proof, noop_proof, reference_proof, replay_proof, wrong_proof


def task(**extra) -> TaskSpec:
    return TaskSpec.model_validate(
        {"id": "t", "title": "t", "role": "r", "customer": {"request": "x"}, **extra}
    )


@pytest.mark.parametrize(
    ("goals", "warned"),
    [
        ([False], False),
        ([True, False], False),  # half is not most
        ([True, True, False], True),
        ([True, False, False], False),
        ([True, True, True, False], True),
        ([True, True, False, False], False),
    ],
)
def test_a_warning_when_most_goals_pass_with_nothing_done(goals, warned):
    checks = [check_run(f"goal {i}", passed=p) for i, p in enumerate(goals)]
    proof, idle = noop_proof(result([*checks, check_run("rule", "rule", True)]))
    assert proof.status == "passed"
    assert idle == [f"goal {i}" for i, p in enumerate(goals) if p]
    assert bool(proof.warnings) is warned


def test_idle_rules_and_optional_checks_are_not_idle_goals():
    checks = [check_run("g", passed=False), check_run("r", "rule"), check_run("o", "optional")]
    proof, idle = noop_proof(result(checks))
    assert idle == []
    assert proof.notes == []


def test_noop_verified_fails():
    proof, idle = noop_proof(result([check_run("g")]))
    assert proof.status == "failed"
    assert idle == ["g"]


def test_noop_not_scored_fails_with_the_error():
    error = RunError(side="world", message="tool crashed")
    proof, _ = noop_proof(result([], error=error))
    assert proof.reasons == ["with nothing done, could not be scored (world failed: tool crashed)"]


def test_noop_that_violates_a_rule_is_still_not_verified():
    proof, _ = noop_proof(result([check_run("g"), check_run("r", "rule", False)]))
    assert proof.status == "passed"


def test_reference_rule_violated_names_the_rule():
    solution = {"solution": {"steps": [{"finish": "done"}]}}
    checks = [
        check_run("g"),
        check_run("r", "rule", False, "1 refund"),
        check_run("o", "optional", False),
    ]
    proof = reference_proof(task(**solution), result(checks))
    assert proof.reasons == ["the reference solution is rule violated", "✗ r: 1 refund"]


def test_no_wrong_solutions_passes_with_a_warning():
    proof = wrong_proof(task(), {})
    assert proof.status == "passed"
    assert proof.warnings == ["the task has no wrong solutions to try"]


def test_a_wrong_solution_that_violates_a_rule_is_caught_not_failed():
    wrongs = {"careless": result([check_run("g"), check_run("r", "rule", False)])}
    proof = wrong_proof(task(wrong=[{"name": "careless", "steps": []}]), wrongs)
    assert proof.status == "passed"
    assert proof.notes == ["'careless': rule violated"]


def test_replay_reports_each_difference():
    first = result([check_run("g", passed=True)], state="aaa", turns=2)
    second = result([check_run("g", passed=False)], state="bbb", turns=3)
    proof = replay_proof(first, second)
    assert proof.status == "failed"
    prefix = "two runs of the reference differ: "
    assert proof.reasons == [
        prefix + "check 'g': evidence.actual: 1 → 0",
        prefix + "check 'g': passed: true → false",
        prefix + "check 'g': score: 1.0 → 0.0",
        prefix + 'final_state_hash: "aaa" → "bbb"',
        prefix + 'outcome: "verified" → "not_achieved"',
        prefix + "passed: true → false",
        prefix + "reward: 1 → 0",
        prefix + "score: 1.0 → 0.0",
        prefix + "summary.turns: 2 → 3",
        prefix + 'verdict: "pass" → "fail"',
    ]


def test_identical_runs_replay():
    assert replay_proof(result([check_run("g")]), result([check_run("g")])).status == "passed"


def test_live_is_skipped_without_an_agent():
    proof = live_proof(None, None, None)
    assert proof.status == "skipped"
    assert proof.reasons == ["no live agent (use --live AGENT)"]


def test_live_verified_passes_with_a_note():
    proof = live_proof("my.agent:Agent", result([check_run("g")]), None)
    assert proof.status == "passed"
    assert proof.notes == ["my.agent:Agent: verified, score 1.00, 1 turns"]
