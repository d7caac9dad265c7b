"""Grade a task run that has ended: freeze the world, run the checks, score, summarise."""

from __future__ import annotations

import time
from typing import Any, Required, TypedDict, Unpack

from assay.errors import CheckError
from assay.formats.task import TaskSpec
from assay.provider import Usage
from assay.runs.stamps import now
from assay.score.result import Status, TaskRunResult
from assay.score.script import ScriptStanding, script_standing
from assay.score.summary import Summary, summarize, with_usage
from assay.score.task import TaskScore, score_task
from assay.taskrun.rollout import Rollout, RunError
from assay.taskrun.session import Session
from assay.verify.check_run import CheckRun
from assay.verify.context import VerifyContext
from assay.verify.python import Verifiers
from assay.verify.run import run_checks
from assay.verify.views import ReadView
from assay.world.database import WorldCopy
from assay.world.diff import StateChanges, state_changes
from assay.world.starting import StartingState

DUPLICATES = "SELECT count(*) FROM sandbox_requests WHERE duplicate_of IS NOT NULL"


class Naming(TypedDict, total=False):
    """How a result names its task run; started: the `time.perf_counter()` its duration is
    measured from (none: a duration of 0)."""

    run_id: Required[str]
    repeat: int
    agent: str
    started: float | None


def grade(session: Session, verifiers: Verifiers, **naming: Unpack[Naming]) -> TaskRunResult:
    """The task run's result. Checks run whatever ended the run; a failure on either side is not
    scored, but for a verifier the agent may have broken (`assay.verify.blame`)."""
    if not session.done:
        session.end("cancelled")
    rollout = session.rollout()
    live = session.live
    live.freeze()
    context = _verify_context(session, rollout)
    error = rollout.error
    checks: list[CheckRun] = []
    try:
        checks = run_checks(context, verifiers)
    except CheckError as failure:
        error = error or RunError(side="scoring", message=str(failure))
    duplicates = _duplicates(live.db, session.world.starting)
    changes = _state_changes(session)
    standing = script_standing(checks)
    error, blamed = _script_error(standing, error)
    unscored = standing is not None and not standing.has_primary
    scored = score_task(checks, scored=(error is None or blamed) and not unscored)
    if standing is not None:
        scored.axes = standing.axes
    final_state_hash = live.run.state_digest()
    contacts = session.task.max_contacts
    summary = summarize(
        rollout, scored.outcome, checks, duplicates, contacts, verifier_blamed=blamed
    )
    usage = context.usage.plus(getattr(session.customer, "usage", Usage()))  # judge, customer
    return _result(
        session.task,
        naming,
        scored,
        status=_status(rollout, error if not blamed else None),
        checks=checks,
        summary=with_usage(summary, usage),
        output=rollout.output,
        error=error,
        final_state_hash=final_state_hash,
        changes=changes,
        trajectory=rollout.trajectory(),
    )


def world_failed(task: TaskSpec, message: str, **naming: Unpack[Naming]) -> TaskRunResult:
    """The result of a task run whose world could not even be set up: not scored, nothing run."""
    return _result(
        task,
        naming,
        TaskScore(
            outcome="not_scored",
            reward=None,
            score=None,
            verdict=None,
            passed=False,
            fraction=0.0,
            axes={},
        ),
        status="failed",
        checks=[],
        summary=Summary(
            false_completion=False,
            duplicate_effects=0,
            faults=0,
            recovered=False,
            unnecessary_interruptions=0,
            rejected_attempts=0,
            turns=0,
            termination="world_error",
        ),
        output="",
        error=RunError(side="world", message=message),
        final_state_hash="",
    )


def _result(task: TaskSpec, naming: Naming, scored: TaskScore, **fields: Any) -> TaskRunResult:
    """The result of `task`'s run named by `naming`, scored as `scored` says."""
    duration = _since(naming.get("started"))
    return TaskRunResult(
        id=naming["run_id"],
        task_id=task.id,
        title=task.title,
        split=task.split,
        repeat=naming.get("repeat", 0),
        agent=naming.get("agent", ""),
        **{name: getattr(scored, name) for name in TaskScore.model_fields},
        started_at=now(ago_s=duration),
        duration_s=duration,
        **fields,
    )


def _verify_context(session: Session, rollout: Rollout) -> VerifyContext:
    """What the checks read: the frozen world against its start, and how the run ended."""
    live = session.live
    timeout = session.world.spec.check_timeout_s
    return VerifyContext(
        task=session.task,
        final=ReadView(live.db, timeout),
        initial=ReadView(session.world.initial, timeout),
        agent_output=rollout.output,
        request=rollout.request,
        world_run=live.run,
        termination=rollout.termination,
    )


def _state_changes(session: Session) -> StateChanges:
    """The rows the task run changed, over the tables its copy may have written."""
    db = session.live.db
    snapshot = session.world.snapshot
    known = getattr(snapshot, "digests", {})  # a world with no tables has none
    columns = getattr(snapshot, "columns", {})
    tables = {
        table: columns.get(table, ()) for table in known if db.may_have_changed(table.lower())
    }
    return state_changes(session.world.starting, db, tables)


def _script_error(
    standing: ScriptStanding | None, error: RunError | None
) -> tuple[RunError | None, bool]:
    """The task run's error once the script check is read, and whether it is a verifier failure
    blamed on the agent: that one is scored (not achieved), the others leave the run not scored.
    An error from before grading (the world, the agent's process, a check) wins."""
    if error is not None or standing is None:
        return error, False
    if standing.agent_failure is not None:
        return RunError(side="agent", message=standing.agent_failure), True
    if standing.problem is not None:
        return RunError(side="scoring", message=standing.problem), False
    return None, False


def _duplicates(final: WorldCopy, starting: StartingState) -> int:
    """Requests sent again; a copy that never wrote sandbox_requests has those it started with."""
    if final.may_have_changed("sandbox_requests"):
        return int(final.value(DUPLICATES) or 0)
    return int(starting.value(DUPLICATES) or 0)


def _since(started: float | None) -> float:
    """Seconds since `started` (a `time.perf_counter()`); 0 when nobody noted the start."""
    return round(time.perf_counter() - started, 6) if started is not None else 0.0


def _status(rollout: Rollout, error: RunError | None) -> Status:
    if rollout.termination == "cancelled":
        return "cancelled"
    if rollout.termination == "timeout":
        return "timed_out"
    return "failed" if error is not None else "completed"
