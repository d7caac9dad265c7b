"""Runs of worlds/shop shared by the tests in this folder (each run is made once per backend), and
the stop signals as a terminal leaves them."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator, Sequence

import pytest

from assay.runs import BenchmarkOutcome, prepare, run_benchmark

SPLITS = ("train", "dev", "holdout")
ShopRun = Callable[..., BenchmarkOutcome]


@pytest.fixture(scope="session")
def shop_run(request: pytest.FixtureRequest) -> ShopRun:
    """`shop_run(backend, agent, task_ids=(), repeats=1)`: that run of worlds/shop (every split),
    made on first use and kept for the session, since a PostgreSQL reset is dear."""
    made: dict[tuple[str, str, tuple[str, ...], int], BenchmarkOutcome] = {}

    def run(backend: str, agent: str, task_ids: Sequence[str] = (), repeats: int = 1):
        key = (backend, agent, tuple(task_ids), repeats)
        if key not in made:
            shop = request.getfixturevalue("shop" if backend == "sqlite" else "shop_on_postgres")
            planned = prepare(shop, agent, task_ids, SPLITS, repeats)
            made[key] = run_benchmark(shop, agent, planned, repeats=repeats)
        return made[key]

    return run


@pytest.fixture
def plain_handlers() -> Iterator[None]:
    """Ctrl-C and SIGTERM as a terminal leaves them (a shell running the suite in the background
    may ignore SIGINT, and a stop handler leaves an ignored signal ignored), put back as they were
    after the test."""
    saved = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    yield
    for number, handler in saved.items():
        signal.signal(number, handler)
