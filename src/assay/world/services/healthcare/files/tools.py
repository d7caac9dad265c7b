"""The file tree's tools: list, read, write, move and delete files; make and remove folders."""

from __future__ import annotations

from typing import Any

from assay.world.services.lookup import service_for
from assay.world.tools import Tool


def files_list(world: Any, prefix: str = "", service: str | None = None) -> dict[str, Any]:
    """List the files of the shared file tree (paths, sizes, sha256) under a prefix.

    Args:
        prefix: Only paths starting with this, e.g. inbox/referrals/.
        service: The file tree to use, when the world has more than one.
    """
    return service_for(world, "files", service).request("list", {"prefix": prefix})


def files_read(world: Any, path: str, service: str | None = None) -> dict[str, Any]:
    """Read one file: its text, or base64 when it is binary.

    Args:
        path: The file's path, e.g. inbox/referrals/R-17.txt.
        service: The file tree to use, when the world has more than one.
    """
    return service_for(world, "files", service).request("read", {"path": path})


def files_write(
    world: Any, path: str, content: str, encoding: str = "utf-8", service: str | None = None
) -> dict[str, Any]:
    """Write a file (created, or replaced whole) where writing is allowed, e.g. outbound/.

    Args:
        path: The file's path, e.g. outbound/claims/837P_20260302.x12.
        content: The file's content: text, or base64 with encoding = base64.
        encoding: utf-8 (default) or base64.
        service: The file tree to use, when the world has more than one.
    """
    args = {"path": path, "content": content, "encoding": encoding}
    return service_for(world, "files", service).request("write", args)


def files_move(world: Any, src: str, dst: str, service: str | None = None) -> dict[str, Any]:
    """Move (rename) a file to a place where writing is allowed, e.g. into archive/.

    Args:
        src: The file's path now.
        dst: Its new path.
        service: The file tree to use, when the world has more than one.
    """
    return service_for(world, "files", service).request("move", {"src": src, "dst": dst})


def files_delete(world: Any, path: str, service: str | None = None) -> dict[str, Any]:
    """Delete a file where writing is allowed.

    Args:
        path: The file's path.
        service: The file tree to use, when the world has more than one.
    """
    return service_for(world, "files", service).request("delete", {"path": path})


def files_mkdir(world: Any, path: str, service: str | None = None) -> dict[str, Any]:
    """Make a folder (its parent must exist) where writing is allowed; it stays, empty or not,
    until removed.

    Args:
        path: The folder's path, e.g. outbound/claims.
        service: The file tree to use, when the world has more than one.
    """
    return service_for(world, "files", service).request("mkdir", {"path": path})


def files_rmdir(world: Any, path: str, service: str | None = None) -> dict[str, Any]:
    """Remove an empty folder where writing is allowed.

    Args:
        path: The folder's path.
        service: The file tree to use, when the world has more than one.
    """
    return service_for(world, "files", service).request("rmdir", {"path": path})


FILES_TOOLS = (
    Tool(files_list),
    Tool(files_read),
    Tool(files_write, writes=True),
    Tool(files_move, writes=True),
    Tool(files_delete, writes=True),
    Tool(files_mkdir, writes=True),
    Tool(files_rmdir, writes=True),
)
