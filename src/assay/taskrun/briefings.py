"""What an agent is told of where it works (its `Briefing`): built once for each role and time of
the world's clock, and shared by the task runs that see it (a Briefing is frozen)."""

from __future__ import annotations

from datetime import datetime

from assay.formats.task import TaskSpec
from assay.taskrun.observation import Briefing
from assay.world.live import World

BRIEFINGS_KEPT = 1024  # a clock that tools move far could make ever new times


def shared_briefing(world: World, task: TaskSpec, now: datetime) -> Briefing:
    """The same for every task run of the task's role at the same time `now` of the clock."""
    key = (task.role, now)
    found = world.briefings.get(key)
    if found is None:
        if len(world.briefings) >= BRIEFINGS_KEPT:
            world.briefings.clear()
        found = world.briefings[key] = briefing(world, task, now)
    return found


def briefing(world: World, task: TaskSpec, now: datetime) -> Briefing:
    """Where an agent works: the world and its role described, its instructions, the time `now`."""
    spec = world.spec
    role = spec.roles.get(task.role)
    return Briefing(
        world=spec.name,
        world_description=spec.description or None,
        role_description=(role.description or None) if role else None,
        instructions=world.instructions.get(task.role),
        now=now.isoformat().replace("+00:00", "Z"),
    )
