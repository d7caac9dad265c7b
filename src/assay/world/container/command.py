"""The environment one command gets inside a sandbox, as Docker's `exec` would give it."""

from __future__ import annotations

import re
from collections.abc import Mapping

from assay.world.container.layout import TOOL_MOUNT

DEFAULT_PATH = f"{TOOL_MOUNT}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def environment(env: Mapping[str, str]) -> dict[str, str]:
    """The defaults (PATH, with the tool layer first, LANG, TERM), then `env` over them; HOME is
    the user's unless `env` sets it (the keeper fills it in). A PATH of the image's keeps the tool
    layer last on it, so a uv the image has is found first."""
    values = {"PATH": DEFAULT_PATH, "LANG": "C.UTF-8", "TERM": "dumb"}
    for name, value in env.items():
        if not ENV_NAME.fullmatch(name):
            raise ValueError(f"not an environment variable name: {name!r}")
        values[name] = value
    if TOOL_MOUNT not in values["PATH"].split(":"):
        values["PATH"] = f"{values['PATH']}:{TOOL_MOUNT}" if values["PATH"] else TOOL_MOUNT
    return values
