from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from worldkit import SHOP


@pytest.fixture(scope="session", autouse=True)
def assay_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Snapshots and records of the test session go to a temporary directory."""
    home = tmp_path_factory.mktemp("assay-home")
    os.environ["ASSAY_HOME"] = str(home)
    return home


@pytest.fixture(scope="session")
def shop():
    from assay.runs import open_benchmark

    return open_benchmark(SHOP)
