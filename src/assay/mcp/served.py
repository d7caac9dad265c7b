"""One task run of the API's flow as an MCP client drives it: started on first use, each action
stored as it is taken, graded and stored when it finishes or is cancelled (`served/task_runs.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp import types

from assay.formats.task import TaskSpec
from assay.mcp.brief import brief
from assay.mcp.results import ENDED, graded, observed, refused
from assay.mcp.tools import FINISH, REPLY, own_tools, role_tools
from assay.runs.store.progress import TaskRunRef
from assay.served import task_runs
from assay.served.auth import Caller
from assay.served.context import Context
from assay.served.errors import ApiError
from assay.served.wire import Act
from assay.taskrun.observation import Observation


@dataclass
class ServedTaskRun:
    context: Context
    caller: Caller
    id: str
    agent: str = "mcp"  # `mcp:<client name>` once the client has named itself

    @property
    def ref(self) -> TaskRunRef:
        return self.context.task_run(self.caller, self.id)

    @property
    def task(self) -> TaskSpec:
        ref = self.ref
        return self.context.run_info(ref.benchmark_run_id).benchmark.tasks[ref.task_id]

    @property
    def completed(self) -> bool:
        return self.ref.phase == "completed"

    def tools(self) -> list[types.Tool]:
        self.observe()
        ref = self.ref
        world = self.context.run_info(ref.benchmark_run_id).benchmark.world
        return [*role_tools(world.describe_role(self.task.role)), *own_tools()]

    def observe(self) -> Observation:
        """What the agent sees now, starting the task run (resetting its world) if it is not yet."""
        ref = self.ref
        if ref.phase == "created":
            return task_runs.start(self.context, self.caller, self.id)
        return self.context.in_flight(ref).session.observe()

    def brief(self) -> str:
        observation = self.observe()
        assert observation.briefing is not None
        return brief(self.task, observation.briefing)

    def call(self, name: str, args: dict[str, Any]) -> types.CallToolResult:
        """One tool call: a role's tool, `reply_to_customer` or `finish`."""
        try:
            if self.observe().done and name != FINISH:
                return refused(ENDED)
            if name == FINISH:
                return self._finish(args)
            if name == REPLY:
                text = args.get("text")
                if not isinstance(text, str) or set(args) != {"text"}:
                    return refused("reply_to_customer takes one argument, text: a string")
                action: dict[str, Any] = {"say": text}
            else:
                action = {"call": {"tool": name, "args": args}}
            return observed(task_runs.act(self.context, self.caller, self.id, Act(**action)))
        except task_runs.Rejected as rejected:  # recorded, and counted as a rejected attempt
            return observed(rejected.observation)
        except ApiError as error:
            return refused(error.message)

    def cancel(self) -> None:
        """End it as cancelled, graded and stored, unless it has already finished."""
        if not self.completed:
            task_runs.cancel_task_run(self.context, self.caller, self.id, agent=self.agent)

    def _finish(self, args: dict[str, Any]) -> types.CallToolResult:
        output = args.get("output", "")
        if not isinstance(output, str) or not set(args) <= {"output"}:
            return refused("finish takes one argument, output: a string")
        completion = task_runs.complete(
            self.context, self.caller, self.id, output, agent=self.agent
        )
        scored = self.context.run_info(self.ref.benchmark_run_id).scored
        return graded(completion, scored=scored)
