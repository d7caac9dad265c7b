"""What a sandbox needs from the host: bubblewrap, a static busybox, the directory of sandbox
homes, and the tool layer (uv from PyPI, the commands that run it)."""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from pathlib import Path

BUSYBOX = Path("/bin/busybox")  # Debian's busybox-static
ELF_MAGIC = b"\x7fELF"
PT_INTERP = 3


def sandbox_root() -> Path:
    """The host dir under which sandbox homes are made; $ASSAY_SANDBOX_DIR overrides.

    It is 0711: a sandbox's own keeper (an unprivileged uid) walks into its home, and no one but
    root lists the homes.
    """
    chosen = os.environ.get("ASSAY_SANDBOX_DIR")
    root = Path(chosen) if chosen else Path(tempfile.gettempdir()) / "assay-sandboxes"
    if not root.is_dir():
        root.mkdir(mode=0o711, parents=True, exist_ok=True)
    if root.stat().st_mode & 0o777 != 0o711:
        root.chmod(0o711)
    return root


def sandbox_available() -> str | None:
    """None when sandboxes can start here; else one line saying what is missing."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed (apt-get install bubblewrap)"
    if not is_static(BUSYBOX):
        return f"{BUSYBOX} is not a static busybox (apt-get install busybox-static)"
    if shutil.which("mmdebstrap") is None:
        return "mmdebstrap is not installed (apt-get install mmdebstrap): it builds the base root"
    if os.geteuid() != 0:
        return "sandboxes need root: assay maps each sandbox's users to a subordinate uid range"
    return None


def busybox_path() -> Path:
    return unreadable_copy(BUSYBOX)


def bwrap_path() -> Path:
    return unreadable_copy(Path(shutil.which("bwrap") or "/usr/bin/bwrap"))


def unreadable_copy(source: Path) -> Path:
    """A copy of `source` that a sandbox may run but not read (mode 0111, the host's root's).

    The kernel makes a process that runs a program it cannot read undumpable: neither the
    sandbox's pid 1 and 2 (bwrap, busybox) nor anything else started from these copies can be
    traced by a command in the sandbox, which runs as the same uid.
    """
    info = source.stat()
    folder = sandbox_root() / ".tools"
    folder.mkdir(mode=0o711, exist_ok=True)
    copy = folder / f"{source.name}-{info.st_size}-{int(info.st_mtime)}"
    if not copy.exists():
        staged = folder / f".{copy.name}.{os.getpid()}"
        shutil.copyfile(source, staged)
        staged.chmod(0o111)
        os.replace(staged, copy)
    return copy


def is_static(path: Path) -> bool:
    """Whether `path` is an ELF executable with no program interpreter (no dynamic loader, so
    neither a sandbox's libraries nor its /etc/ld.so.preload reach it)."""
    try:
        with open(path, "rb") as binary:
            header = binary.read(64)
            if header[:4] != ELF_MAGIC or header[4] != 2:  # 64-bit only
                return False
            order = "little" if header[5] == 1 else "big"
            offset = int.from_bytes(header[32:40], order)
            size, count = (int.from_bytes(header[i : i + 2], order) for i in (54, 56))
            binary.seek(offset)
            table = binary.read(size * count)
    except (OSError, IndexError):
        return False
    kinds = [int.from_bytes(table[i : i + 4], order) for i in range(0, len(table), size)]
    return PT_INTERP not in kinds


def tool_dir() -> Path:
    """The tool layer's commands (uv and uvx, which run the real uv) bound read-only at
    /opt/assay/bin."""
    return Path(__file__).parent / "bin"


@functools.cache
def uv_binary() -> Path | None:
    """The real uv binary of the `uv` package from PyPI (assay's sandbox extra); None without it."""
    try:
        import uv
    except ImportError:
        return None
    try:
        return Path(os.path.realpath(uv.find_uv_bin()))
    except FileNotFoundError:
        return None
