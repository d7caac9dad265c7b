"""The run settings in force in this process: what task runs read deep down (model options, the
judge's and the customer's model, the pass threshold, the agent's endpoints), set from the run's
configuration by whoever runs task runs (`using` around a run, `install` in a worker process)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from assay.provider import ModelOptions


@dataclass(frozen=True)
class RunSettings:
    """The part of a run's configuration its task runs read where they need it."""

    model: ModelOptions = field(default_factory=ModelOptions)
    judge_model: str | None = None  # the model a judge check that names none asks
    customer_model: str | None = None  # a model plays each task's customer (its name alone)
    pass_threshold: float | None = None  # container-format tasks: overrides each task's own
    agent_endpoints: tuple[str, ...] = ()  # what a sandboxed class agent may reach


_lock = threading.Lock()
_in_force = RunSettings()


def in_force() -> RunSettings:
    """The settings of the run in progress in this process (the defaults when none is)."""
    return _in_force


def install(settings: RunSettings) -> None:
    """`settings` in force for the rest of this process's life (a worker process of one run)."""
    global _in_force
    with _lock:
        _in_force = settings


@contextmanager
def using(settings: RunSettings) -> Iterator[RunSettings]:
    """`settings` in force while the block runs, those before it again afterwards."""
    before = in_force()
    install(settings)
    try:
        yield settings
    finally:
        install(before)
