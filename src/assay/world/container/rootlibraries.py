"""The shared libraries a sandbox's root must hold for the host's interpreter, which sandboxes
bind in: what ldd finds for it and its stdlib extension modules."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

# Host extension modules no task imports: _tkinter alone would pull in Tk, Tcl and X11.
UNUSED_MODULES = ("_tkinter",)


def missing_libraries(root: Path) -> list[str]:
    """Sonames the host interpreter and its stdlib extension modules load that root lacks."""
    prefixes = {Path(sys.base_prefix).resolve(), Path(sys.base_exec_prefix).resolve()}
    prefixes -= {Path("/"), Path("/usr")}  # a system interpreter's: the root's to supply
    missing = set()
    for path in _host_libraries():
        if any(path.is_relative_to(prefix) for prefix in prefixes):
            continue  # the interpreter's own libraries come with its bind mount
        places = [path, *(Path(place) / path.name for place in _library_dirs())]
        if path.parts[1].startswith("lib"):
            places.append(Path("/usr", *path.parts[1:]))  # a merged-/usr root keeps them there
        if not any(_present(root, place) for place in places):
            missing.add(path.name)
    return sorted(missing)


def _host_libraries() -> set[Path]:
    """The libraries ldd finds on the host for the interpreter and lib-dynload's modules."""
    dynload = [Path(entry) for entry in sys.path if entry.endswith("lib-dynload")]
    modules = [path for place in dynload for path in sorted(place.glob("*.so"))]
    files = [os.path.realpath(sys.executable)]
    files += [str(path) for path in modules if path.name.split(".")[0] not in UNUSED_MODULES]
    output = subprocess.run(["ldd", *files], capture_output=True, text=True, check=False).stdout
    found = set()
    for line in output.splitlines():
        # "libz.so.1 => /lib/…/libz.so.1 (0x…)" or the loader's "/lib64/ld-linux-x86-64.so.2 (0x…)";
        # a library the host itself lacks ("=> not found") is not the root's to supply.
        words = line.split()
        if "=>" in words and len(words) > 2 and words[2].startswith("/"):
            found.add(Path(words[2]))
        elif words and words[0].startswith("/") and not line.endswith(":"):
            found.add(Path(words[0]))
    return found


def _library_dirs() -> list[str]:
    multiarch = sysconfig.get_config_var("MULTIARCH")
    arch = [f"/usr/lib/{multiarch}", f"/lib/{multiarch}"] if multiarch else []
    return [*arch, "/usr/lib", "/lib", "/usr/lib64", "/lib64"]


def _present(root: Path, path: Path, hops: int = 40) -> bool:
    """Whether path exists in root, symlinks followed as inside it (an absolute one from root)."""
    current, parts = root, list(path.relative_to("/").parts)
    while parts:
        part = parts.pop(0)
        if part == "..":
            current = current.parent if current != root else root
            continue
        candidate = current / part
        if candidate.is_symlink():
            hops -= 1
            target = Path(os.readlink(candidate))
            if hops < 0:
                return False
            if target.is_absolute():
                current, target = root, target.relative_to("/")
            parts = [*target.parts, *parts]
        elif candidate.exists():
            current = candidate
        else:
            return False
    return True
