"""The proofs that run a task: pure functions from task-run results to a Proof."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assay.score.result import TaskRunResult
from assay.spec.task import TaskSpec
from assay.trust.diff import differences
from assay.trust.model import Proof
from assay.trust.record import run_record


def noop_proof(result: TaskRunResult) -> tuple[Proof, list[str]]:
    """With nothing done the task is not verified; also the goal checks that pass anyway."""
    goals = [check for check in result.checks if check.type == "goal"]
    idle = [check.name for check in goals if check.passed]
    if result.outcome == "not_scored":
        return Proof.failed(f"with nothing done, {_unscored(result)}"), idle
    if result.outcome == "verified":
        return Proof.failed("verified with nothing done: the task passes by itself"), idle
    notes = []
    if idle:
        names = ", ".join(repr(name) for name in idle)
        notes.append(f"{len(idle)} of {len(goals)} goal checks pass with nothing done: {names}")
    warnings = []
    if len(idle) * 2 > len(goals):
        warnings.append(
            f"most goal checks pass with nothing done ({len(idle)} of {len(goals)}); "
            "one failing goal is all that stands between doing nothing and a pass"
        )
    return Proof.passed(warnings=warnings, notes=notes), idle


def reference_proof(task: TaskSpec, result: TaskRunResult | None) -> Proof:
    """The reference solution is verified: the task can be done with the tools the role has."""
    if task.solution is None or result is None:
        return Proof.failed("the task has no [solution]")
    if result.outcome == "verified":
        return Proof.passed()
    if result.outcome == "not_scored":
        return Proof.failed(f"the reference solution {_unscored(result)}")
    return Proof.failed(f"the reference solution is {_words(result.outcome)}", *_failing(result))


def wrong_proof(task: TaskSpec, results: Mapping[str, TaskRunResult]) -> Proof:
    """Each wrong solution is not verified: careless work is caught."""
    if not task.wrong:
        return Proof.passed(warnings=["the task has no wrong solutions to try"])
    reasons, notes = [], []
    for name, result in results.items():
        notes.append(f"{name!r}: {_words(result.outcome)}")
        if result.outcome == "verified":
            reasons.append(f"wrong solution {name!r} is verified")
        elif result.outcome == "not_scored":
            reasons.append(f"wrong solution {name!r} {_unscored(result)}")
    return Proof.failed(*reasons, notes=notes) if reasons else Proof.passed(notes=notes)


def replay_proof(first: TaskRunResult | None, second: TaskRunResult | None) -> Proof:
    """Two runs of the reference give identical check runs, summary and final state."""
    if first is None or second is None:
        return Proof.skipped("no [solution] to replay")
    changes = differences(run_record(first), run_record(second))
    if not changes:
        return Proof.passed()
    return Proof.failed(*(f"two runs of the reference differ: {change}" for change in changes))


WITHDRAWN_CANDIDATE = "withdrawn candidate"


def live_proof(
    agent: str | None,
    result: TaskRunResult | Sequence[TaskRunResult] | None,
    refused: str | None,
) -> Proof:
    """What a live agent made of the task in one or more tries; informational, never held against
    the task — but a task no try verified is marked a withdrawn candidate, with why."""
    if agent is None:
        return Proof.skipped("no live agent (use --live AGENT)")
    results = [result] if isinstance(result, TaskRunResult) else list(result or [])
    if not results:
        return Proof.skipped(refused or f"{agent} did not run")
    notes = [_note(agent, found) for found in results]
    verified = sum(found.outcome == "verified" for found in results)
    if verified:
        if len(results) > 1:
            notes.append(f"verified in {verified} of {len(results)} tries")
        return Proof.passed(notes=notes)
    last = results[-1]
    tries = f" in all {len(results)} tries" if len(results) > 1 else ""
    if last.outcome == "not_scored":
        why = [f"{agent} {_unscored(last)}"]
    else:
        why = [f"{agent} is {_words(last.outcome)}", *_failing(last)]
    return Proof.failed(f"{WITHDRAWN_CANDIDATE}: {agent} failed{tries}", *why, notes=notes)


def _note(agent: str, result: TaskRunResult) -> str:
    score = "—" if result.score is None else f"{result.score:.2f}"
    return f"{agent}: {_words(result.outcome)}, score {score}, {result.summary.turns} turns"


def _failing(result: TaskRunResult) -> list[str]:
    return [
        f"✗ {check.name}" + (f": {check.details}" if check.details else "")
        for check in result.checks
        if check.type in ("goal", "rule") and not check.passed
    ]


def _unscored(result: TaskRunResult) -> str:
    error = result.error
    why = f"{error.side} failed: {error.message}" if error is not None else "not scored"
    return f"could not be scored ({why})"


def _words(outcome: str) -> str:
    return outcome.replace("_", " ")
