"""How `assay run` starts its task runs (`assay.launch.start`): a fresh benchmark run, or a
recorded run resumed with the settings given on top of its own, its notes and progress on stderr."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assay.launch.start import Advance, Display
    from assay.runs.config import RunConfig
    from assay.runs.run import BenchmarkOutcome
    from assay.runs.store import Store


def fresh(
    records: Store, world: Path, config: RunConfig, kept: Path | None, quiet: bool
) -> BenchmarkOutcome:
    """A new benchmark run of `world` as `config` says (`quiet`: no progress bar)."""
    from assay.launch.start import fresh_run

    return fresh_run(records, world, config, kept, _display(quiet))


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
    from assay.cli.run_config import build_config
    from assay.launch.start import resumed_run, stored_run_config

    record = records.benchmark_run(run_id, parameter="--resume")
    config = build_config(given, file, stored_run_config(record))
    return resumed_run(records, record, config, world, kept, _display(quiet))


def _display(quiet: bool) -> Display:
    """Notes on stderr; the progress bar, or nothing to show (and no Rich to import) when the
    output is JSON."""
    from assay.launch.start import Display

    return Display(note=_note, progress=_no_progress if quiet else _progress)


def _note(line: str) -> None:
    from assay.cli.render import errors

    errors.print(line, highlight=False, markup=False, soft_wrap=True)


def _progress(total: int) -> AbstractContextManager[Advance]:
    from assay.cli.render import progress

    return progress(total)


def _no_progress(total: int) -> AbstractContextManager[Advance]:
    return nullcontext(lambda _: None)
