from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from assay.world.container import Sandbox, sandbox_available, sandbox_root

MISSING = sandbox_available()
if MISSING is not None and "bubblewrap" in MISSING:
    pytest.skip(MISSING, allow_module_level=True)

# Sandbox homes outside /tmp, so that masking them is what hides them (a sandbox's /tmp is its own).
SANDBOX_PARENT = Path("/var/tmp")


@pytest.fixture(autouse=True)
def sandboxes_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Each test gets its own sandbox root, removed afterwards."""
    root = SANDBOX_PARENT / f"assay-sandbox-test-{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("ASSAY_SANDBOX_DIR", str(root))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def start_sandbox() -> Iterator[Callable[..., Sandbox]]:
    """Start sandboxes in fresh homes under sandbox_root(); every one is stopped at the end."""
    started: list[Sandbox] = []

    def start(**options: object) -> Sandbox:
        home = sandbox_root() / f"box-{len(started)}"
        sandbox = Sandbox.start(home, **options)  # type: ignore[arg-type]
        started.append(sandbox)
        return sandbox

    yield start
    for sandbox in started:
        sandbox.stop()


@pytest.fixture
def box(start_sandbox: Callable[..., Sandbox]) -> Sandbox:
    """One overlay sandbox with workdir /app."""
    return start_sandbox(workdir="/app")
