"""The task as text for an MCP client: where the agent works, its instructions and the customer's
request, as the server's instructions, the prompt `task` and the resource `assay://task`."""

from __future__ import annotations

from assay.formats.task import TaskSpec
from assay.taskrun.briefings import briefing
from assay.taskrun.observation import Briefing
from assay.world.clock import Clock
from assay.world.live import World

PROMPT = "task"
RESOURCE = "assay://task"
HOW = (
    "Act only through the tools. `reply_to_customer(text)` sends a message to the customer and "
    "returns the answer. When you are done, call `finish(output)` with your final answer to the "
    "customer: that ends the task and grades the state you leave behind."
)


def brief(task: TaskSpec, about: Briefing) -> str:
    """The task's request and the world's instructions, as Markdown."""
    lines = [f"# {task.title}", "", f"You are the {task.role} agent in the world {about.world}."]
    if about.world_description:
        lines.append(about.world_description)
    if about.role_description:
        lines.append(f"Your role: {about.role_description}")
    lines.append(f"The time now is {about.now}.")
    if about.instructions:
        lines += ["", "## Instructions", "", about.instructions.strip()]
    lines += ["", "## The customer's request", "", task.customer.request, "", HOW]
    return "\n".join(lines)


def brief_at_start(world: World, task: TaskSpec) -> str:
    """The brief as it reads when the task run starts (the world clock at its start)."""
    clock = Clock(world.spec.clock, world.spec.clock_step_s)
    return brief(task, briefing(world, task, clock.now()))
