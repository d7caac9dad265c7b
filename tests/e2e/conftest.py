from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ASSAY = str(Path(sys.executable).parent / "assay")


@pytest.fixture
def no_host_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key or endpoint of the machine's own leaks into the test's runs."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        if name in os.environ:
            monkeypatch.delenv(name)


@pytest.fixture
def assay_cli(tmp_path, assay_home):
    """Run the installed `assay` command as a user would, in a fresh working directory."""
    return cli_in(tmp_path, assay_home)


@pytest.fixture(scope="module")
def module_assay_cli(tmp_path_factory, assay_home):
    """`assay_cli` for fixtures that a whole module shares."""
    return cli_in(tmp_path_factory.mktemp("module-cli"), assay_home)


def cli_in(workdir: Path, assay_home: Path):

    def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "ASSAY_HOME": str(assay_home), "COLUMNS": "200"}
        return subprocess.run(
            [ASSAY, *args],
            cwd=cwd or workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    return run
