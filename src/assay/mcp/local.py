"""Task runs an `assay mcp` process serves: one benchmark run of this process, created through the
API's flow at the client's first request and named after the client (`mcp:<client name>`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp import types

from assay.mcp.brief import HOW
from assay.mcp.results import noted, refused, structured
from assay.mcp.served import ServedTaskRun
from assay.mcp.tools import START, start_tool
from assay.served import benchmark_runs
from assay.served.auth import Caller
from assay.served.context import Context
from assay.served.finishing import FINISHED
from assay.served.wire import CreateRun, RunCreated

OPERATOR = Caller(scope="admin")


class LocalRun:
    """The benchmark run this process serves; `plan` is the CreateRun body without its agent."""

    def __init__(self, context: Context, plan: dict[str, Any]):
        self.context = context
        self.plan = plan
        self.created: RunCreated | None = None
        self.served: dict[str, ServedTaskRun] = {}

    def task_runs(self, agent: str) -> list[ServedTaskRun]:
        """Its task runs in plan order; the run is created now if this is the first request."""
        if self.created is None:
            body = CreateRun(**self.plan, agent=agent)
            self.created = benchmark_runs.create_run(self.context, OPERATOR, body)
        return [
            self.served.setdefault(link.id, ServedTaskRun(self.context, OPERATOR, link.id, agent))
            for link in self.created.task_runs
        ]

    def close(self) -> str | None:
        """Cancel what is unfinished (graded and stored); the run's id, if it was ever created.
        Closing again does nothing more."""
        if self.created is None:
            return None
        run_id = self.created.benchmark_run_id
        if self.context.store.benchmark_run(run_id).phase not in FINISHED:
            benchmark_runs.cancel_run(self.context, OPERATOR, run_id)
        return run_id


class TaskDesk:
    """One task's runs, one after another: `finish` grades one and the next begins."""

    def __init__(self, run: LocalRun):
        self.run = run

    def current(self, agent: str) -> tuple[ServedTaskRun | None, int]:
        runs = self.run.task_runs(agent)
        for position, served in enumerate(runs):
            if not served.completed:
                return served, position
        return None, len(runs)

    def tools(self, agent: str) -> list[types.Tool]:
        served, _ = self.current(agent)
        return served.tools() if served else []

    def call(self, agent: str, name: str, args: dict[str, Any]) -> types.CallToolResult:
        served, position = self.current(agent)
        if served is None:
            return refused("every task run this server holds has finished")
        result = served.call(name, args)
        total = len(self.run.task_runs(agent))
        if served.completed and position + 1 < total:
            return noted(result, next=f"task run {position + 2} of {total} begins now")
        return result

    def brief(self, agent: str) -> str:
        served, _ = self.current(agent)
        return served.brief() if served else "Every task run this server holds has finished."

    def tools_changed(self) -> bool:
        return False


class BenchmarkDesk:
    """A benchmark's task runs, one at a time: `start_task(task_id)` begins the next of that task."""

    def __init__(self, run: LocalRun):
        self.run = run
        self.active: ServedTaskRun | None = None
        self.begun: set[str] = set()
        self._changed = False

    def left(self, agent: str) -> dict[str, str]:
        """Task id → title of the tasks with a task run not yet begun."""
        left: dict[str, str] = {}
        for served in self.run.task_runs(agent):
            if served.id not in self.begun:
                task = served.task
                left.setdefault(task.id, task.title)
        return left

    def tools(self, agent: str) -> list[types.Tool]:
        left = self.left(agent)
        listed = [start_tool(left)] if left else []
        if self.active is not None and not self.active.completed:
            listed += self.active.tools()
        return listed

    def call(self, agent: str, name: str, args: dict[str, Any]) -> types.CallToolResult:
        if name == START:
            return self._start(agent, args)
        if self.active is None or self.active.completed:
            return refused(f"no task run is going: start one with {START}(task_id)")
        result = self.active.call(name, args)
        if self.active.completed:
            self._changed = True
            return noted(result, tasks_left=sorted(self.left(agent)))
        return result

    def brief(self, agent: str) -> str:
        if self.active is not None and not self.active.completed:
            return self.active.brief()
        left = self.left(agent)
        listing = "\n".join(f"- `{task_id}`: {title}" for task_id, title in left.items())
        return (
            f"# A benchmark of tasks\n\nStart each task with `{START}(task_id)`; its request, "
            f"instructions and tools follow. {HOW}\n\n## Tasks left\n\n{listing or 'none'}"
        )

    def tools_changed(self) -> bool:
        changed, self._changed = self._changed, False
        return changed

    def _start(self, agent: str, args: dict[str, Any]) -> types.CallToolResult:
        if self.active is not None and not self.active.completed:
            return refused(f"task run of {self.active.task.id} is going: call finish first")
        task_id = args.get("task_id")
        chosen = next(
            (
                served
                for served in self.run.task_runs(agent)
                if served.id not in self.begun and served.ref.task_id == task_id
            ),
            None,
        )
        if chosen is None:
            left = ", ".join(self.left(agent)) or "none"
            return refused(f"no task run of {task_id!r} is left to start (left: {left})")
        self.begun.add(chosen.id)
        self.active = chosen
        self._changed = True
        brief = chosen.brief()  # resets its world
        return structured({"task_id": task_id, "task_run_id": chosen.id, "brief": brief})


def task_plan(
    slug: str, tasks: Sequence[str], splits: Sequence[str], repeats: int, scored: bool
) -> dict[str, Any]:
    return {
        "benchmark": slug,
        "tasks": list(tasks) or None,
        "split": list(splits) or None,
        "repeats": repeats,
        "scored": scored,
    }
