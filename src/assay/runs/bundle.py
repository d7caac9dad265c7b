"""One file to share a run: the run, every task run with its checks, evidence, state changes and
trajectory, as gzipped JSON; read back into any store, or into a store of its own to open it."""

from __future__ import annotations

import gzip
import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from assay.errors import UsageError
from assay.runs.aggregate import aggregate
from assay.runs.plan import PlannedRun
from assay.runs.record import load_outcome
from assay.runs.store import Store, open_store

FORMAT = "assay-bundle"
VERSION = 1
SUFFIX = ".bundle.json.gz"


def write_bundle(store: Store, run_id: str, path: Path) -> str:
    """Write the stored run `run_id` (a scored one as scored mode shows it) to `path`; its id."""
    outcome = load_outcome(store, run_id, trajectories=True)
    record = store.benchmark_run(outcome.benchmark_run.id)
    data = {
        "format": FORMAT,
        "version": VERSION,
        "world_path": record.world_path,
        **outcome.as_json(trajectories=True),
    }
    with gzip.open(path, "wt", encoding="utf-8") as out:
        json.dump(data, out, ensure_ascii=False)
    return outcome.benchmark_run.id


def read_bundle(path: Path) -> dict[str, Any]:
    """The bundle's content; UsageError naming the file when it is not one."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as given:
            data = json.load(given)
    except (OSError, EOFError, ValueError) as failure:
        raise UsageError(
            f"{path}: not a bundle written by `assay export --format bundle` ({failure})"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UsageError(f"{path}: not a bundle written by `assay export --format bundle`")
    if data.get("version") != VERSION:
        raise UsageError(
            f"{path}: bundle version {data.get('version')!r}; this assay reads {VERSION}"
        )
    return data


def import_bundle(store: Store, path: Path) -> str:
    """Store the bundle's run and its task runs as they were; its id. A run already there is
    refused rather than overwritten."""
    from assay.runs.run import BenchmarkOutcome
    from assay.runs.store.batch import BatchWriter

    data = read_bundle(path)
    outcome = BenchmarkOutcome.model_validate(
        {"benchmark_run": data["benchmark_run"], "task_runs": data["task_runs"]}
    )
    run, results = outcome.benchmark_run, outcome.task_runs
    if _has_run(store, run.id):
        raise UsageError(f"{path}: run {run.id} is already in {store.location.shown}")
    store.create_benchmark_run(
        run.id,
        world=run.world,
        world_version=run.world_version,
        world_path=str(data.get("world_path") or ""),
        agent=run.agent,
        repeats=run.repeats,
        planned=[PlannedRun(r.id, r.task_id, r.repeat) for r in results],
        splits={r.task_id: r.split for r in results},
        scored=run.scored_run,
        verifier_mode=run.verifier_mode,
        config=run.config,
    )
    store.start_benchmark_run(run.id, at=run.started_at)
    writer = BatchWriter(store, run.id, replacing=False)
    for result in results:
        writer.finished(result)
    writer.close()
    figures = aggregate(results).model_dump(mode="json")
    phase = run.phase if run.phase in ("completed", "cancelled") else "cancelled"
    status = run.status if run.status != "active" else "cancelled"
    store.finish_benchmark_run(
        run.id, phase=phase, status=status, figures=figures, at=run.finished_at
    )
    return run.id


@contextmanager
def opened(paths: list[str], store: str | None) -> Iterator[tuple[str | None, list[str]]]:
    """`store` and `paths` as given, but where any of `paths` is a bundle file: a store of their
    own holding every bundle, and each bundle replaced by its run's id."""
    bundles = [Path(path) for path in paths if _is_bundle_path(path)]
    if not bundles:
        yield store, paths
        return
    with tempfile.TemporaryDirectory(prefix="assay-bundle-") as folder:
        url = f"sqlite:///{Path(folder) / 'bundles.db'}"
        ids = {}
        with open_store(url) as own:
            for bundle in bundles:
                ids[str(bundle)] = import_bundle(own, bundle)
        yield (
            url,
            [ids.get(str(Path(path)), path) if _is_bundle_path(path) else path for path in paths],
        )


def _is_bundle_path(text: str) -> bool:
    """Named as a bundle, or a gzip file (its magic number) where a run id was expected."""
    path = Path(text)
    if text.endswith(SUFFIX):
        return True
    if not path.is_file():
        return False
    with path.open("rb") as given:
        return given.read(2) == b"\x1f\x8b"


def _has_run(store: Store, run_id: str) -> bool:
    from assay.runs.store import UnknownRun

    try:
        return store.benchmark_run(run_id).id == run_id
    except UnknownRun:
        return False
