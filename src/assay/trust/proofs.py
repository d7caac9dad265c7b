"""The proofs that run a task: pure functions from task-run results to a Proof."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assay.formats.task import TaskSpec
from assay.score.result import TaskRunResult
from assay.trust.diff import differences
from assay.trust.findings import Proof
from assay.trust.record import run_record


def noop_proof(result: TaskRunResult) -> tuple[Proof, list[str]]:
    """With nothing done the task is not verified; also the goal checks that pass anyway."""
    goals = [check for check in result.checks if check.type == "goal"]
    idle = [check.name for check in goals if check.passed]
    outcome = proved_outcome(result)
    if outcome == "not_scored":
        return Proof.failed(f"with nothing done, {_unscored(result)}"), idle
    if outcome == "verified":
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
    outcome = proved_outcome(result)
    if outcome == "verified":
        return Proof.passed(notes=_by_metrics(result))
    if outcome == "not_scored":
        return Proof.failed(f"the reference solution {_unscored(result)}")
    return Proof.failed(
        f"the reference solution is {_words(outcome)}", *_failing(result), *_by_metrics(result)
    )


def wrong_proof(task: TaskSpec, results: Mapping[str, TaskRunResult]) -> Proof:
    """Each wrong solution is not verified: careless work is caught."""
    if not task.wrong:
        return Proof.passed(warnings=["the task has no wrong solutions to try"])
    reasons, notes = [], []
    for name, result in results.items():
        outcome = proved_outcome(result)
        notes.append(f"{name!r}: {_words(outcome)}")
        if outcome == "verified":
            reasons.append(f"wrong solution {name!r} is verified")
        elif outcome == "not_scored":
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
    verified = sum(proved_outcome(found) == "verified" for found in results)
    if verified:
        if len(results) > 1:
            notes.append(f"verified in {verified} of {len(results)} tries")
        return Proof.passed(notes=notes)
    last = results[-1]
    tries = f" in all {len(results)} tries" if len(results) > 1 else ""
    if proved_outcome(last) == "not_scored":
        why = [f"{agent} {_unscored(last)}"]
    else:
        why = [f"{agent} is {_words(proved_outcome(last))}", *_failing(last)]
    return Proof.failed(f"{WITHDRAWN_CANDIDATE}: {agent} failed{tries}", *why, notes=notes)


def _note(agent: str, result: TaskRunResult) -> str:
    score = "—" if result.score is None else f"{result.score:.2f}"
    return f"{agent}: {_words(proved_outcome(result))}, score {score}, {result.summary.turns} turns"


def proved_outcome(result: TaskRunResult) -> str:
    """The outcome a proof judges: the run's own, but for a container-format run scored with several
    metrics and no primary reward (not scored by design, docs/contracts/container.md §5, row 10),
    judged by its metrics: verified when each reaches the pass threshold, else not achieved."""
    rewards, threshold = _metrics_alone(result)
    if not rewards:
        return result.outcome
    return "verified" if all(value >= threshold for value in rewards.values()) else "not_achieved"


def _metrics_alone(result: TaskRunResult) -> tuple[dict[str, float], float]:
    """The metrics of a run scored with no primary reward (else none), and the pass threshold."""
    if result.outcome != "not_scored" or result.error is not None:
        return {}, 1.0
    for check in result.checks:
        evidence = check.evidence or {}
        scored = check.kind == "script" and evidence.get("status") == "SCORED"
        if scored and evidence.get("primary") is None:
            return dict(evidence.get("rewards") or {}), float(evidence["pass_threshold"])
    return {}, 1.0


def _by_metrics(result: TaskRunResult) -> list[str]:
    """How a run with no primary reward was judged, when it was."""
    rewards, threshold = _metrics_alone(result)
    if not rewards:
        return []
    shown = ", ".join(f"{name} {value:g}" for name, value in sorted(rewards.items()))
    return [f"no primary reward: judged by every metric reaching {threshold:g} ({shown})"]


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
