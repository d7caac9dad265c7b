"""Start a benchmark run in this process: a fresh run of the chosen tasks, or a stored run resumed
where it stopped, each with its configuration's settings in force (`assay run`, `assay.evaluate`)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.errors import UsageError
from assay.launch.execution import Execution
from assay.settings import using

if TYPE_CHECKING:
    from assay.formats.verifier_choice import VerifierChoice
    from assay.runs.benchmark import Benchmark
    from assay.runs.config import RunConfig
    from assay.runs.run import BenchmarkOutcome
    from assay.runs.store import RunRecord, Store
    from assay.trust.withdrawn import TaskState

Advance = Callable[[Any], None]  # called once per finished task run


def _on_stderr(line: str) -> None:
    print(line, file=sys.stderr)


def _no_progress(total: int) -> AbstractContextManager[Advance]:
    return nullcontext(lambda _: None)


@dataclass(frozen=True)
class Display:
    """What a starting run shows its caller: each note as one line (the tasks left out, what the
    machine cannot give a sandbox), and a progress of `total` task runs."""

    note: Callable[[str], None] = _on_stderr
    progress: Callable[[int], AbstractContextManager[Advance]] = _no_progress


def execution_of(config: RunConfig) -> Execution:
    """Where the configuration's task runs happen, checked (UsageError naming the flag)."""
    execution = Execution(
        config.workers,
        config.world_db,
        config.action_timeout_s,
        config.concurrency,
        config.executor,
        config.ray_address,
    )
    execution.check()
    return execution


def check_config(config: RunConfig, display: Display) -> Execution:
    """UsageError before anything runs for what this machine cannot give the configuration;
    a note when a class agent cannot be sandboxed. Where its task runs happen."""
    from assay.taskrun.agents.names import parse_agent

    if config.customer is not None:
        from assay.provider import require_sdk

        require_sdk("--customer model:…")
    if parse_agent(config.agent).own_process:
        if config.concurrency > 1:
            raise UsageError(
                "--concurrency: a Python class agent acts in one process; use --workers"
            )
        from assay.taskrun.agents.sandbox import unavailable

        if reason := unavailable():
            display.note(f"note: the agent runs as a process, not in a sandbox: {reason}")
    if config.agent_endpoints:
        from assay.taskrun.agents.endpoints import check_endpoints

        check_endpoints(config.agent_endpoints)
    return execution_of(config)


def _opened(
    world: Path,
    execution: Execution,
    verifier_mode: VerifierChoice,
    display: Display,
    kept: Path | None = None,
    left_out: frozenset[str] = frozenset(),
) -> Benchmark:
    """The benchmark of `world` without the `left_out` tasks; for container-format tasks, first
    a note for each guarantee this machine cannot give their sandboxes."""
    from assay.runs.benchmark import open_benchmark

    benchmark = open_benchmark(
        world,
        world_db=execution.world_db,
        verifier_mode=verifier_mode,
        keep_artifacts=kept,
        left_out=left_out,
    )
    if benchmark.world.kind.sandboxed:
        for line in sandbox_gap_lines():
            display.note(line)
    return benchmark


def fresh_run(
    records: Store,
    world: Path,
    config: RunConfig,
    kept: Path | None = None,
    display: Display | None = None,
) -> BenchmarkOutcome:
    """A new benchmark run of `world` as `config` says, its settings in force while it runs,
    recorded in `records` with its configuration; `kept`: the folder keeping trial artifacts."""
    display = display or Display()
    execution = check_config(config, display)
    with using(config.settings()):
        return _fresh(records, world, config, execution, kept, display)


def _fresh(
    records: Store,
    world: Path,
    config: RunConfig,
    execution: Execution,
    kept: Path | None,
    display: Display,
) -> BenchmarkOutcome:
    from assay.runs import prepare, quick_runs
    from assay.runs.config import stored_config
    from assay.runs.plan import DEFAULT_SPLITS
    from assay.runs.record import record_run
    from assay.runs.run import always_scored
    from assay.trust.withdrawn import changed_chosen, withdrawn_on_file

    agent, tasks = config.agent, config.tasks
    splits = config.splits or DEFAULT_SPLITS
    withdrawn, left_out = (
        (frozenset(), [])
        if config.include_withdrawn
        else withdrawn_on_file(world, tasks, splits, records)
    )
    benchmark = _opened(world, execution, config.verifier_mode, display, kept, withdrawn)
    named = [task_id for task_id in tasks if task_id not in withdrawn]
    nothing_left = bool(tasks) and not named  # every task named is withdrawn
    planned = [] if nothing_left else prepare(benchmark, agent, named, splits, config.repeats)
    changed = [] if nothing_left else changed_chosen(benchmark.world, named, splits, records)
    for line in [*left_out_lines(left_out), *changed_lines(changed)]:
        display.note(line)
    scored = config.scored or always_scored(benchmark, planned)
    if scored and kept is not None:
        _refuse_keeping_scored()
    with display.progress(len(planned)) as advance:
        return record_run(
            records,
            benchmark,
            agent,
            planned,
            repeats=config.repeats,
            scored=scored,
            executor=execution.executor(len(planned), quick_runs(benchmark, agent)),
            on_result=advance,
            results=False,  # read back a page at a time
            config=stored_config(config, benchmark.world.files_digest),
        )


