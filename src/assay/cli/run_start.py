"""How `assay run` starts its task runs: a fresh benchmark run of the chosen tasks, or a recorded
run resumed where it stopped."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.cli.execution import Execution
from assay.errors import UsageError

if TYPE_CHECKING:
    from assay.runs.benchmark import Benchmark
    from assay.runs.run import BenchmarkOutcome
    from assay.runs.store import Store
    from assay.spec.verifier_choice import VerifierChoice


@dataclass(frozen=True)
class Choice:
    """What a fresh run runs: tasks, splits, repeats, scored mode, withdrawn tasks or not, how
    its container-format tasks are verified and where their trial folders are kept."""

    tasks: Sequence[str]
    splits: Sequence[str]
    repeats: int
    scored: bool
    include_withdrawn: bool
    verifier_mode: VerifierChoice = "task"
    keep_artifacts: Path | None = None


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
    records: Store, world: Path, agent: str, choice: Choice, execution: Execution, quiet: bool
) -> BenchmarkOutcome:
    from assay.runs import prepare, quick_runs
    from assay.runs.plan import DEFAULT_SPLITS
    from assay.runs.record import record_run
    from assay.runs.run import always_scored
    from assay.trust.withdrawn import changed_chosen, withdrawn_on_file

    splits = choice.splits or DEFAULT_SPLITS
    withdrawn, left_out = (
        (frozenset(), [])
        if choice.include_withdrawn
        else withdrawn_on_file(world, choice.tasks, splits, records)
    )
    benchmark = _opened(world, execution, choice.verifier_mode, choice.keep_artifacts, withdrawn)
    named = [task_id for task_id in choice.tasks if task_id not in withdrawn]
    nothing_left = bool(choice.tasks) and not named  # every task named is withdrawn
    planned = [] if nothing_left else prepare(benchmark, agent, named, splits, choice.repeats)
    changed = [] if nothing_left else changed_chosen(benchmark.world, named, splits, records)
    if left_out or changed:
        from assay.cli.render import print_changed, print_left_out

        print_left_out(left_out)
        print_changed(changed)
    scored = choice.scored or always_scored(benchmark, planned)
    if scored and choice.keep_artifacts is not None:
        _refuse_keeping_scored()
    with _progress(len(planned), quiet) as advance:
        return record_run(
            records,
            benchmark,
            agent,
            planned,
            repeats=choice.repeats,
            scored=scored,
            executor=execution.executor(len(planned), quick_runs(benchmark, agent)),
            on_result=advance,
            results=False,  # read back a page at a time to print
        )


def resumed(
    records: Store,
    run_id: str,
    world: Path | None,
    agent: str | None,
    execution: Execution,
    quiet: bool,
    verifier_mode: VerifierChoice | None = None,
    kept: Path | None = None,
) -> BenchmarkOutcome:
    from assay.runs import quick_runs
    from assay.runs.record import continue_run, resume_plan
    from assay.trust.withdrawn import withdrawn_on_file

    record = records.benchmark_run(run_id, parameter="--resume")
    if agent is not None and agent != record.agent:
        raise UsageError(f"--agent: run {record.id} was run by {record.agent!r}, not {agent!r}")
    if verifier_mode is not None and verifier_mode != record.verifier_mode:
        raise UsageError(
            f"--verifier-mode: run {record.id} verifies with {record.verifier_mode}, "
            f"not {verifier_mode}; a resumed run keeps its own"
        )
    if kept is not None and record.scored:
        _refuse_keeping_scored()
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
