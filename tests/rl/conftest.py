from __future__ import annotations

import pytest
from worldkit import SHOP

from assay.runs import open_benchmark


@pytest.fixture(scope="session")
def shop():
    benchmark = open_benchmark(SHOP)
    yield benchmark
    benchmark.close()
