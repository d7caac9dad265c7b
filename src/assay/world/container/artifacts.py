"""Artifacts: files the task names, copied out of the agent's sandbox with a manifest, and put back
at their original paths in a separate verifier's sandbox."""

from __future__ import annotations

import fnmatch
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.world.container.box import Sandbox

MANIFEST = "manifest.json"
FILES = "files"  # under the artifacts dir: each artifact at its absolute path


def collect_artifacts(box: Sandbox, entries: Sequence[Any], target: Path) -> list[dict[str, Any]]:
    """Copy each artifact out to `target`; a missing one is recorded, never fatal."""
    target.mkdir(parents=True, exist_ok=True)
    manifest = []
    for entry in entries:
        source = entry if isinstance(entry, str) else entry.source
        destination = None if isinstance(entry, str) else entry.destination
        exclude = [] if isinstance(entry, str) else list(entry.exclude or [])
        absolute = source if source.startswith("/") else f"/{source}"
        copied = target / FILES / absolute.lstrip("/")
        copied.parent.mkdir(parents=True, exist_ok=True)
        found = box.get(absolute, copied)
        if found and exclude:
            _drop_excluded(copied, exclude)
        manifest.append(
            {
                "source": absolute,
                "destination": destination or absolute,
                "status": "collected" if found else "missing",
            }
        )
    (target / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def restore_artifacts(box: Sandbox, collected: Path) -> None:
    """Put every collected artifact back at its original path, and /logs/artifacts as the agent
    left it; links stay links (tar streams, never followed on the host)."""
    files = collected / FILES
    if files.is_dir() and any(files.iterdir()):
        box.put(files, "/")
    agent_artifacts = collected / "logs"
    if agent_artifacts.is_dir() and not agent_artifacts.is_symlink():
        box.put(agent_artifacts, "/logs/artifacts")


def _drop_excluded(copied: Path, patterns: list[str]) -> None:
    if not copied.is_dir():
        return
    for path in sorted(copied.rglob("*"), reverse=True):
        relative = path.relative_to(copied).as_posix()
        if any(fnmatch.fnmatch(relative, pattern) for pattern in patterns):
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
