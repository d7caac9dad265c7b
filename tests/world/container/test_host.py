"""What the host must offer: the tools sandbox_available() checks, the root sandbox homes live in."""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

from assay.world.container import host, sandbox_available, sandbox_root


def test_sandbox_root_is_made_unlistable_where_the_environment_says(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ASSAY_SANDBOX_DIR", str(tmp_path / "nested" / "boxes"))
    root = sandbox_root()
    assert root == tmp_path / "nested" / "boxes"
    # each sandbox's keeper, an unprivileged uid, walks into its own home; no one else lists them
    assert stat.S_IMODE(root.stat().st_mode) == 0o711
    root.chmod(0o755)
    assert stat.S_IMODE(sandbox_root().stat().st_mode) == 0o711


def test_sandbox_root_defaults_to_the_temporary_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("ASSAY_SANDBOX_DIR")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    assert sandbox_root() == tmp_path / "assay-sandboxes"


def without(monkeypatch: pytest.MonkeyPatch, *missing: str) -> None:
    real_which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name: None if name in missing else real_which(name))


@pytest.mark.skipif(sandbox_available() is not None, reason="the tools are not all here")
def test_each_missing_need_is_named_with_what_installs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    without(monkeypatch, "mmdebstrap")
    assert sandbox_available() == (
        "mmdebstrap is not installed (apt-get install mmdebstrap): it builds the base root"
    )
    monkeypatch.setattr(host, "is_static", lambda path: False)
    assert sandbox_available() == (
        f"{host.BUSYBOX} is not a static busybox (apt-get install busybox-static)"
    )
    without(monkeypatch, "bwrap", "mmdebstrap")
    assert sandbox_available() == "bubblewrap (bwrap) is not installed (apt-get install bubblewrap)"


@pytest.mark.skipif(sandbox_available() is not None, reason="the tools are not all here")
def test_a_user_other_than_root_is_told_sandboxes_need_root(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    missing = sandbox_available()
    assert missing is not None and missing.startswith("sandboxes need root")


def test_nsenter_is_no_longer_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    before = sandbox_available()
    without(monkeypatch, "nsenter")
    assert sandbox_available() == before


def test_only_a_static_elf_counts_as_the_static_busybox(tmp_path: Path) -> None:
    script = tmp_path / "busybox"
    script.write_text("#!/bin/sh\n")
    assert not host.is_static(script)
    assert not host.is_static(Path(sys.executable).resolve())  # dynamically linked
    assert not host.is_static(tmp_path / "missing")
    if host.BUSYBOX.exists() and sandbox_available() is None:
        assert host.is_static(host.BUSYBOX)


def test_the_tool_layer_holds_the_uv_commands_and_the_real_uv_is_found() -> None:
    assert sorted(path.name for path in host.tool_dir().iterdir()) == ["uv", "uvx"]
    uv = host.uv_binary()
    assert uv is not None and uv.is_file() and os.access(uv, os.X_OK)
