"""Exit codes of the `assay` command: 1 when asked to fail on a score, 2 for a bad option value."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ASSAY = str(Path(sys.executable).parent / "assay")


def _assay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ASSAY, *args], cwd=ROOT, capture_output=True, text=True)


def test_fail_under_exits_1_below_the_score() -> None:
    below = _assay(
        "run", "worlds/shop", "--agent", "noop", "--task", "update-address", "--fail-under", "0.99"
    )
    assert below.returncode == 1
    above = _assay("run", "worlds/shop", "--task", "update-address", "--fail-under", "0.99")
    assert above.returncode == 0


def test_a_bad_option_value_is_a_usage_error_not_a_traceback() -> None:
    done = _assay("run", "worlds/shop", "--repeats", "0")
    assert done.returncode == 2
    assert "Invalid value for '--repeats'" in done.stderr
    assert "Traceback" not in done.stderr