def resumed_run(
    records: Store,
    record: RunRecord,
    config: RunConfig,
    world: Path | None = None,
    kept: Path | None = None,
    display: Display | None = None,
) -> BenchmarkOutcome:
    """The stored run `record` finished with `config` (its own, where it runs aside: see
    `stored_run_config`); UsageError when `config` changes anything else. `world`: where the
    world is now, if not where the run found it."""
    display = display or Display()
    refuse_changes(record, config)
    if kept is not None and record.scored:
        _refuse_keeping_scored()
    execution = check_config(config, display)
    with using(config.settings()):
        return _resumed(records, record, world, execution, kept, display)


def _resumed(
    records: Store,
    record: RunRecord,
    world: Path | None,
    execution: Execution,
    kept: Path | None,
    display: Display,
) -> BenchmarkOutcome:
    from assay.runs import quick_runs
    from assay.runs.record import continue_run, resume_plan
    from assay.trust.withdrawn import withdrawn_on_file

    root = world if world is not None else Path(record.world_path)
    # a withdrawn task the run does not hold never blocks it; one it holds is run as recorded
    held = {state.task_id for state in records.task_states(record.id)}
    left_out = withdrawn_on_file(root, store=records)[0] - held
    benchmark = _opened(root, execution, record.verifier_mode, display, kept, left_out)
    planned = resume_plan(records, benchmark, record)
    executor = execution.executor(len(planned), quick_runs(benchmark, record.agent))
    with display.progress(len(planned)) as advance:
        return continue_run(
            records,
            benchmark,
            record.id,
            record.agent,
            planned,
            executor,
            on_result=advance,
            results=False,
        )


def stored_run_config(record: RunRecord) -> RunConfig:
    """The configuration a stored run was made with; for a run stored before configurations
    were, what its row says (agent, repeats, scored, verifier mode)."""
    from pydantic import ValidationError

    from assay.runs.config import RunConfig, StoredConfig

    if record.config is not None:
        try:
            return StoredConfig.model_validate(record.config).run
        except ValidationError as error:
            first = error.errors(include_url=False)[0]
            name = ".".join(str(part) for part in first["loc"])
            raise UsageError(
                f"--resume: run {record.id} was made by assay "
                f"{record.config.get('assay_version')}, with a setting this version cannot "
                f"read ({name})"
            ) from None
    return RunConfig(
        agent=record.agent,
        repeats=record.repeats,
        scored=record.scored,
        verifier_mode=record.verifier_mode,
    )


def refuse_changes(record: RunRecord, config: RunConfig) -> None:
    """UsageError for the agent, the verifier mode, or any other setting (but where task runs
    happen) that `config` sets otherwise than the run `record` was made with."""
    from assay.runs.config import changed_settings

    if config.agent != record.agent:
        raise UsageError(
            f"--agent: run {record.id} was run by {record.agent!r}, not {config.agent!r}"
        )
    if config.verifier_mode != record.verifier_mode:
        raise UsageError(
            f"--verifier-mode: run {record.id} verifies with {record.verifier_mode}, "
            f"not {config.verifier_mode}; a resumed run keeps its own"
        )
    changed = changed_settings(stored_run_config(record), config)
    if changed:
        raise UsageError(
            f"--resume: run {record.id} was made with other settings: {', '.join(changed)}; "
            "a resumed run keeps its own"
        )


def _refuse_keeping_scored() -> None:
    """A scored run shows no verifier output (holdout tasks always score): none is kept either."""
    raise UsageError(
        "--keep-artifacts: a scored run (--scored, or a holdout task chosen) keeps its verifier "
        "output hidden; run without it"
    )


def sandbox_gap_lines() -> list[str]:
    """Each guarantee this machine cannot give a sandbox (every task run records the same in its
    notes), one line each."""
    from assay.world.container.confine import machine_gaps

    return [f"sandbox: {gap}" for gap in machine_gaps()]


def left_out_lines(left_out: Sequence[TaskState]) -> list[str]:
    """The withdrawn tasks a run leaves out, and why."""
    if not left_out:
        return []
    noun = "task" if len(left_out) == 1 else "tasks"
    lines = [
        f"left out {len(left_out)} withdrawn {noun} (the last validation failed; "
        "--include-withdrawn runs them):"
    ]
    for state in left_out:
        why = state.reasons[0] if state.reasons else "failed validation"
        lines.append(f"  {state.task_id}: {why}")
    return lines


def changed_lines(changed: Sequence[TaskState]) -> list[str]:
    """The tasks that run unvalidated because files changed since their validation, grouped by
    the files that changed."""
    if not changed:
        return []
    noun = "task has" if len(changed) == 1 else "tasks have"
    lines = [
        f"{len(changed)} {noun} changed since the last validation and run unvalidated "
        "(`assay validate` proves them again):"
    ]
    groups: dict[str, list[str]] = {}
    for state in changed:
        groups.setdefault(", ".join(state.changed), []).append(state.task_id)
    lines += [f"  {files}: {', '.join(task_ids)}" for files, task_ids in groups.items()]
    return lines
