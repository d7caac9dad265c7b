"""Paths inside a files service's tree, and globs over them (`outbound/**`, `837P_*.x12`)."""

from __future__ import annotations

import re
from functools import lru_cache


class BadTreePath(ValueError):
    pass


def tree_path(text: str) -> str:
    """`text` as a path inside the tree (`inbox/r.pdf`); BadTreePath when it would leave it."""
    path = text.strip().lstrip("/")  # "/outbound/x" as an SFTP client names it
    parts = path.split("/")
    if not path or "\\" in path or "\x00" in path:
        raise BadTreePath(f"{text!r} is not a file path like outbound/claims/837P.x12")
    if any(part in ("", ".", "..") for part in parts):
        raise BadTreePath(f"{text!r}: no empty, . or .. steps; paths stay inside the tree")
    return path


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """`**` crosses folders, `*` and `?` stay within one, `[…]` as in shell globs."""
    out, index = "", 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            out, index = out + "(?:.*/)?", index + 3
        elif pattern.startswith("**", index):
            out, index = out + ".*", index + 2
        elif char == "*":
            out, index = out + "[^/]*", index + 1
        elif char == "?":
            out, index = out + "[^/]", index + 1
        elif char == "[" and "]" in pattern[index + 1 :]:
            end = pattern.index("]", index + 1)
            out, index = out + "[" + re.escape(pattern[index + 1 : end]) + "]", end + 1
        else:
            out, index = out + re.escape(char), index + 1
    return re.compile(out + r"\Z")


def matches(pattern: str, path: str) -> bool:
    return glob_regex(pattern).match(path) is not None


def glob_problem(pattern: str) -> str | None:
    """Why a glob cannot name files of the tree, or None."""
    if pattern.startswith("/") or ".." in pattern.split("/") or "\\" in pattern:
        return f"{pattern!r} must be relative and stay inside the tree"
    if not pattern.strip():
        return "an empty glob matches nothing"
    return None
