"""A directory of container-format tasks loaded as a world whose one tool is `exec`."""

from __future__ import annotations

import base64
import io
import re
import shlex
import tarfile
from collections.abc import Collection
from pathlib import Path

from assay.errors import SpecError, UsageError
from assay.formats.checks import ScriptCheck
from assay.formats.container_task import ContainerTask, is_task_dir, read_sandbox_task, task_dirs
from assay.formats.task import Customer, Solution, Step, TaskSpec, WrongSolution
from assay.formats.verifier_choice import VerifierChoice, with_verifier_choice
from assay.formats.world import DatabaseSpec, RoleSpec, WorldSpec
from assay.settings import in_force
from assay.world.container.imagemap import load_user_images
from assay.world.container.kind import ContainerKind
from assay.world.container.tools import EXEC, MAX_EXEC_TIMEOUT_S
from assay.world.live import World

SCHEMA = Path(__file__).with_name("schema.sql")
ROLE = "agent"
DEFAULT_AGENT_TIMEOUT_S = 3600.0  # the format's "no timeout" still ends some day
MAX_TURNS = 1000
ORACLE_LOG = "/logs/agent/oracle.txt"
WRONG_DIR = "wrong"  # solution/wrong/<name>/solve.sh: careless work validation must see fail


def load_container_world(
    path: Path,
    *,
    strict: bool = True,
    verifier_mode: VerifierChoice = "task",
    left_out: Collection[str] = (),
    world_db: str | None = None,
) -> tuple[World, dict[str, SpecError]]:
    """The world kind `container`: the world of every task under `path`, and the error of each
    task that does not load (with `strict`, the first such error is raised: it names the file and
    field). It keeps no database to move, so `world_db` is refused.

    verifier_mode: a run's choice; separate verifies every task in a fresh sandbox.
    left_out: tasks not to read at all (withdrawn ones, which may not load).
    """
    if world_db is not None:
        raise UsageError("--world-db: a container-format world keeps no database to move")
    found: dict[str, ContainerTask] = {}
    rejected: dict[str, SpecError] = {}
    for folder in task_dirs(path):
        if folder.name in left_out:
            continue
        try:
            task = read_sandbox_task(folder)
        except SpecError as error:
            if strict:
                raise
            rejected[folder.name] = error
            continue
        found[task.id] = with_verifier_choice(task, verifier_mode)
    threshold = in_force().pass_threshold  # the run's --pass-threshold, for every task
    tasks = {task_id: task_spec(task, threshold) for task_id, task in found.items()}
    spec = WorldSpec(
        name=_world_name(path),
        version="1",
        description="Container-format tasks, each in a sandbox of its own.",
        database=DatabaseSpec(schema=str(SCHEMA)),
        roles={ROLE: RoleSpec(tools=[EXEC.name], description="Acts through shell commands.")},
        tool_timeout_s=MAX_EXEC_TIMEOUT_S + 60,  # exec enforces its own time limit
        check_timeout_s=30,
    )
    world = World(
        path,
        spec,
        {EXEC.name: EXEC},
        {},
        tasks,
        {task_id: task.root / "task.toml" for task_id, task in found.items()},
    )
    task_set = path.parent if is_task_dir(path) else path
    world.kind = ContainerKind(path, found, images=load_user_images(task_set))
    world.verifier_mode = verifier_mode
    world.left_out = frozenset(left_out)
    return world, rejected


