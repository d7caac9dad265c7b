"""How the CLI shows a run's configuration: as a run.toml (`assay show`), and each difference
between two runs' as one warning line (`assay compare`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from assay.report.comparison import RunComparison
    from assay.runs.run import BenchmarkRunResult


def config_lines(run: BenchmarkRunResult) -> list[str]:
    """The run's configuration as the lines of a run.toml `--config` takes (unset settings left
    out), under a comment naming assay's version and the world's digest."""
    from assay.runs.config import flat

    if run.config is None:
        return ["# configuration: not stored (the run was made before assay stored it)"]
    stored = run.config
    lines = [f"# configuration · assay {stored['assay_version']} · world {stored['world_digest']}"]
    for name, value in flat(stored["run"]).items():
        if value is None or value in ([], {}):
            continue
        lines.append(f"{name} = {_toml_value(value)}")
    return lines


def _toml_value(value: Any) -> str:
    """A setting's value as TOML: JSON's text is TOML's for these (text, numbers, lists of them)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return (
            "{ " + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + " }"
        )
    return json.dumps(value)


def print_config(run: BenchmarkRunResult) -> None:
    typer.echo("\n".join(config_lines(run)))


def warn_config_differences(compared: RunComparison) -> None:
    """One line on stderr for each setting the two runs were made with otherwise, or for a run
    stored without its configuration."""
    for run in (compared.a, compared.b):
        if run.config is None:
            typer.echo(f"warning: run {run.id} stored no configuration to compare", err=True)
    for name, a, b in compared.config_differences():
        typer.echo(
            f"warning: the runs differ in {name}: {json.dumps(a)} (A) vs {json.dumps(b)} (B)",
            err=True,
        )
