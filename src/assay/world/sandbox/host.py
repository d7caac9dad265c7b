"""What a sandbox needs from the host: the tools, the directory of sandbox homes, assay's interpreter."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

TOOLS = ("bwrap", "unshare", "nsenter", "setpriv", "prlimit", "timeout", "tar", "env")

# Credentials and sockets no sandbox may see, besides the homes of other sandboxes.
SECRET_PATHS = ("~/.ssh", "~/.aws", "~/.config", "~/.netrc", "~/.git-credentials")
DOCKER_SOCKET = "/var/run/docker.sock"


def sandbox_root() -> Path:
    """The host dir under which sandbox homes are made (created 0700); $ASSAY_SANDBOX_DIR overrides.

    Callers mask it so that no sandbox sees another's files.
    """
    chosen = os.environ.get("ASSAY_SANDBOX_DIR")
    root = Path(chosen) if chosen else Path(tempfile.gettempdir()) / "assay-sandboxes"
    if not root.is_dir():
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        root.chmod(0o700)
    return root


def sandbox_available() -> str | None:
    """None when bwrap, nsenter and friends are usable here; else one line saying what is missing."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return f"sandbox tools not installed: {', '.join(missing)}"
    if os.geteuid() != 0:
        return "sandboxes need root: nsenter joins a sandbox's namespaces and mounts its overlay"
    return None


def default_masks() -> list[Path]:
    """Paths every sandbox hides: other sandboxes, the user's credentials, the docker socket."""
    masks = [sandbox_root(), Path(DOCKER_SOCKET)]
    masks += [Path(path).expanduser() for path in SECRET_PATHS]
    return masks


def interpreter_dirs() -> list[Path]:
    """The directories assay's interpreter needs (its venv, the real install), outermost only."""
    found = [Path(sys.prefix), Path(sys.base_prefix), Path(os.path.realpath(sys.executable)).parent]
    resolved = sorted({Path(os.path.realpath(path)) for path in found}, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in resolved:
        if not any(path.is_relative_to(outer) for outer in kept):
            kept.append(path)
    return kept


def compat_dir() -> Path:
    """The packaged compatibility commands (uvx, uv) bound read-only at /opt/assay/bin."""
    return Path(__file__).parent / "compat"
