"""One task run in this process: reset, let the agent act, grade."""

from __future__ import annotations

import sqlite3
import time

from assay.errors import AssayError
from assay.runs.benchmark import Benchmark
from assay.runs.grade import grade, world_failed
from assay.runs.kept import keep_task_run, kept_folder
from assay.score.result import TaskRunResult
from assay.score.summary import with_usage
from assay.spec.task import TaskSpec
from assay.taskrun.agents.base import Agent
from assay.taskrun.loop import drive
from assay.taskrun.session import Session


def run_task(
    benchmark: Benchmark,
    task: TaskSpec,
    agent: Agent,
    *,
    run_id: str,
    repeat: int = 0,
    agent_name: str = "",
) -> TaskRunResult:
    started = time.perf_counter()
    try:
        session = Session(benchmark.world, task, installed=getattr(agent, "installed", None))
    except (
        AssayError,
        OSError,
        sqlite3.Error,
    ) as failure:  # the snapshot could not be built or copied
        message = f"the world could not be reset: {failure}"
        failed = world_failed(
            task, message, run_id=run_id, repeat=repeat, agent=agent_name, started=started
        )
        return with_agent_isolation(failed, agent)
    try:
        drive(session, agent)
        collect = getattr(agent, "collect", None)  # a CLI agent's log, read from its sandbox
        if collect is not None:
            collect(session.live.run)
        result = grade(
            session,
            benchmark.verifiers,
            run_id=run_id,
            repeat=repeat,
            agent=agent_name,
            started=started,
        )
        kept = kept_folder(benchmark.world)
        if kept is not None:  # the sandbox's files go with the trial's close
            keep_task_run(kept, session.live.run, result)
        return with_agent_isolation(with_model_usage(result, agent), agent)
    finally:
        session.live.close()


def with_agent_isolation(result: TaskRunResult, agent: Agent) -> TaskRunResult:
    """How a Python class agent was kept from the world: in a sandbox or a process of its own."""
    isolation = getattr(agent, "isolation", None)
    return result if isolation is None else result.model_copy(update={"agent_isolation": isolation})


def with_model_usage(result: TaskRunResult, agent: Agent) -> TaskRunResult:
    """A model agent's usage added to the summary's (the customer's and the judge's), and its
    conversation in the trajectory."""
    usage = getattr(agent, "usage", None)
    if usage is None:
        return result
    summary = with_usage(result.summary, usage)
    trajectory = {**(result.trajectory or {}), "transcript": agent.transcript}  # type: ignore[attr-defined]
    return result.model_copy(update={"summary": summary, "trajectory": trajectory})
