"""One task run from a fresh reset to its result: open → observe/act → finish → result.

Every way of running a task drives this handle: the CLI's executors (`run_task`), the SDK, the RL
adapters, the HTTP API and MCP. It holds what they would otherwise each do their own way: the
reset and its failure, the clock of the run, grading once (a grading bug is a result that says
so), and what an in-process agent adds to the result (its model usage, its isolation, its logs).
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from assay.errors import AssayError, EnvironmentFailure
from assay.formats.task import TaskSpec
from assay.runs.benchmark import Benchmark
from assay.runs.grade import grade, world_failed
from assay.runs.kept import keep_task_run, kept_folder
from assay.score.result import TaskRunResult
from assay.score.summary import with_usage
from assay.taskrun.actions import AnyAction, Finish, Say, call
from assay.taskrun.agents.base import Agent
from assay.taskrun.loop import drive
from assay.taskrun.observation import Observation
from assay.taskrun.session import Session, SessionOver

# What a reset raises when the snapshot cannot be built or copied.
RESET_FAILURES = (AssayError, OSError, sqlite3.Error)


class ResetFailed(EnvironmentFailure):
    """The task run's world could not be reset; nothing ran."""


class TaskRunHandle:
    """A task run started now from a fresh copy of its world; ResetFailed if there is none.

    run_id, repeat, agent: how the result names it. driver: the in-process agent that acts, if
    one does (what it installs, its usage, isolation and logs go with the run). timed: whether the
    run's duration is measured from now (False for a run rebuilt by replaying its actions).
    """

    def __init__(
        self,
        benchmark: Benchmark,
        task: TaskSpec,
        *,
        run_id: str,
        repeat: int = 0,
        agent: str = "",
        driver: Agent | None = None,
        timed: bool = True,
    ):
        self.benchmark, self.task, self.run_id = benchmark, task, run_id
        self.repeat, self.agent, self.driver = repeat, agent, driver
        self.started = time.perf_counter() if timed else None
        self.result: TaskRunResult | None = None
        self._closed = False
        try:
            self.session = Session(benchmark.world, task, installed=_installed(driver))
        except RESET_FAILURES as failure:
            raise ResetFailed(f"the world could not be reset: {failure}") from None

    @property
    def done(self) -> bool:
        """Whether the run has ended (finished, cut short, failed or cancelled)."""
        return self.session.done

    @property
    def graded(self) -> bool:
        return self.result is not None

    def observe(self) -> Observation:
        """What the agent sees now: everything since its last action."""
        return self.session.observe()

    def act(self, action: AnyAction | dict[str, Any], **options: Any) -> Observation:
        """Carry out one action (an action model or its JSON form); SessionOver once graded."""
        self._refuse_when_graded()
        return self.session.act(action, **options)

    def call(self, tool: str, **args: Any) -> Observation:
        """Call one of the role's tools."""
        return self.act(call(tool, **args))

    def say(self, text: str) -> Observation:
        """Say `text` to the customer."""
        return self.act(Say(say=text))

    def reject(self, text: str, message: str) -> Observation:
        """A rejected attempt that is not an action at all: it takes a turn, the agent sees why."""
        self._refuse_when_graded()
        return self.session.reject(text, message)

    def fail_world(self, message: str) -> Observation:
        """End the run as the world's failure (not scored); a run already over keeps its ending."""
        return self.session.fail_world(message)

    def cancel(self) -> None:
        """End the run as cancelled, unless it has already ended."""
        self.session.end("cancelled")

    def drive(self) -> None:
        """Let the driver act until the run ends (see `assay.taskrun.loop.drive`)."""
        if self.driver is None:
            raise ValueError("drive: this task run has no in-process agent")
        drive(self.session, self.driver)

    def finish(self, output: str = "") -> TaskRunResult:
        """Finish with `output` (unless the run already ended), then grade it."""
        if not self.done and not self.graded:
            self.session.act(Finish(finish=output))
        return self.grade()

    def grade(self, agent: str | None = None) -> TaskRunResult:
        """The run's result, graded once however it ended (a run still going ends as cancelled);
        its world stays open, frozen, until `close`. `agent`: who drove it, if named only now."""
        if self.result is None:
            if agent is not None:
                self.agent = agent
            self.result = self._graded()
        return self.result

    def conclude(self, agent: str | None = None) -> TaskRunResult:
        """Grade (see `grade`), then release the world."""
        try:
            return self.grade(agent)
        finally:
            self.close()

    def close(self) -> None:
        """Release the run's world (again: nothing); grading after this is not possible."""
        if not self._closed:
            self._closed = True
            self.session.live.close()

    def _graded(self) -> TaskRunResult:
        try:
            result = self._grade()
        except Exception as failure:  # grading itself broke: a result that says so, not a crash
            result = world_failed(
                self.task,
                f"grading failed: {failure}",
                run_id=self.run_id,
                repeat=self.repeat,
                agent=self.agent,
            )
        return with_isolation(with_model_usage(result, self.driver), self.driver)

    def _grade(self) -> TaskRunResult:
        collect = getattr(self.driver, "collect", None)  # a CLI agent's log, read from its sandbox
        if collect is not None:
            collect(self.session.live.run)
        result = grade(
            self.session,
            self.benchmark.verifiers,
            run_id=self.run_id,
            repeat=self.repeat,
            agent=self.agent,
            started=self.started,
        )
        kept = kept_folder(self.benchmark.world)
        if kept is not None:  # the sandbox's files go with the trial's close
            keep_task_run(kept, self.session.live.run, result)
        return result

    def _refuse_when_graded(self) -> None:
        if self.result is not None:
            raise SessionOver(
                f"task run {self.run_id} has ended ({self.session.termination}) and been graded"
            )


def run_task(
    benchmark: Benchmark,
    task: TaskSpec,
    agent: Agent,
    *,
    run_id: str,
    repeat: int = 0,
    agent_name: str = "",
) -> TaskRunResult:
    """One task run in this process: reset, let `agent` act until the run ends, grade. A world
    that cannot be reset is a result too (not scored, side world)."""
    started = time.perf_counter()
    try:
        handle = TaskRunHandle(
            benchmark, task, run_id=run_id, repeat=repeat, agent=agent_name, driver=agent
        )
    except ResetFailed as failure:
        failed = world_failed(
            task, str(failure), run_id=run_id, repeat=repeat, agent=agent_name, started=started
        )
        return with_isolation(failed, agent)
    try:
        handle.drive()
    except BaseException:
        handle.close()
        raise
    return handle.conclude()


def with_isolation(result: TaskRunResult, driver: Agent | None) -> TaskRunResult:
    """How a Python class agent was kept from the world: in a sandbox or a process of its own."""
    isolation = getattr(driver, "isolation", None)
    return result if isolation is None else result.model_copy(update={"agent_isolation": isolation})


def with_model_usage(result: TaskRunResult, driver: Agent | None) -> TaskRunResult:
    """A model agent's usage added to the summary's (the customer's and the judge's), and its
    conversation in the trajectory."""
    usage = getattr(driver, "usage", None)
    if usage is None:
        return result
    summary = with_usage(result.summary, usage)
    trajectory = {**(result.trajectory or {}), "transcript": getattr(driver, "transcript", None)}
    return result.model_copy(update={"summary": summary, "trajectory": trajectory})


def _installed(driver: Agent | None) -> Any:
    """A command-line agent the task's sandbox installs (container tasks), if the driver is one."""
    return getattr(driver, "installed", None)
