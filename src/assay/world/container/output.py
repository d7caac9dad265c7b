"""What the agent's `exec` returns: each stream decoded and cut at the output limit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.world.container.box import ExecResult
from assay.world.container.hostfiles import tail_of
from assay.world.container.tools import OUTPUT_LIMIT_BYTES


def exec_output(result: ExecResult) -> dict[str, Any]:
    return {
        "stdout": cut(result.stdout),
        "stderr": cut(result.stderr),
        "exit_code": result.exit_code,
    }


def cut(data: bytes, limit: int = OUTPUT_LIMIT_BYTES) -> str:
    """The stream as text; past `limit` bytes, its head and tail with the number of bytes left out."""
    if len(data) <= limit:
        return data.decode(errors="replace")
    half = limit // 2
    left_out = len(data) - 2 * half
    head = data[:half].decode(errors="replace")
    tail = data[-half:].decode(errors="replace")
    return f"{head}\n[... {left_out} bytes left out ...]\n{tail}"


def tail(path: Path, limit: int = 4000, *, base: Path | None = None) -> str:
    """The last `limit` characters of a text file the sandbox wrote; empty when it is missing, a
    link or not a regular file (see `hostfiles`)."""
    return tail_of(path, limit * 4, base=base).decode(errors="replace")[-limit:]