def task_spec(task: ContainerTask, pass_threshold: float | None = None) -> TaskSpec:
    """The task as assay runs it: the instruction is the request (a multi-step task's first
    step's; each later one comes as the customer's next message), the test script its one check,
    and the reference solution an exec of each solve.sh carried in the command itself, a finish
    after each step's."""
    config = task.config
    threshold = config.pass_threshold() if pass_threshold is None else pass_threshold
    check = ScriptCheck(name="the test script's reward", kind="script", pass_threshold=threshold)
    time_limit = sum(_agent_time_limits(task))
    timeout = min(max(_agent_time_limits(task)), MAX_EXEC_TIMEOUT_S)
    solution = None
    per_step = solution_plan(task)
    if any(folder is not None for folder in per_step):
        actions = []
        for folder in per_step:
            if folder is not None:
                command = oracle_command(task, folder)
                actions.append(
                    Step(call=EXEC.name, args={"command": command, "timeout_s": timeout})
                )
            actions.append(Step(finish=""))
        solution = Solution(steps=actions)
    request = task.steps[0].instruction if task.steps else task.instruction
    return TaskSpec(
        id=task.id,
        title=task.title,
        split=config.split(),
        role=ROLE,
        max_turns=MAX_TURNS,
        time_limit_s=time_limit,
        customer=Customer(request=request, default_reply="Please do the task as asked."),
        checks=[check],
        solution=solution,
        wrong=wrong_solutions(task, timeout),
    )


def wrong_solutions(task: ContainerTask, timeout_s: float) -> list[WrongSolution]:
    """Each `solution/wrong/<name>/solve.sh`, careless work that `assay validate` requires not to
    be verified: run like the oracle at the first step, every step then finished."""
    folder = task.solution_dir / WRONG_DIR if task.solution_dir is not None else None
    if folder is None or not folder.is_dir():
        return []
    finishes = [Step(finish="")] * max(len(task.steps), 1)
    return [
        WrongSolution(
            name=wrong.name,
            steps=[
                Step(
                    call=EXEC.name,
                    args={"command": oracle_command(task, wrong), "timeout_s": timeout_s},
                ),
                *finishes,
            ],
        )
        for wrong in sorted(folder.iterdir())
        if (wrong / "solve.sh").is_file()
    ]


def _agent_time_limits(task: ContainerTask) -> list[float]:
    """Each step's agent time (one for a task of one step): its own, else the task's, else a day
    that still ends."""
    default = task.config.agent.timeout_sec or DEFAULT_AGENT_TIMEOUT_S
    if not task.config.steps:
        return [default]
    return [step.agent.timeout_sec or default for step in task.config.steps]


def solution_plan(task: ContainerTask) -> list[Path | None]:
    """The folder the oracle runs for each step, as the format's oracle chooses it: the step's
    `steps/<name>/solution/`, else the task's `solution/` (None: the step has none). A task of one
    step has one entry."""
    shared = task.solution_dir if task.solve_script is not None else None
    if not task.steps:
        return [shared]
    own = [step.solution_dir for step in task.steps]
    return [
        folder if folder is not None and (folder / "solve.sh").is_file() else shared
        for folder in own
    ]


def solution_dirs(task: ContainerTask) -> list[Path]:
    """The folders the oracle runs, in order (see `solution_plan`)."""
    return [folder for folder in solution_plan(task) if folder is not None]


def oracle_command(task: ContainerTask, folder: Path | None = None) -> str:
    """A shell command that unpacks `folder` (the task's `solution/` by default) into /solution
    and runs solve.sh, logging to /logs/agent/oracle.txt: the oracle knows the answer and acts
    through exec like any agent."""
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w:gz") as archive:
        # the reference carries no wrong solution with it: those are validation's, not the oracle's
        archive.add(folder or task.solution_dir, arcname=".", filter=_without_wrong)
    payload = base64.b64encode(packed.getvalue()).decode()
    env = {"DEBIAN_FRONTEND": "noninteractive", **task.config.solution.env}
    exports = " ".join(f"{name}={shlex.quote(value)}" for name, value in env.items())
    return (
        "mkdir -p /solution && "
        f"printf %s {payload} | base64 -d | tar -xzf - -C /solution --no-same-owner && "
        "chmod +x /solution/solve.sh && "
        f"export {exports} && (/solution/solve.sh) > {ORACLE_LOG} 2>&1"
    )


def _without_wrong(member: tarfile.TarInfo) -> tarfile.TarInfo | None:
    top = f"./{WRONG_DIR}"
    return None if member.name == top or member.name.startswith(top + "/") else member


def _world_name(path: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", path.resolve().name).lstrip("-_.")
    return name or "tasks"
