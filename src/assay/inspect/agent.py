"""inspect's own agent loop (`react`) acting on one assay task run: the role's tools as inspect
tools, `finish(output)` as its submit tool, a reply without a tool call said to the customer."""

from __future__ import annotations

import json
from typing import Any

from inspect_ai.agent import AgentState, AgentSubmit, as_solver, react
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolDef, ToolParams

from assay.runs.benchmark import Benchmark
from assay.runs.handle import TaskRunHandle
from assay.runs.plan import new_id
from assay.taskrun.agents.conversation import FINISH_TOOL, system_message
from assay.taskrun.observation import Observation

# The task run of each sample, by the sample's uuid, from the solver until the cleanup.
RUNS: dict[str, TaskRunHandle] = {}


@solver
def assay_agent(benchmark: Benchmark) -> Solver:
    """Start the sample's task run, then let inspect's `react` agent drive it."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        task = benchmark.tasks[state.metadata["task_id"]]
        run = TaskRunHandle(benchmark, task, run_id=new_id("tr"), agent=f"inspect:{state.model}")
        RUNS[state.uuid] = run
        observation = run.observe()
        agent = react(
            prompt=system_message(observation)["content"],
            tools=[_role_tool(run, described) for described in observation.tools],
            submit=AgentSubmit(name="finish", tool=_finish_tool(), answer_only=True),
            on_continue=_said_to_the_customer(run),
        )
        return await as_solver(agent)(state, generate)

    return solve


def run_of(state: TaskState) -> TaskRunHandle | None:
    return RUNS.get(state.uuid)


def close_run(state: TaskState) -> None:
    run = RUNS.pop(state.uuid, None)
    if run is not None:
        run.conclude()


def shown(observation: Observation) -> str:
    """What a tool call returns to the model: the events since the previous action, as JSON."""
    events = [
        event.model_dump(mode="json", by_alias=True, exclude_none=True)
        for event in observation.events
    ]
    return json.dumps(
        {"events": events, "turns_left": observation.turns_left, "done": observation.done},
        default=str,
    )


def _role_tool(run: TaskRunHandle, described: dict[str, Any]) -> ToolDef:
    async def execute(**args: Any) -> str:
        return shown(run.call(described["name"], **args))

    return ToolDef(
        execute,
        name=described["name"],
        description=described.get("description") or described["name"],
        parameters=_params(described["parameters"]),
    )


def _params(schema: dict[str, Any]) -> ToolParams:
    """The tool's JSON Schema; inspect wants a description on every parameter, so one the
    docstring left undescribed is described by its name."""
    properties = {
        name: {"description": name.replace("_", " "), **prop}
        for name, prop in (schema.get("properties") or {}).items()
    }
    return ToolParams.model_validate({**schema, "properties": properties})


def _finish_tool() -> ToolDef:
    spec = FINISH_TOOL["function"]

    async def execute(output: str) -> str:
        return output  # the answer react hands to the scorer, which finishes the task run

    return ToolDef(
        execute,
        name=spec["name"],
        description=spec["description"],
        parameters=_params(spec["parameters"]),
    )


def _said_to_the_customer(run: TaskRunHandle) -> Any:
    """A reply with no tool call is said to the customer, whose answer is the next user message;
    the loop stops once the task run has ended (its turns are spent)."""

    async def on_continue(state: AgentState) -> bool | str:
        if run.done:
            return False
        if state.output.message.tool_calls:
            return True
        answer = run.say(state.output.message.text)
        if answer.done:
            return False
        return "\n\n".join(event.text or event.message or "" for event in answer.events) or "…"

    return on_continue
