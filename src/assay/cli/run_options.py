"""The arguments and options of `assay run`, each named once so the command reads as its list."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

RunWorldArgument = Annotated[
    Path | None,
    typer.Argument(
        help="A world directory (holding world.toml), a container-format task directory "
        "(holding task.toml) or a directory of them; with --resume, the run's own."
    ),
]

AgentOption = Annotated[
    str | None,
    typer.Option(
        help="noop, reference (oracle), wrong:<name>, replay:<file>, replay:<directory>, "
        "replay:run:<RUN> (the tasks come from the trajectories) or module:Class "
        "(default: reference)."
    ),
]

RepeatsOption = Annotated[int | None, typer.Option(min=1, help="Task runs per task (default: 1).")]

ResumeOption = Annotated[
    str | None,
    typer.Option(
        "--resume",
        metavar="RUN",
        help="Finish a stored run: run again only its task runs that are missing or not scored.",
    ),
]

FailUnderOption = Annotated[
    float | None, typer.Option(help="Exit 1 when the run's score is below this.")
]

SaveTrajectoriesOption = Annotated[
    Path | None, typer.Option(help="Write one JSON trajectory file per task run here.")
]

KeepArtifactsOption = Annotated[
    Path | None,
    typer.Option(
        metavar="DIR",
        help="Container-format tasks: keep each task run's trial folder in DIR/<task>/<task "
        "run id>/ (agent/, verifier/, artifacts/, result.json), as the format's runner does.",
    ),
]

ScoredOption = Annotated[
    bool,
    typer.Option(
        "--scored",
        help="Show outcome, reward, score, verdict and axes but no check details or evidence "
        "(always so for holdout tasks).",
    ),
]

IncludeWithdrawnOption = Annotated[
    bool,
    typer.Option("--include-withdrawn", help="Also run tasks whose last validation failed."),
]

ConcurrencyOption = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="Task runs in flight at once in one process, each in a thread: for agents that "
        "mostly wait on a model (default 1).",
    ),
]

MaxConnectionsOption = Annotated[
    int | None,
    typer.Option(min=1, help="model:<name> agents: model requests in flight at once at most."),
]

WorkersOption = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="Task runs at once, each in its own process (default: one per core; one "
        "process for a small plan of a scripted agent's task runs).",
    ),
]

ExecutorOption = Annotated[
    str | None,
    typer.Option(
        metavar="pool|ray",
        help="pool: worker processes on this machine (the default); ray: Ray actors, on this "
        "machine or a cluster (pip install 'assay\\[ray]').",
    ),
]

RayAddressOption = Annotated[
    str | None,
    typer.Option(
        metavar="ADDR",
        help="--executor ray: the Ray cluster to run on (host:port, ray://host:port or auto; "
        "default: a local one started for the run).",
    ),
]

WorldDbOption = Annotated[
    str | None,
    typer.Option(
        help="Run the world on this PostgreSQL server (postgresql://user@host:port/db); "
        "also $ASSAY_WORLD_DB.",
    ),
]

ActionTimeoutOption = Annotated[
    float | None,
    typer.Option(
        min=0.001,
        metavar="SECONDS",
        help="Time limit of each action of a Python class agent; past it, that task run is "
        "not scored (side agent; default 60).",
    ),
]

BaseUrlOption = Annotated[
    str | None,
    typer.Option(
        help="model:<name> and cli:<name> agents: the model endpoint (else $OPENAI_BASE_URL, "
        "or $ANTHROPIC_BASE_URL for an agent of Anthropic's API)."
    ),
]

AgentEndpointOption = Annotated[
    list[str] | None,
    typer.Option(
        metavar="URL",
        help="Python class agents: a model endpoint the agent's sandbox may reach (only its "
        "host and port, through a proxy); repeat.",
    ),
]

TemperatureOption = Annotated[
    float | None, typer.Option(help="model:<name> agents: sampling temperature.")
]

MaxTokensOption = Annotated[
    int | None, typer.Option(min=1, help="model:<name> agents: tokens per reply.")
]

SeedOption = Annotated[
    int | None, typer.Option(help="model:<name> agents: the provider's sampling seed.")
]

ModelArgOption = Annotated[
    list[str] | None,
    typer.Option(
        metavar="KEY=VALUE",
        help="model:<name> agents: one more request field (VALUE as JSON, else text); repeat.",
    ),
]

CustomerOption = Annotated[
    str | None,
    typer.Option(
        metavar="model:NAME",
        help="A model plays each task's customer instead of its scripted replies (opt-in; "
        "the request and changes stay scripted).",
    ),
]

ModelTimeoutOption = Annotated[
    float | None,
    typer.Option(
        min=0.001,
        metavar="SECONDS",
        help="model:<name> agents: one request's time limit (default 60).",
    ),
]

JudgeModelOption = Annotated[
    str | None, typer.Option(help="The model judge checks ask when they name none.")
]

ModelRetriesOption = Annotated[
    int | None,
    typer.Option(
        min=0,
        help="model:<name> agents: retries of a request that got 429, 5xx or timed out "
        "(default 4).",
    ),
]

PassThresholdOption = Annotated[
    float | None,
    typer.Option(
        min=0.0,
        max=1.0,
        help="Container-format tasks: the primary reward that verifies a task run (default: "
        "each task's [metadata] pass_threshold, else 1).",
    ),
]

VerifierModeOption = Annotated[
    str | None,
    typer.Option(
        metavar="task|separate",
        help="Container-format tasks: task verifies each as its task.toml says; separate "
        "verifies every one in a fresh sandbox from the image before the agent, holding only "
        "its declared artifacts (the mode for a leaderboard). Default: task; a resumed run "
        "keeps its own.",
    ),
]

ConfigFileOption = Annotated[
    Path | None,
    typer.Option(
        "--config",
        metavar="FILE",
        help="A TOML file of the run's settings (see docs/records.md); a flag given wins.",
    ),
]
