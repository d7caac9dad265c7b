"""A task run's files laid out as the format's own runner leaves a trial folder
(docs/contracts/container.md §6): `agent/` (the agent's /logs/agent), `verifier/` (what the test
script left in /logs/verifier), `artifacts/` (/logs/artifacts, each collected artifact at its
destination, manifest.json); a multi-step task's also `steps/<name>/verifier/` and
`steps/<name>/artifacts/` of each step."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from assay.world.container.artifacts import FILES, MANIFEST
from assay.world.container.hostfiles import copy_tree

if TYPE_CHECKING:
    from assay.world.container.trial import Trial

AGENT_LOGS = "agent-logs"  # in a trial's home: its /logs/agent, copied out before any sandbox stops
LIMIT_BYTES = 512 * 1024 * 1024  # per part of the folder: a test that fills the disk fills no more


def keep_trial_files(trial: Trial, target: Path) -> list[str]:
    """Copy the task run's agent logs, verifier logs and artifacts into `target` (made); a note
    for each thing left out. Call after `trial.verify()` and before `trial.close()`: every
    sandbox is stopped by then, so nothing in them changes these files while they are copied."""
    target.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    home = trial.home
    logs = trial.result.logs if trial.result is not None else None
    parts = {"agent": home / AGENT_LOGS if home else None, "verifier": logs}
    for name, source in parts.items():
        (target / name).mkdir(exist_ok=True)
        if source is not None and source.is_dir():
            notes += _prefixed(name, copy_tree(source, target / name, limit_bytes=LIMIT_BYTES))
    notes += _artifacts(home / "artifacts" if home else None, target / "artifacts")
    if home is not None and trial.steps is not None:  # steps/<name>/: each step's own, as well
        for outcome in trial.steps.outcomes:
            kept, into = home / "steps" / outcome.name, target / "steps" / outcome.name
            (into / "verifier").mkdir(parents=True, exist_ok=True)
            if (kept / "verifier").is_dir():
                copied = copy_tree(kept / "verifier", into / "verifier", limit_bytes=LIMIT_BYTES)
                notes += _prefixed(f"steps/{outcome.name}/verifier", copied)
            notes += _prefixed(
                f"steps/{outcome.name}", _artifacts(kept / "artifacts", into / "artifacts")
            )
    return notes


def _artifacts(collected: Path | None, target: Path) -> list[str]:
    """/logs/artifacts as the agent left it, then each collected artifact at its destination
    (its absolute path below `target` when it names none), and the manifest."""
    target.mkdir(exist_ok=True)
    if collected is None or not collected.is_dir():
        return []
    notes: list[str] = []
    if (collected / "logs").is_dir():
        notes += copy_tree(collected / "logs", target, limit_bytes=LIMIT_BYTES)
    manifest_file = collected / MANIFEST
    manifest = json.loads(manifest_file.read_text()) if manifest_file.is_file() else []
    for entry in manifest:
        if entry.get("status") != "collected":
            continue
        source = collected / FILES / entry["source"].lstrip("/")
        destination = target / str(entry["destination"]).lstrip("/")
        notes += _copy_one(source, destination)
    if manifest_file.is_file():
        shutil.copyfile(manifest_file, target / MANIFEST)
    return _prefixed("artifacts", notes)


def _copy_one(source: Path, target: Path) -> list[str]:
    """A file, link or directory the sandbox left, copied without following any link."""
    info = os.lstat(source)
    target.parent.mkdir(parents=True, exist_ok=True)
    if stat.S_ISDIR(info.st_mode):
        return copy_tree(source, target, limit_bytes=LIMIT_BYTES)
    if target.is_dir() and not target.is_symlink():
        return [f"copy_skipped:target_is_directory:{target.name}"]
    target.unlink(missing_ok=True)
    if stat.S_ISLNK(info.st_mode):
        os.symlink(os.readlink(source), target)
    elif stat.S_ISREG(info.st_mode) and info.st_size <= LIMIT_BYTES:
        shutil.copyfile(source, target, follow_symlinks=False)
    else:
        why = "over_limit" if stat.S_ISREG(info.st_mode) else "special"
        return [f"copy_skipped:{why}:{target.name}"]
    return []


def _prefixed(part: str, notes: list[str]) -> list[str]:
    """Each `copy_skipped:<why>:<path>` with its path made relative to the trial folder."""
    split = (note.split(":", 2) for note in notes)
    return [f"{kind}:{why}:{part}/{path}" for kind, why, path in split]
