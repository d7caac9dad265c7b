from __future__ import annotations

from pathlib import Path

import pytest
from worldkit import copy_shop


@pytest.fixture
def shop_copy(tmp_path: Path) -> Path:
    """A copy of worlds/shop, without its baselines, that a test may change."""
    return copy_shop(tmp_path / "shop")
