"""A task run's trajectory in the Agent Trajectory Interchange Format (ATIF v1.8, the format the
container task runner Harbor reads): the customer's messages as user steps, each action as an agent
step whose tool call carries the tool's result as its observation, notices as system steps."""

from __future__ import annotations

import json
from typing import Any

from assay import __version__
from assay.score.result import TaskRunResult
from assay.taskrun.agents.names import parse_agent

SCHEMA = "ATIF-v1.8"


def atif_trajectory(result: TaskRunResult) -> dict[str, Any]:
    """The ATIF document of one task run (its stored trajectory; an empty one if none was kept)."""
    trajectory = result.trajectory or {}
    steps: list[dict[str, Any]] = []
    for step in trajectory.get("steps", []):
        for event in step.get("events", []):
            _add_event(steps, event)
        if step.get("action"):
            steps.append(_agent_step(len(steps) + 1, step["turn"], step["action"]))
    summary = result.summary
    return {
        "schema_version": SCHEMA,
        "session_id": result.id,
        "agent": {
            "name": result.agent,
            "version": __version__,
            "model_name": parse_agent(result.agent).model,
            "tool_definitions": trajectory.get("tools"),
        },
        "steps": steps,
        "final_metrics": {
            "total_prompt_tokens": summary.prompt_tokens,
            "total_completion_tokens": summary.completion_tokens,
            "total_steps": len(steps),
        },
        "extra": {"task_id": result.task_id, "outcome": result.outcome},
    }


def _agent_step(step_id: int, turn: int, action: dict[str, Any]) -> dict[str, Any]:
    made: dict[str, Any] = {"step_id": step_id, "source": "agent", "message": ""}
    if "call" in action:
        call = action["call"]
        args = call.get("args")
        made["tool_calls"] = [
            {
                "tool_call_id": f"call_{turn}",
                "function_name": call["tool"],
                "arguments": args if isinstance(args, dict) else {"value": args},
            }
        ]
    elif "say" in action:
        made["message"] = action["say"]
    elif "finish" in action:
        made["message"] = action["finish"] or ""
        made["extra"] = {"finish": True}
    return made


def _add_event(steps: list[dict[str, Any]], event: dict[str, Any]) -> None:
    """A tool's result is the observation of the agent step that called it; a customer's message
    is a user step; anything else a system step."""
    last = steps[-1] if steps else None
    if event.get("type") == "tool_result" and last and last.get("tool_calls"):
        call_id = last["tool_calls"][0]["tool_call_id"]
        shown = {k: v for k, v in event.items() if k != "type"}
        last["observation"] = {
            "results": [{"source_call_id": call_id, "content": json.dumps(shown, default=str)}]
        }
    elif event.get("type") == "message":
        steps.append(
            {"step_id": len(steps) + 1, "source": "user", "message": event.get("text") or ""}
        )
    else:
        text = event.get("text") or event.get("message") or json.dumps(event, default=str)
        steps.append({"step_id": len(steps) + 1, "source": "system", "message": text})
