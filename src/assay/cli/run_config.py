"""`assay run`'s configuration: a `RunConfig` from `--config run.toml` and the flags given (a flag
wins over the file), on top of a resumed run's own; bad input is one line naming the flag, or the
file and field."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from assay.errors import UsageError

if TYPE_CHECKING:
    from assay.runs.config import RunConfig

# a setting's dotted name → the flag that sets it
FLAGS = {
    "agent": "--agent",
    "tasks": "--task",
    "splits": "--split",
    "repeats": "--repeats",
    "scored": "--scored",
    "include_withdrawn": "--include-withdrawn",
    "model.base_url": "--base-url",
    "model.temperature": "--temperature",
    "model.max_tokens": "--max-tokens",
    "model.seed": "--seed",
    "model.args": "--model-arg",
    "model.retries": "--model-retries",
    "model.timeout_s": "--model-timeout",
    "model.max_connections": "--max-connections",
    "judge_model": "--judge-model",
    "customer": "--customer",
    "pass_threshold": "--pass-threshold",
    "verifier_mode": "--verifier-mode",
    "action_timeout_s": "--action-timeout",
    "agent_endpoints": "--agent-endpoint",
    "executor": "--executor",
    "workers": "--workers",
    "concurrency": "--concurrency",
    "ray_address": "--ray-address",
    "world_db": "--world-db",
}


def given_settings(flags: dict[str, Any]) -> dict[str, Any]:
    """The flags given (None, False and empty lists are not), as nested settings."""
    nested: dict[str, Any] = {}
    for name, value in flags.items():
        if value is None or value is False or value == [] or value == {}:
            continue
        if name not in FLAGS:
            raise KeyError(name)
        head, _, tail = name.partition(".")
        if tail:
            nested.setdefault(head, {})[tail] = value
        else:
            nested[name] = value
    return nested


def build_config(
    given: dict[str, Any], file: Path | None, base: RunConfig | None = None
) -> RunConfig:
    """The run's configuration: `base` (a resumed run's), then the file's settings, then the
    flags `given` (as `given_settings` makes them)."""
    from assay.runs.config import RunConfig

    values = {} if base is None else base.model_dump()
    if file is not None:
        values = _merged(values, _file_settings(file))
    values = _merged(values, given)
    try:
        return RunConfig.model_validate(values)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        name = ".".join(str(part) for part in first["loc"])
        flag = FLAGS.get(name) or FLAGS.get(name.rpartition(".")[0]) or name
        raise UsageError(f"{flag}: {first['msg'].removeprefix('Value error, ')}") from None


def _file_settings(file: Path) -> dict[str, Any]:
    """The settings of a `--config` file, each proved on its own: a SpecError names the file and
    the field of the first one that is unknown or bad."""
    from assay.formats.files import parse_model, read_toml, shown
    from assay.runs.config import RunConfig

    data = read_toml(file)
    parse_model(RunConfig, data, shown(file))
    return data


def _merged(under: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """`over`'s settings on top of `under`'s, a table (the model's) merged key by key."""
    merged = dict(under)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict) and key != "args":
            merged[key] = _merged(merged[key], value)
        else:
            merged[key] = value
    return merged
