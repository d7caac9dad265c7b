"""How `assay run` starts its task runs: a fresh benchmark run of the chosen tasks, or a recorded
run resumed where it stopped, each with its configuration's settings in force."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from assay.cli.execution import Execution
from assay.errors import UsageError
from assay.settings import using

if TYPE_CHECKING:
    from assay.formats.verifier_choice import VerifierChoice
    from assay.runs.benchmark import Benchmark
    from assay.runs.config import RunConfig
    from assay.runs.run import BenchmarkOutcome
    from assay.runs.store import RunRecord, Store


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


def check_config(config: RunConfig) -> Execution:
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
            typer.echo(f"note: the agent runs as a process, not in a sandbox: {reason}", err=True)
    if config.agent_endpoints:
        from assay.taskrun.agents.endpoints import check_endpoints

        check_endpoints(config.agent_endpoints)
    return execution_of(config)


def _opened(
    world: Path,
    execution: Execution,
    verifier_mode: VerifierChoice,
    kept: Path | None = None,
    left_out: frozenset[str] = frozenset(),
) -> Benchmark:
    """The benchmark of `world` without the `left_out` tasks; for container-format tasks, first
    each guarantee this machine cannot give their sandboxes, one line each on stderr."""
    from assay.runs import open_benchmark

    benchmark = open_benchmark(
        world,
        world_db=execution.world_db,
        verifier_mode=verifier_mode,
        keep_artifacts=kept,
        left_out=left_out,
    )
    if benchmark.world.kind.sandboxed:
        from assay.cli.render import print_sandbox_gaps

        print_sandbox_gaps()
    return benchmark


def fresh(
    records: Store, world: Path, config: RunConfig, kept: Path | None, quiet: bool
) -> BenchmarkOutcome:
    """A new benchmark run of `world` as `config` says, its settings in force while it runs."""
    execution = check_config(config)
    with using(config.settings()):
        return _fresh(records, world, config, execution, kept, quiet)


def _fresh(
    records: Store,
    world: Path,
    config: RunConfig,
    execution: Execution,
    kept: Path | None,
    quiet: bool,
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
    benchmark = _opened(world, execution, config.verifier_mode, kept, withdrawn)
    named = [task_id for task_id in tasks if task_id not in withdrawn]
    nothing_left = bool(tasks) and not named  # every task named is withdrawn
    planned = [] if nothing_left else prepare(benchmark, agent, named, splits, config.repeats)
    changed = [] if nothing_left else changed_chosen(benchmark.world, named, splits, records)
    if left_out or changed:
        from assay.cli.render import print_changed, print_left_out

        print_left_out(left_out)
        print_changed(changed)
    scored = config.scored or always_scored(benchmark, planned)
    if scored and kept is not None:
        _refuse_keeping_scored()
    with _progress(len(planned), quiet) as advance:
        return record_run(
            records,
            benchmark,
            agent,
            planned,
            repeats=config.repeats,
            scored=scored,
            executor=execution.executor(len(planned), quick_runs(benchmark, agent)),
            on_result=advance,
            results=False,  # read back a page at a time to print
            config=stored_config(config, world),
        )


def resumed(
    records: Store,
    run_id: str,
    world: Path | None,
    given: dict[str, Any],
    file: Path | None,
    kept: Path | None,
    quiet: bool,
) -> BenchmarkOutcome:
    """The stored run `run_id` finished with its own configuration, the settings `given` (and
    the `file`'s) on top of it; UsageError when they change one other than where it runs."""
    from assay.cli.run_config import build_config, refuse_changed, stored_run_config

    record = records.benchmark_run(run_id, parameter="--resume")
    stored = stored_run_config(record)
    config = build_config(given, file, stored)
    if config.agent != record.agent:
        raise UsageError(
            f"--agent: run {record.id} was run by {record.agent!r}, not {config.agent!r}"
        )
    if config.verifier_mode != record.verifier_mode:
        raise UsageError(
            f"--verifier-mode: run {record.id} verifies with {record.verifier_mode}, "
            f"not {config.verifier_mode}; a resumed run keeps its own"
        )
    refuse_changed(record, stored, config)
    if kept is not None and record.scored:
        _refuse_keeping_scored()
    execution = check_config(config)
    with using(config.settings()):
        return _resumed(records, record, world, execution, kept, quiet)


def _resumed(
    records: Store,
    record: RunRecord,
    world: Path | None,
    execution: Execution,
    kept: Path | None,
    quiet: bool,
) -> BenchmarkOutcome:
    from assay.runs import quick_runs
    from assay.runs.record import continue_run, resume_plan
    from assay.trust.withdrawn import withdrawn_on_file

    root = world if world is not None else Path(record.world_path)
    # a withdrawn task the run does not hold never blocks it; one it holds is run as recorded
    held = {state.task_id for state in records.task_states(record.id)}
    left_out = withdrawn_on_file(root, store=records)[0] - held
    benchmark = _opened(root, execution, record.verifier_mode, kept, left_out)
    planned = resume_plan(records, benchmark, record)
    executor = execution.executor(len(planned), quick_runs(benchmark, record.agent))
    with _progress(len(planned), quiet) as advance:
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


def _refuse_keeping_scored() -> None:
    """A scored run shows no verifier output (holdout tasks always score): none is kept either."""
    raise UsageError(
        "--keep-artifacts: a scored run (--scored, or a holdout task chosen) keeps its verifier "
        "output hidden; run without it"
    )


def _progress(total: int, quiet: bool) -> AbstractContextManager[Callable[[Any], None]]:
    """The progress bar, or nothing to show (and no Rich to import) when the output is JSON."""
    if quiet:
        return nullcontext(lambda _: None)
    from assay.cli.render import progress

    return progress(total)
