"""Task runs over HTTP: start, act, complete, cancel, read. Each action is stored as it is taken, so
a restarted server rebuilds a task run's world by replaying them."""

from __future__ import annotations

from assay.served.auth import Caller
from assay.served.context import Context, Flying
from assay.served.errors import ApiError
from assay.served.finishing import finish_if_done
from assay.served.views import completion
from assay.served.wire import Act, Completion, TaskRunOut
from assay.taskrun.actions import Finish
from assay.taskrun.observation import Observation


class Rejected(ApiError):
    """A call the world refused (unknown tool, a tool the role lacks, bad arguments): the attempt
    counts, and the client gets a 422 with the observation that records it."""

    def __init__(self, code: str, message: str, observation: Observation):
        super().__init__(422, code, message)
        self.observation = observation


def start(context: Context, caller: Caller, task_run_id: str) -> Observation:
    ref = context.task_run(caller, task_run_id)
    if ref.phase != "created":
        raise ApiError(409, "already_started", f"task run {task_run_id} was already started")
    handle = context.open_task_run(ref)
    if not context.progress.start(ref):
        handle.close()
        raise ApiError(409, "already_started", f"task run {task_run_id} was already started")
    context.flying[ref.id] = Flying(handle, ref.benchmark_run_id)
    return handle.observe()


def act(context: Context, caller: Caller, task_run_id: str, body: Act) -> Observation:
    """The action, stored before it is answered. A task run this process holds is acted on first and
    its action stored only if the task run is still started and holds no action at that place (one
    statement, no read); otherwise its copy is dropped and the action goes the way below."""
    flying = context.flying.get(task_run_id)
    if (
        flying is not None
        and not flying.session.done
        and context.may_see(caller, flying.benchmark_run_id)
    ):
        action = body.action()
        observation = flying.handle.act(action)
        if context.progress.record_if_started(task_run_id, flying.recorded, action):
            flying.recorded += 1
            return _answer(observation)
        context.drop(task_run_id)  # another server moved the task run on: its copy is stale
    return _act_from_store(context, caller, task_run_id, body)


def _act_from_store(context: Context, caller: Caller, task_run_id: str, body: Act) -> Observation:
    """The action on the task run as the store has it, replaying its actions if this process's copy
    is missing or behind."""
    ref = context.task_run(caller, task_run_id)
    flying = context.in_flight(ref)
    handle = flying.handle
    if handle.done:
        raise ApiError(
            409,
            "ended",
            f"task run {task_run_id} has ended ({handle.session.termination}); complete it",
        )
    action = body.action()
    observation = handle.act(action)
    if not context.progress.record_action(ref.id, flying.recorded, action):
        context.drop(ref.id)  # this copy took an action the store refused: it is stale now
        raise ApiError(
            409,
            "conflict",
            f"another request acted on task run {ref.id} first; read it again and retry",
        )
    flying.recorded += 1
    return _answer(observation)


def _answer(observation: Observation) -> Observation:
    """The observation, or Rejected for a call the world refused (stored all the same)."""
    rejected = [event for event in observation.events if event.status == "REJECTED"]
    if rejected:
        raise Rejected(rejected[0].code or "rejected", rejected[0].message or "", observation)
    return observation


def complete(
    context: Context, caller: Caller, task_run_id: str, output: str, *, agent: str | None = None
) -> Completion:
    """Finish (unless the run already ended), grade, store, and finish the run if it was the last.

    agent: who drove this task run, if not the run's own agent (an MCP client names itself).

    A task run this process holds is graded on its copy with no read first, and stored only if it
    is still started with exactly the actions the copy took; otherwise the copy is dropped and the
    task run is graded as the store has it.
    """
    flying = context.flying.get(task_run_id)
    if flying is not None and context.may_see(caller, flying.benchmark_run_id):
        done = _finish_and_close(context, caller, task_run_id, flying, output, agent, held=True)
        if done is not None:
            return done
    ref = context.task_run(caller, task_run_id)
    flying = context.in_flight(ref)
    done = _finish_and_close(context, caller, ref.id, flying, output, agent, held=False)
    if done is None:
        raise ApiError(409, "completed", f"task run {ref.id} is already completed")
    return done


def _finish_and_close(
    context: Context,
    caller: Caller,
    task_run_id: str,
    flying: Flying,
    output: str,
    agent: str | None,
    *,
    held: bool,
) -> Completion | None:
    if not flying.handle.done:
        flying.handle.act(Finish(finish=output))
    hide = context.hides(caller, flying.benchmark_run_id, flying.handle.task.id)
    return _close(context, task_run_id, flying, agent=agent, hide=hide, held=held)


def cancel_task_run(
    context: Context,
    caller: Caller,
    task_run_id: str,
    *,
    finish_run: bool = True,
    agent: str | None = None,
) -> TaskRunOut:
    """A started task run is ended as cancelled and graded for the record (it does not count in the
    aggregate); one never started is closed with nothing to grade."""
    ref = context.task_run(caller, task_run_id)
    if ref.phase == "completed":
        raise ApiError(409, "completed", f"task run {task_run_id} is already completed")
    if ref.phase == "created":
        context.progress.cancel_unstarted(ref.id)
    else:
        flying = context.in_flight(ref)
        flying.handle.cancel()
        if _close(context, ref.id, flying, finish_run=False, agent=agent) is None:
            raise ApiError(409, "completed", f"task run {ref.id} is already completed")
    if finish_run:
        finish_if_done(context, ref.benchmark_run_id)
    return view_task_run(context, caller, task_run_id)


def view_task_run(context: Context, caller: Caller, task_run_id: str) -> TaskRunOut:
    ref = context.task_run(caller, task_run_id)
    info = context.run_info(ref.benchmark_run_id)
    result = None
    if ref.phase == "completed":
        found = context.store.results(ref.benchmark_run_id, task=ref.id)
        if found:
            ids = [check.id for check in context.progress.check_runs(ref.id, -1, 10_000)]
            hide = context.hides(caller, ref.benchmark_run_id, ref.task_id)
            result = completion(found[0], ids, hide=hide)
    task = info.benchmark.tasks.get(ref.task_id)
    return TaskRunOut(
        id=ref.id,
        benchmark_run_id=ref.benchmark_run_id,
        task_id=ref.task_id,
        name=task.title if task else ref.task_id,
        repeat=ref.repeat,
        phase=ref.phase,
        status=ref.status,
        result=result,
    )


def _close(
    context: Context,
    task_run_id: str,
    flying: Flying,
    *,
    finish_run: bool = True,
    agent: str | None = None,
    hide: bool | None = None,
    held: bool = False,
) -> Completion | None:
    """Grade and store; None if the store refused it (another server finished it, or, `held`, acted
    on it since this copy's last action). The completion hides details for a scored run (always,
    the admin too: the rubric must not reach the agent) and where `hide` says so."""
    run_id = flying.benchmark_run_id
    info = context.run_info(run_id)
    try:
        result = flying.handle.conclude(agent=agent or info.agent)
    finally:
        context.flying.pop(task_run_id, None)
    actions = flying.recorded if held else None
    check_ids = context.progress.save_completed(run_id, result, actions)
    if check_ids is None:
        return None
    if finish_run:
        finish_if_done(context, run_id)
    return completion(result, check_ids, hide=info.scored or bool(hide))
