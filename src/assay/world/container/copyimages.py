"""Images a `COPY --from=<image>` may name although no registry is reached: each of their paths that
Dockerfiles copy, and the file of assay's own that stands for it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from assay.world.container.host import tool_dir, uv_binary


def _uv() -> Path | None:
    """The tool layer's uv, which runs the real uv (the uv package of assay's sandbox extra) with
    the sandbox's own Pythons, wherever it is copied to."""
    return tool_dir() / "uv" if uv_binary() is not None else None


def _uvx() -> Path | None:
    return tool_dir() / "uvx" if uv_binary() is not None else None


# (image name without tag or digest, path in the image → where assay finds that file)
IMAGES: list[tuple[re.Pattern[str], dict[str, Callable[[], Path | None]]]] = [
    (
        re.compile(r"(ghcr\.io/)?astral-sh/uv"),
        {
            "/uv": _uv,
            "/uvx": _uvx,
            "/usr/local/bin/uv": _uv,
            "/usr/local/bin/uvx": _uvx,
            "/bin/uv": _uv,
            "/bin/uvx": _uvx,
        },
    ),
]


def files(image: str, paths: list[str]) -> list[tuple[str, Path]] | None:
    """(path in the image, host file) for every path, or None when the image is not one assay
    stands in for, or one of the paths is not a file it has."""
    name = re.sub(r"@.*$", "", image)
    name = re.sub(r":[^/:]*$", "", name)
    for pattern, table in IMAGES:
        if pattern.fullmatch(name):
            found = [(path, table[path]()) if path in table else (path, None) for path in paths]
            if all(host is not None and host.is_file() for _, host in found):
                return [(path, host) for path, host in found if host is not None]
            return None
    return None


def identity(host: Path) -> str:
    """What a built layer depends on of a host file: its path, size and modification time."""
    info = host.stat()
    return f"{host}:{info.st_size}:{info.st_mtime_ns}"
