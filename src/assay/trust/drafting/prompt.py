"""What the model sees of a world when it drafts tasks: schema, seed summary, tools and their docs,
services, roles, instructions, and existing train or dev tasks as examples (never holdout ones)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from assay.formats.files import read_text
from assay.world.live import World

SAMPLE_ROWS = 3  # rows shown per table of the starting state
EXAMPLES = 2  # existing tasks shown as examples of the format

SUBMIT_TASK = {
    "type": "function",
    "function": {
        "name": "submit_task",
        "description": "Submit one drafted task: the whole task file in the task TOML format. "
        "Call it once per task; several calls in one reply are fine.",
        "parameters": {
            "type": "object",
            "properties": {"toml": {"type": "string", "description": "The task file's text."}},
            "required": ["toml"],
            "additionalProperties": False,
        },
    },
}

RULES = """\
A task file has: `title`, `role` (one of the roles below), optional `split`, `max_turns`;
[customer] with `request` (what the customer asks); [[checks]] that read the final state with one
read-only SQL query each (`sql` with `expect`, or `expect_rows`), each with `name` and `type` =
"goal" (must pass), "rule" (must never be broken) or "optional"; [solution] with `steps`, each
`{ call = "tool", args = {...} }`, `{ say = "..." }` or `{ finish = "..." }`; and at least one
[[wrong]] solution (`name`, `steps`): careless work the checks must catch.

A task is published only when every proof passes: doing nothing is not verified, the reference
solution is verified, each wrong solution is not verified, and two runs of the reference give the
same result. Checks may only read; a check that writes is refused."""


def build_messages(world: World, count: int, split: str, brief: str | None) -> list[dict[str, Any]]:
    """The conversation's opening: the world as the system message, the order as the user's."""
    ask = (
        f"Draft {count} new task{'s' if count != 1 else ''} for this world, for the {split} split."
    )
    if brief:
        ask += f"\n\nWhat the tasks should be about: {brief}"
    ask += "\n\nCall submit_task once for each task."
    return [
        {"role": "system", "content": world_text(world)},
        {"role": "user", "content": ask},
    ]


def prompt_hash(messages: list[dict[str, Any]]) -> str:
    text = json.dumps(messages, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def world_text(world: World) -> str:
    spec = world.spec
    parts = [
        "You write tasks for an agent evaluation. An agent works in the world below through its "
        "role's tools; when it stops, checks read the final state.",
        f"# World {spec.name} (version {spec.version})\n{spec.description}".rstrip(),
        f"The world's clock starts at {spec.clock.isoformat().replace('+00:00', 'Z')}.",
        "# Schema\n" + read_text(world.root / spec.database.schema_file).strip(),
        "# Starting data\n" + seed_summary(world),
        "# Tools\n" + tools_text(world),
        "# Roles\n" + roles_text(world),
    ]
    if spec.services:
        services = ", ".join(f"{name} ({service.kind})" for name, service in spec.services.items())
        parts.append(f"# Outside services (each records every request)\n{services}")
    parts.append("# The task format\n" + RULES)
    examples = example_tasks(world)
    if examples:
        parts.append("# Existing tasks (examples of the format; do not repeat them)\n" + examples)
    return "\n\n".join(parts)


def seed_summary(world: World) -> str:
    """Each table's row count and its first rows, from the world's starting state."""
    snapshot = world.snapshot
    connection = snapshot.open_copy()
    try:
        lines = []
        for table, columns in sorted(snapshot.columns.items()):
            count = connection.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
            rows = connection.execute(f'SELECT * FROM "{table}" LIMIT {SAMPLE_ROWS}').fetchall()
            lines.append(f"{table}: {count} rows; columns {', '.join(columns)}")
            lines += [f"  {json.dumps(list(row), default=str)}" for row in rows]
        return "\n".join(lines)
    finally:
        connection.close()


def tools_text(world: World) -> str:
    lines = []
    for tool in world.tools.values():
        described = tool.describe()
        effect = "writes" if described["writes"] else "reads"
        arguments = json.dumps(described["parameters"].get("properties", {}), sort_keys=True)
        lines.append(f"- {described['name']} ({effect}): {described['description']}")
        lines.append(f"  arguments: {arguments}")
    return "\n".join(lines)


def roles_text(world: World) -> str:
    lines = []
    for name, role in world.spec.roles.items():
        lines.append(f"- {name}: {role.description} Tools: {', '.join(role.tools)}.")
        instructions = world.instructions.get(name)
        if instructions:
            lines.append(f"  Instructions the agent follows:\n  {instructions.strip()}")
    return "\n".join(lines)


def example_tasks(world: World) -> str:
    """The first existing train or dev tasks' files: the model never reads a holdout task."""
    shown = [
        world.task_files[task_id]
        for task_id, task in sorted(world.tasks.items())
        if task.split != "holdout" and task_id in world.task_files
    ][:EXAMPLES]
    return "\n\n".join(f"## tasks/{path.name}\n{read_text(path).strip()}" for path in shown)
