from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ASSAY = str(Path(sys.executable).parent / "assay")


@pytest.fixture
def assay_cli(tmp_path, assay_home):
    """Run the installed `assay` command as a user would, in a fresh working directory."""

    def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "ASSAY_HOME": str(assay_home), "COLUMNS": "200"}
        return subprocess.run(
            [ASSAY, *args],
            cwd=cwd or tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    return run
