"""Reset and isolation, measured on the world itself rather than asserted: resets give identical
state, a task run's times come only from the world clock, and tools cannot reach the network."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

from pydantic import BaseModel

from assay.errors import EnvironmentFailure
from assay.formats.task import TaskSpec
from assay.runs.benchmark import Benchmark
from assay.runs.handle import TaskRunHandle
from assay.runs.plan import new_id
from assay.score.result import TaskRunResult
from assay.trust.diff import differences
from assay.trust.record import run_record
from assay.trust.validate import attempt
from assay.world.digest import combine
from assay.world.live import World
from assay.world.tools import Tool

FactName = Literal["identical_resets", "controlled_clock", "no_network"]
# Two machine times 26 hours apart in local time: a tool reading the machine's clock or date
# leaves a different state in one of them.
ZONES = ("Etc/GMT+12", "Etc/GMT-14")


class Fact(BaseModel, defer_build=True):
    name: FactName
    held: bool | None  # None: not measured, and why is in `measured`
    measured: str  # what was done to find it out
    found: list[str] = []  # what broke it, when it did not hold


def isolation_facts(benchmark: Benchmark) -> list[Fact]:
    world = benchmark.world
    if world.kind.sandboxed:
        from assay.trust.sandbox_facts import sandbox_facts

        return sandbox_facts(world)
    solved = [task for task in world.tasks.values() if task.solution is not None]
    return [
        identical_resets(benchmark, solved[:1]),
        controlled_clock(benchmark, solved),
        no_network(benchmark, next(iter(world.tasks.values()), None)),
    ]


def identical_resets(benchmark: Benchmark, writers: list[TaskSpec]) -> Fact:
    """Three resets, the later two after a task run that wrote: every table hashes the same."""
    world = benchmark.world
    before = _full_hash(world)
    changed = ""
    if writers:
        result = attempt(benchmark, writers[0], "reference")
        changed = (
            f" after the reference run of {writers[0].id} left state {result.final_state_hash[:12]}"
        )
    hashes = [before, _full_hash(world), _full_hash(world)]
    starting = combine(dict(world.snapshot.digests))
    held = len(set(hashes)) == 1 and hashes[0] == starting
    measured = f"3 resets{changed}: every table of each reset hashed, {hashes[0][:12]}"
    found = (
        []
        if held
        else [
            f"reset {n + 1} hashed {h[:12]}, the starting state {starting[:12]}"
            for n, h in enumerate(hashes)
        ]
    )
    return Fact(name="identical_resets", held=held, measured=measured, found=found)


def controlled_clock(benchmark: Benchmark, solved: list[TaskSpec]) -> Fact:
    """Each reference solution at two machine times a second and a time zone apart: the same
    check runs, summary and final state."""
    if not solved:
        return Fact(
            name="controlled_clock", held=None, measured="not measured: no task has a [solution]"
        )
    first = {task.id: run_record(_at(ZONES[0], benchmark, task)) for task in solved}
    _next_second()
    second = {task.id: run_record(_at(ZONES[1], benchmark, task)) for task in solved}
    found = [
        f"{task_id}: {change}"
        for task_id in first
        for change in differences(first[task_id], second[task_id])
    ]
    measured = (
        f"the reference solutions of {len(solved)} tasks, run in two different seconds of machine "
        f"time, in time zones {ZONES[0]} and {ZONES[1]}"
    )
    return Fact(name="controlled_clock", held=not found, measured=measured, found=found)


def no_network(benchmark: Benchmark, task: TaskSpec | None) -> Fact:
    """A probe tool run as the world's tools are run: it tries a loopback connection to a listener
    opened here and a name lookup; both must be refused, and the listener must see nobody."""
    if task is None:
        return Fact(name="no_network", held=None, measured="not measured: the world has no tasks")
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(0.2)
        port = listener.getsockname()[1]

        def connect(_world: object) -> str:
            with socket.socket() as probe:
                probe.settimeout(1)
                probe.connect(("127.0.0.1", port))
            return "connected"

        def look_up(_world: object) -> str:
            socket.getaddrinfo("example.org", 443)
            return "resolved"

        outcomes = [_probe(benchmark, task, fn) for fn in (connect, look_up)]
        arrived = _accepted(listener)
    found = [outcome for outcome in outcomes if "tools run offline" not in outcome]
    if arrived:
        found.append(f"the listener on 127.0.0.1:{port} accepted a connection")
    measured = (
        f"a probe tool connected to 127.0.0.1:{port} and looked up example.org: "
        + "; ".join(outcomes)
    )
    return Fact(name="no_network", held=not found, measured=measured, found=found)


def _probe(benchmark: Benchmark, task: TaskSpec, fn: object) -> str:
    """A tool run as the world's tools are, in a task run of `task` that is then dropped."""
    run = TaskRunHandle(benchmark, task, run_id=new_id("tr"), agent="network_probe")
    try:
        status, payload = run.session.execute_tool(Tool(fn, name="network_probe"), {})  # type: ignore[arg-type]
        return f"the probe {status}: {payload}"
    except EnvironmentFailure as refused:
        return str(refused).removeprefix("tool network_probe raised ")
    finally:
        run.close()


def _accepted(listener: socket.socket) -> bool:
    try:
        connection, _ = listener.accept()
    except TimeoutError:
        return False
    connection.close()
    return True


def _full_hash(world: World) -> str:
    live = world.reset()
    try:
        live.db.written.update(world.snapshot.columns)  # hash every table, not just written ones
        return live.db.state_hash(full=True)
    finally:
        live.close()


def _at(zone: str, benchmark: Benchmark, task: TaskSpec) -> TaskRunResult:
    with _time_zone(zone):
        return attempt(benchmark, task, "reference")


@contextmanager
def _time_zone(zone: str) -> Iterator[None]:
    before = os.environ.get("TZ")
    os.environ["TZ"] = zone
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = before
        time.tzset()


def _next_second() -> None:
    time.sleep(1.05 - time.time() % 1)
