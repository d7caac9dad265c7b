"""`assay run`: a benchmark run of a world with one agent, recorded in the store."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from assay.cli.collector import starting
from assay.cli.options import JsonOption, SplitOption, StoreOption, TaskOption
from assay.cli.output import FormatOption, output_format
from assay.cli.replay import replay_choice
from assay.cli.run_options import (
    ActionTimeoutOption,
    AgentEndpointOption,
    AgentOption,
    BaseUrlOption,
    ConcurrencyOption,
    ConfigFileOption,
    CustomerOption,
    ExecutorOption,
    FailUnderOption,
    IncludeWithdrawnOption,
    JudgeModelOption,
    KeepArtifactsOption,
    MaxConnectionsOption,
    MaxTokensOption,
    ModelArgOption,
    ModelRetriesOption,
    ModelTimeoutOption,
    PassThresholdOption,
    RayAddressOption,
    RepeatsOption,
    ResumeOption,
    RunWorldArgument,
    SaveTrajectoriesOption,
    ScoredOption,
    SeedOption,
    TemperatureOption,
    VerifierModeOption,
    WorkersOption,
    WorldDbOption,
)
from assay.cli.run_start import fresh, resumed
from assay.errors import UsageError

if TYPE_CHECKING:
    from assay.runs.config import RunConfig
    from assay.runs.run import BenchmarkOutcome
    from assay.runs.store import Store


def run(
    world: RunWorldArgument = None,
    agent: AgentOption = None,
    task: TaskOption = None,
    split: SplitOption = None,
    repeats: RepeatsOption = None,
    resume: ResumeOption = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
    fmt: FormatOption = None,
    fail_under: FailUnderOption = None,
    save_trajectories: SaveTrajectoriesOption = None,
    keep_artifacts: KeepArtifactsOption = None,
    scored: ScoredOption = False,
    include_withdrawn: IncludeWithdrawnOption = False,
    concurrency: ConcurrencyOption = None,
    max_connections: MaxConnectionsOption = None,
    workers: WorkersOption = None,
    executor: ExecutorOption = None,
    ray_address: RayAddressOption = None,
    world_db: WorldDbOption = None,
    action_timeout: ActionTimeoutOption = None,
    base_url: BaseUrlOption = None,
    agent_endpoint: AgentEndpointOption = None,
    temperature: TemperatureOption = None,
    max_tokens: MaxTokensOption = None,
    seed: SeedOption = None,
    model_arg: ModelArgOption = None,
    customer: CustomerOption = None,
    model_timeout: ModelTimeoutOption = None,
    judge_model: JudgeModelOption = None,
    model_retries: ModelRetriesOption = None,
    pass_threshold: PassThresholdOption = None,
    verifier_mode: VerifierModeOption = None,
    config_file: ConfigFileOption = None,
) -> None:
    """Run every chosen task with one agent, record it in the store and print the result table."""
    parameters = dict(locals())  # before any other name is bound here
    with starting():  # the store's and the run's modules: `assay.cli.collector`
        from assay.runs.store import open_store

    chosen = output_format(fmt, as_json)
    settings = _given_settings(parameters)
    if resume is not None:
        _refuse_with_resume(task, split, repeats)
    elif world is None:
        raise UsageError("WORLD: missing; give a world directory, or --resume RUN")
    kept = None if keep_artifacts is None else _kept(keep_artifacts)
    with _cancel_on_terminate(), open_store(store) as records:
        outcome = _start(records, world, resume, settings, config_file, kept, chosen == "json")
        from assay.cli.run_output import report, save

        if save_trajectories is not None:
            save(records, outcome.benchmark_run.id, save_trajectories)
        report(records, outcome, chosen)
    _exit(outcome, fail_under)


def _given_settings(parameters: dict[str, Any]) -> dict[str, Any]:
    """The settings the given flags set, nested (`run_config.given_settings`); each flag's
    parameter is named as Typer names a flag's parameter."""
    from assay.cli.model_options import model_args
    from assay.cli.run_config import FLAGS, given_settings

    flags = {setting: parameters[flag[2:].replace("-", "_")] for setting, flag in FLAGS.items()}
    flags["model.args"] = model_args(flags["model.args"] or [])
    return given_settings(flags)


def _kept(directory: Path) -> Path:
    """The folder --keep-artifacts keeps trial folders in, made ready."""
    from assay.runs.kept import keep_folder

    return keep_folder(directory)


def _start(
    records: Store,
    world: Path | None,
    resume: str | None,
    given: dict[str, Any],
    config_file: Path | None,
    kept: Path | None,
    as_json: bool,
) -> BenchmarkOutcome:
    """A fresh run of `world`, or the stored run `resume` finished."""
    if resume is not None:
        return resumed(records, resume, world, given, config_file, kept, as_json)
    assert world is not None
    config = _fresh_config(records, given, config_file)
    return fresh(records, world, config, kept, as_json)


def _exit(outcome: BenchmarkOutcome, fail_under: float | None) -> None:
    """Exit 130 for a cancelled run, 1 for one scored below --fail-under."""
    if outcome.benchmark_run.phase == "cancelled":
        raise typer.Exit(130)
    score = outcome.benchmark_run.score
    if fail_under is not None and (score is None or score < fail_under):
        raise typer.Exit(1)


def _fresh_config(records: Store, given: dict[str, Any], file: Path | None) -> RunConfig:
    """A fresh run's configuration, its agent, tasks and repeats those a replay of a stored run
    chooses."""
    from assay.cli.run_config import build_config

    config = build_config(given, file)
    chosen = None if "repeats" not in given and config.repeats == 1 else config.repeats
    agent, tasks, repeats = replay_choice(records, config.agent, config.tasks, chosen)
    return config.model_copy(
        update={"agent": agent, "tasks": tuple(tasks), "repeats": repeats or 1}
    )


def _refuse_with_resume(task: list[str] | None, split: list[str] | None, repeats: int | None):
    """A resumed run keeps its own tasks and repeats."""
    for name, given in (("--task", task), ("--split", split), ("--repeats", repeats)):
        if given:
            raise UsageError(f"{name}: a resumed run keeps its own tasks and repeats; drop {name}")


@contextmanager
def _cancel_on_terminate() -> Iterator[None]:
    """SIGTERM cancels like Ctrl-C: exit 130 with one line, no traceback. While task runs are
    running the executor takes both over (the first lets those in flight finish)."""

    def interrupt(_signal: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    except KeyboardInterrupt:
        typer.echo("cancelled", err=True)
        raise typer.Exit(130) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
