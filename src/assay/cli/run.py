"""`assay run`: a benchmark run of a world with one agent, recorded in the store."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from assay.cli.execution import Execution
from assay.cli.options import JsonOption, SplitOption, StoreOption, TaskOption
from assay.cli.output import FormatOption, output_format
from assay.cli.replay import replay_choice
from assay.cli.run_start import Choice, fresh, resumed
from assay.errors import UsageError

if TYPE_CHECKING:
    from assay.spec.verifier_choice import VerifierChoice

DEFAULT_AGENT = "reference"


def run(
    world: Annotated[
        Path | None,
        typer.Argument(
            help="A world directory (holding world.toml), a container-format task directory "
            "(holding task.toml) or a directory of them; with --resume, the run's own."
        ),
    ] = None,
    agent: Annotated[
        str | None,
        typer.Option(
            help="noop, reference (oracle), wrong:<name>, replay:<file>, replay:<directory>, "
            "replay:run:<RUN> (the tasks come from the trajectories) or module:Class "
            "(default: reference)."
        ),
    ] = None,
    task: TaskOption = None,
    split: SplitOption = None,
    repeats: Annotated[
        int | None, typer.Option(min=1, help="Task runs per task (default: 1).")
    ] = None,
    resume: Annotated[
        str | None,
        typer.Option(
            "--resume",
            metavar="RUN",
            help="Finish a stored run: run again only its task runs that are missing or not scored.",
        ),
    ] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
    fmt: FormatOption = None,
    fail_under: Annotated[
        float | None, typer.Option(help="Exit 1 when the run's score is below this.")
    ] = None,
    save_trajectories: Annotated[
        Path | None, typer.Option(help="Write one JSON trajectory file per task run here.")
    ] = None,
    keep_artifacts: Annotated[
        Path | None,
        typer.Option(
            metavar="DIR",
            help="Container-format tasks: keep each task run's trial folder in DIR/<task>/<task "
            "run id>/ (agent/, verifier/, artifacts/, result.json), as the format's runner does.",
        ),
    ] = None,
    scored: Annotated[
        bool,
        typer.Option(
            "--scored",
            help="Show outcome, reward, score, verdict and axes but no check details or evidence "
            "(always so for holdout tasks).",
        ),
    ] = False,
    include_withdrawn: Annotated[
        bool,
        typer.Option("--include-withdrawn", help="Also run tasks whose last validation failed."),
    ] = False,
    concurrency: Annotated[
        int,
        typer.Option(
            min=1,
            help="Task runs in flight at once in one process, each in a thread: for agents that "
            "mostly wait on a model (default 1).",
        ),
    ] = 1,
    max_connections: Annotated[
        int | None,
        typer.Option(min=1, help="model:<name> agents: model requests in flight at once at most."),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Task runs at once, each in its own process (default: one per core; one "
            "process for a small plan of a scripted agent's task runs).",
        ),
    ] = None,
    executor: Annotated[
        str,
        typer.Option(
            metavar="pool|ray",
            help="pool: worker processes on this machine; ray: Ray actors, on this machine or a "
            "cluster (pip install 'assay\\[ray]').",
        ),
    ] = "pool",
    ray_address: Annotated[
        str | None,
        typer.Option(
            metavar="ADDR",
            help="--executor ray: the Ray cluster to run on (host:port, ray://host:port or auto; "
            "default: a local one started for the run).",
        ),
    ] = None,
    world_db: Annotated[
        str | None,
        typer.Option(
            help="Run the world on this PostgreSQL server (postgresql://user@host:port/db); "
            "also $ASSAY_WORLD_DB.",
        ),
    ] = None,
    action_timeout: Annotated[
        float,
        typer.Option(
            min=0.001,
            metavar="SECONDS",
            help="Time limit of each action of a Python class agent; past it, that task run is "
            "not scored (side agent).",
        ),
    ] = 60.0,
    base_url: Annotated[
        str | None,
        typer.Option(
            help="model:<name> and cli:<name> agents: the model endpoint (else $OPENAI_BASE_URL, "
            "or $ANTHROPIC_BASE_URL for an agent of Anthropic's API)."
        ),
    ] = None,
    agent_endpoint: Annotated[
        list[str] | None,
        typer.Option(
            metavar="URL",
            help="Python class agents: a model endpoint the agent's sandbox may reach (only its "
            "host and port, through a proxy); repeat.",
        ),
    ] = None,
    temperature: Annotated[
        float | None, typer.Option(help="model:<name> agents: sampling temperature.")
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option(min=1, help="model:<name> agents: tokens per reply.")
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="model:<name> agents: the provider's sampling seed.")
    ] = None,
    model_arg: Annotated[
        list[str] | None,
        typer.Option(
            metavar="KEY=VALUE",
            help="model:<name> agents: one more request field (VALUE as JSON, else text); repeat.",
        ),
    ] = None,
    customer: Annotated[
        str | None,
        typer.Option(
            metavar="model:NAME",
            help="A model plays each task's customer instead of its scripted replies (opt-in; "
            "the request and changes stay scripted).",
        ),
    ] = None,
    model_timeout: Annotated[
        float,
        typer.Option(
            min=0.001, metavar="SECONDS", help="model:<name> agents: one request's time limit."
        ),
    ] = 60.0,
    judge_model: Annotated[
        str | None,
        typer.Option(
            help="The model judge checks ask when they name none (also $ASSAY_JUDGE_MODEL)."
        ),
    ] = None,
    model_retries: Annotated[
        int,
        typer.Option(
            min=0, help="model:<name> agents: retries of a request that got 429, 5xx or timed out."
        ),
    ] = 4,
    pass_threshold: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Container-format tasks: the primary reward that verifies a task run (default: "
            "each task's [metadata] pass_threshold, else 1).",
        ),
    ] = None,
    verifier_mode: Annotated[
        str | None,
        typer.Option(
            metavar="task|separate",
            help="Container-format tasks: task verifies each as its task.toml says; separate "
            "verifies every one in a fresh sandbox from the image before the agent, holding only "
            "its declared artifacts (the mode for a leaderboard). Default: task; a resumed run "
            "keeps its own.",
        ),
    ] = None,
) -> None:
    """Run every chosen task with one agent, record it in the store and print the result table."""
    from assay.runs.store import open_store

    chosen = output_format(fmt, as_json)
    as_json = chosen == "json"
    if judge_model is not None:
        os.environ["ASSAY_JUDGE_MODEL"] = judge_model
    if customer is not None:
        if not customer.startswith("model:") or customer == "model:":
            raise UsageError(f"--customer: {customer!r} is not model:<name>")
        from assay.provider import require_sdk

        require_sdk("--customer model:…")
        os.environ["ASSAY_CUSTOMER_MODEL"] = customer
    from assay.taskrun.agents.names import parse_agent

    named = parse_agent(agent) if agent is not None else None
    uses_model = judge_model is not None or customer is not None
    if (named is not None and named.uses_model) or uses_model:
        from assay.cli.model_options import set_model_options

        set_model_options(
            base_url,
            temperature,
            max_tokens,
            seed,
            model_arg or [],
            model_retries,
            max_connections,
            model_timeout,
        )
    if concurrency > 1 and named is not None and named.own_process:
        raise UsageError("--concurrency: a Python class agent acts in one process; use --workers")
    if named is not None and named.own_process:
        from assay.taskrun.agents.sandbox import unavailable

        if reason := unavailable():
            typer.echo(f"note: the agent runs as a process, not in a sandbox: {reason}", err=True)
    if agent_endpoint:
        from assay.taskrun.agents.endpoints import set_endpoints

        set_endpoints(agent_endpoint)
    if pass_threshold is not None:
        from assay.world.sandbox.dataset import PASS_THRESHOLD_ENV

        os.environ[PASS_THRESHOLD_ENV] = repr(pass_threshold)  # worker processes read it too

    chosen_mode = _verifier_mode(verifier_mode)
    kept = None
    if keep_artifacts is not None:
        from assay.runs.kept import keep_folder

        kept = keep_folder(keep_artifacts)
    execution = Execution(workers, world_db, action_timeout, concurrency, executor, ray_address)
    execution.check()
    if resume is not None:
        _refuse_with_resume(task, split, repeats)
    elif world is None:
        raise UsageError("WORLD: missing; give a world directory, or --resume RUN")
    with _cancel_on_terminate(), open_store(store) as records:
        if resume is None:
            assert world is not None
            chosen_agent, tasks, repeats = replay_choice(
                records, agent or DEFAULT_AGENT, task or (), repeats
            )
            choice = Choice(
                tasks,
                split or (),
                repeats or 1,
                scored,
                include_withdrawn,
                chosen_mode or "task",
                kept,
            )
            outcome = fresh(
                records,
                world,
                chosen_agent,
                choice,
                execution,
                as_json,
            )
        else:
            outcome = resumed(
                records,
                resume,
                world,
                agent,
                execution,
                as_json,
                chosen_mode,
                kept,
            )
        from assay.cli.run_output import report, save

        if save_trajectories is not None:
            save(records, outcome.benchmark_run.id, save_trajectories)
        report(records, outcome, chosen)
    if outcome.benchmark_run.phase == "cancelled":
        raise typer.Exit(130)
    score = outcome.benchmark_run.score
    if fail_under is not None and (score is None or score < fail_under):
        raise typer.Exit(1)


def _verifier_mode(given: str | None) -> VerifierChoice | None:
    """--verifier-mode's choice (None when not given); UsageError naming it for anything else."""
    if given is None:
        return None
    from assay.spec.verifier_choice import verifier_choice

    try:
        return verifier_choice(given)
    except ValueError as error:
        raise UsageError(f"--verifier-mode: {error}") from None


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
