"""What the host must offer: the tools sandbox_available() checks, the root sandbox homes live in."""

from __future__ import annotations

import shutil
import stat
import sys
from pathlib import Path

import pytest

from assay.world.sandbox import host, sandbox_available, sandbox_root


def test_sandbox_root_is_made_private_where_the_environment_says(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ASSAY_SANDBOX_DIR", str(tmp_path / "nested" / "boxes"))
    root = sandbox_root()
    assert root == tmp_path / "nested" / "boxes"
    assert stat.S_IMODE(root.stat().st_mode) == 0o700


def test_sandbox_root_defaults_to_the_temporary_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("ASSAY_SANDBOX_DIR")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    assert sandbox_root() == tmp_path / "assay-sandboxes"


def test_a_missing_tool_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    real_which = shutil.which
    monkeypatch.setattr(
        shutil, "which", lambda name: None if name == "nsenter" else real_which(name)
    )
    assert sandbox_available() == "sandbox tools not installed: nsenter"
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert sandbox_available() == "bubblewrap (bwrap) is not installed"


def test_the_interpreter_dirs_hold_the_running_python() -> None:
    dirs = host.interpreter_dirs()
    assert any(Path(sys.prefix).resolve().is_relative_to(path) for path in dirs)
    assert any(Path(sys.executable).resolve().is_relative_to(path) for path in dirs)
