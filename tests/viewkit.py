"""A records store with runs worth looking at, for the viewer's and the browser's tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from worldkit import SHOP

from assay.runs import open_benchmark, prepare
from assay.runs.record import record_run
from assay.runs.store import open_store

TASKS = ["refund-double-charge", "update-address", "cancel-unshipped-order", "refuse-late-refund"]


@dataclass(frozen=True)
class Recorded:
    """The store's file and the ids of its runs: the reference agent (two repeats), noop, and
    noop again as a scored run."""

    store: str
    reference: str
    noop: str
    scored: str


def record_runs(folder: Path) -> Recorded:
    store = str(folder / "records.db")
    benchmark = open_benchmark(SHOP)
    ids = []
    with open_store(store) as records:
        for agent, repeats, scored in (
            ("reference", 2, False),
            ("noop", 1, False),
            ("noop", 1, True),
        ):
            planned = prepare(benchmark, agent, TASKS, repeats=repeats)
            outcome = record_run(records, benchmark, agent, planned, repeats=repeats, scored=scored)
            ids.append(outcome.benchmark_run.id)
    return Recorded(store, *ids)
