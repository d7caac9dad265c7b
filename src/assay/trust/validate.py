"""Validate a world: run every proof on every task, and keep the results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from assay.errors import SpecError, UsageError
from assay.formats.files import shown
from assay.formats.load import TASKS_DIR
from assay.formats.task import TaskSpec
from assay.runs.benchmark import Benchmark
from assay.runs.handle import run_task
from assay.runs.plan import new_id
from assay.score.result import TaskRunResult
from assay.taskrun.agents.resolve import agent_factory, check_agent_for
from assay.trust.findings import PROOFS, Proof, ProofName, TaskValidation, WorldValidation
from assay.trust.fingerprint import fingerprint, world_files
from assay.trust.proofs import live_proof, noop_proof, reference_proof, replay_proof, wrong_proof
from assay.trust.static import static_proof
from assay.trust.store import ValidationStore, default_store
from assay.verify.python import registered_verifiers
from assay.world.load import load_world_tolerant, require_tasks
from assay.world.loadable import service_kinds


def open_for_validation(
    path: str | Path, world_db: str | None = None
) -> tuple[Benchmark, dict[str, SpecError]]:
    """The world with every task that loads, and why each other task does not; `world_db` runs
    it on that PostgreSQL server."""
    world, rejected = load_world_tolerant(path, world_db)
    require_tasks(world.root)
    benchmark = Benchmark(world, registered_verifiers(world))
    _ = world.snapshot  # a world whose data do not build is bad input, not an unfair task
    return benchmark, rejected


def validate_world(
    path: str | Path,
    task_ids: Sequence[str] = (),
    live: str | None = None,
    live_repeats: int = 1,
    world_db: str | None = None,
) -> WorldValidation:
    """Every proof for every task (or the named ones); UsageError for an unknown task or agent.
    `world_db`: prove them on that PostgreSQL server rather than SQLite."""
    benchmark, rejected = open_for_validation(path, world_db)
    try:
        return _validate(benchmark, rejected, task_ids, live, live_repeats)
    finally:
        benchmark.close()


def _validate(
    benchmark: Benchmark,
    rejected: dict[str, SpecError],
    task_ids: Sequence[str],
    live: str | None,
    live_repeats: int,
) -> WorldValidation:
    world = benchmark.world
    known = sorted({*world.tasks, *rejected})
    unknown = [task_id for task_id in task_ids if task_id not in known]
    if unknown:
        names = ", ".join(known) or "none"
        raise UsageError(
            f"--task: unknown task {unknown[0]!r} in world {world.name} (tasks: {names})"
        )
    if live is not None:
        agent_factory(live)
    chosen = list(dict.fromkeys(task_ids)) if task_ids else known
    shared = world_files(world.root, world.spec)  # hashed before any proof runs
    tasks = [
        validate_task(benchmark, task_id, rejected.get(task_id), live, shared, live_repeats)
        for task_id in chosen
    ]
    return WorldValidation(
        world=world.name,
        version=world.version,
        live_agent=live,
        passed=all(task.passed for task in tasks),
        tasks=tasks,
    )


def validate_task(
    benchmark: Benchmark,
    task_id: str,
    load_error: SpecError | None,
    live: str | None = None,
    shared: Mapping[str, str] | None = None,
    live_repeats: int = 1,
) -> TaskValidation:
    """Every proof for one task, keyed on the files it was proved with (`shared`: `world_files`)."""
    world = benchmark.world
    if shared is None:
        shared = world_files(world.root, world.spec)
    file = world.task_files.get(task_id, world.root / TASKS_DIR / f"{task_id}.toml")
    task = world.tasks.get(task_id)
    proofs: dict[ProofName, Proof] = {
        "static": static_proof(
            task,
            load_error,
            benchmark.verifiers,
            world.snapshot.columns,  # checks are SQLite-dialect SQL on every backend
            services=service_kinds(world),
        )
    }
    idle: list[str] = []
    if task is None or proofs["static"].status == "failed":
        for name in PROOFS[1:]:
            proofs[name] = Proof.skipped("not run: the static proof failed")
    else:
        idle = _run_proofs(benchmark, task, live, proofs, live_repeats)
    return TaskValidation.of(
        task_id,
        shown(file),
        fingerprint(world.root, file, shared),
        task.split if task is not None else None,
        proofs,
        idle,
    )


def _run_proofs(
    benchmark: Benchmark,
    task: TaskSpec,
    live: str | None,
    proofs: dict[ProofName, Proof],
    live_repeats: int = 1,
) -> list[str]:
    """The proofs that run the task; fills `proofs` and returns the goals that pass idle."""
    proofs["noop"], idle = noop_proof(attempt(benchmark, task, "noop"))
    first = second = None
    if task.solution is not None:
        first = attempt(benchmark, task, "reference")
        second = attempt(benchmark, task, "reference")
    proofs["reference"] = reference_proof(task, first)
    wrongs = {wrong.name: attempt(benchmark, task, f"wrong:{wrong.name}") for wrong in task.wrong}
    proofs["wrong"] = wrong_proof(task, wrongs)
    proofs["replay"] = replay_proof(first, second)
    proofs["live"] = _live(benchmark, task, live, live_repeats)
    return idle


def _live(benchmark: Benchmark, task: TaskSpec, agent: str | None, repeats: int = 1) -> Proof:
    if agent is None:
        return live_proof(None, None, None)
    try:
        check_agent_for(agent, task)
        results = []
        for _ in range(repeats):
            results.append(attempt(benchmark, task, agent))
            if results[-1].outcome == "verified":
                break  # one verified try is enough to keep the task
    except UsageError as refused:
        return live_proof(agent, None, str(refused).removeprefix("--agent: "))
    return live_proof(agent, results, None)


def attempt(benchmark: Benchmark, task: TaskSpec, agent: str) -> TaskRunResult:
    """One task run of `task` by the agent named `agent`, from a fresh reset."""
    made = agent_factory(agent)(task)
    return run_task(benchmark, task, made, run_id=new_id("tr"), agent_name=agent)


def save_validation(report: WorldValidation, store: ValidationStore | None = None) -> None:
    """Keep each task's result, keyed by world, version and the hash of every file it depends on."""
    target = store or default_store()
    for task in report.tasks:
        target.save_validation(
            report.world,
            report.version,
            task.task_id,
            task.task_hash,
            task.passed,
            task.model_dump(mode="json"),
        )
