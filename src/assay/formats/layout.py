"""What kind of world a directory holds, from its file names alone (no file is parsed)."""

from __future__ import annotations

from pathlib import Path


def is_task_dir(path: Path) -> bool:
    """A directory holding a task.toml."""
    return path.is_dir() and (path / "task.toml").is_file()


def is_container_world(path: Path) -> bool:
    """A task directory (it holds task.toml), or a directory of them with no world.toml."""
    if not path.is_dir() or (path / "world.toml").exists():
        return False
    return is_task_dir(path) or any(is_task_dir(child) for child in path.iterdir())
