"""A directory of container-format tasks loaded as a world whose one tool is `exec`."""

from __future__ import annotations

import base64
import io
import math
import os
import re
import shlex
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

from assay.errors import SpecError, UsageError
from assay.spec.checks import ScriptCheck
from assay.spec.sandbox import SandboxTask, is_task_dir, read_sandbox_task, task_dirs
from assay.spec.task import Customer, Solution, Step, TaskSpec
from assay.spec.verifier_choice import VerifierChoice, with_verifier_choice
from assay.spec.world import DatabaseSpec, RoleSpec, WorldSpec
from assay.world.live import World
from assay.world.sandbox.imagemap import NO_USER, UserImages, load_user_images
from assay.world.sandbox.installed import InstalledAgent
from assay.world.sandbox.tools import EXEC, MAX_EXEC_TIMEOUT_S
from assay.world.sandbox.trial import Trial

SCHEMA = Path(__file__).with_name("schema.sql")
ROLE = "agent"
DEFAULT_AGENT_TIMEOUT_S = 3600.0  # the format's "no timeout" still ends some day
MAX_TURNS = 1000
ORACLE_LOG = "/logs/agent/oracle.txt"
PASS_THRESHOLD_ENV = "ASSAY_PASS_THRESHOLD"


@dataclass
class SandboxTasks:
    """The container-format tasks of a world, by id, and how their task runs start."""

    root: Path
    tasks: dict[str, SandboxTask]
    notes: list[str] = field(default_factory=list)
    keep: Path | None = None  # where each task run's trial folder is kept (--keep-artifacts)
    images: UserImages = NO_USER  # the images.toml mappings its task runs use

    def trial(self, task_id: str, installed: InstalledAgent | None = None) -> Trial:
        """A task run's sandbox phases; `installed`, a command-line agent to install in it."""
        keep = self.keep is not None
        return Trial(self.tasks[task_id], self.images, keep_logs=keep, installed=installed)


def load_sandbox_world(
    path: Path, *, strict: bool = True, verifier_mode: VerifierChoice = "task"
) -> tuple[World, dict[str, SpecError]]:
    """The world of every task under `path`, and the error of each task that does not load
    (with `strict`, the first such error is raised: it names the file and field).

    verifier_mode: a run's choice; separate verifies every task in a fresh sandbox.
    """
    found: dict[str, SandboxTask] = {}
    rejected: dict[str, SpecError] = {}
    for folder in task_dirs(path):
        try:
            task = read_sandbox_task(folder)
        except SpecError as error:
            if strict:
                raise
            rejected[folder.name] = error
            continue
        found[task.id] = with_verifier_choice(task, verifier_mode)
    threshold = pass_threshold_override()
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
    world.sandbox = SandboxTasks(path, found, images=load_user_images(task_set))
    world.verifier_mode = verifier_mode
    return world, rejected


def pass_threshold_override() -> float | None:
    """$ASSAY_PASS_THRESHOLD (set by `--pass-threshold`): the primary reward that verifies a task
    run, for every task; UsageError unless it is a number in [0, 1]."""
    text = os.environ.get(PASS_THRESHOLD_ENV)
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 1:
        raise UsageError(f"{PASS_THRESHOLD_ENV}: {text!r} is not a number in [0, 1]")
    return value


def task_spec(task: SandboxTask, pass_threshold: float | None = None) -> TaskSpec:
    """The task as assay runs it: the instruction is the request, the test script its one check,
    and the reference solution an exec of `solution/solve.sh` carried in the command itself."""
    config = task.config
    threshold = config.pass_threshold() if pass_threshold is None else pass_threshold
    check = ScriptCheck(name="the test script's reward", kind="script", pass_threshold=threshold)
    time_limit = config.agent.timeout_sec or DEFAULT_AGENT_TIMEOUT_S
    solution = None
    timeout = min(time_limit, MAX_EXEC_TIMEOUT_S)
    commands = [oracle_command(task, folder) for folder in solution_dirs(task)]
    if commands:
        solution = Solution(
            steps=[
                *(
                    Step(call=EXEC.name, args={"command": c, "timeout_s": timeout})
                    for c in commands
                ),
                Step(finish=""),
            ]
        )
    return TaskSpec(
        id=task.id,
        title=task.title,
        split=config.split(),
        role=ROLE,
        max_turns=MAX_TURNS,
        time_limit_s=time_limit,
        customer=Customer(request=task.instruction, default_reply="Please do the task as asked."),
        checks=[check],
        solution=solution,
    )


def solution_dirs(task: SandboxTask) -> list[Path]:
    """The folders the oracle runs, in order: `solution/` when it holds the solve script; for a
    multi-step task, each step's `steps/<name>/solution/` that has one, in `[[steps]]` order.

    A multi-step task is refused before any agent acts (`unsupported_environment:steps`), so its
    oracle never runs; it has one all the same, so that `--agent oracle` does not refuse the whole
    benchmark run for it, and the task run says why it is not scored, as the noop agent's does.
    """
    if task.solve_script is not None and task.solution_dir is not None:
        return [task.solution_dir]
    names = [step.get("name") for step in task.config.steps or [] if isinstance(step, dict)]
    folders = [task.root / "steps" / name / "solution" for name in names if isinstance(name, str)]
    return [folder for folder in folders if (folder / "solve.sh").is_file()]


def oracle_command(task: SandboxTask, folder: Path | None = None) -> str:
    """A shell command that unpacks `folder` (the task's `solution/` by default) into /solution
    and runs solve.sh, logging to /logs/agent/oracle.txt: the oracle knows the answer and acts
    through exec like any agent."""
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w:gz") as archive:
        archive.add(folder or task.solution_dir, arcname=".")
    payload = base64.b64encode(packed.getvalue()).decode()
    env = {"DEBIAN_FRONTEND": "noninteractive", **task.config.solution.env}
    exports = " ".join(f"{name}={shlex.quote(value)}" for name, value in env.items())
    return (
        "mkdir -p /solution && "
        f"printf %s {payload} | base64 -d | tar -xzf - -C /solution --no-same-owner && "
        "chmod +x /solution/solve.sh && "
        f"export {exports} && (/solution/solve.sh) > {ORACLE_LOG} 2>&1"
    )


def _world_name(path: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", path.resolve().name).lstrip("-_.")
    return name or "tasks"
