"""The bubblewrap sandbox a Python class agent's process runs in, or the one line saying why not.

The agent sees a read-only view of the host's system files, its Python environment, assay and its
own module or file; a private `/tmp` (its home and working directory); its own pid, IPC, UTS and
network namespaces (loopback only: no PostgreSQL, Redis or world services of the host's); and it
runs as an unprivileged uid with no capabilities, so it can neither signal nor trace its parent.
Its system calls pass the container sandbox's seccomp filter (`world/container/seccomp.py`): no
mounts, namespaces, kernel modules, keys, clocks, BPF or io_uring.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.machinery
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

# The uid the agent runs as when assay is root: inside the subordinate range every sandbox's users
# map into, and none a container image gives its users (65532 is distroless's, 65534 nobody's).
AGENT_INSIDE_UID = 65533
SYSTEM_DIRS = ("/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin")
# What of /etc a Python program needs: the loader's cache, names of users, time zone, CA roots.
SYSTEM_FILES = (
    "/etc/ld.so.cache",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/localtime",
    "/etc/alternatives",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/pki",
    "/etc/mime.types",
)
PROBE_TIMEOUT_S = 10.0
SCRATCH_PREFIX = "assay-agent-"  # then the pid of the assay process whose agent's /tmp it is


@dataclass(frozen=True)
class View:
    """What the agent's sandbox shows of the host: paths bound read-only at the same place, and the
    entries of the agent's sys.path."""

    binds: tuple[str, ...]
    path: tuple[str, ...]


@functools.cache
def unavailable() -> str | None:
    """None when a class agent can run sandboxed here; else one line saying what is missing."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        return "setpriv (util-linux) is not installed"
    true = "/bin/true" if os.path.exists("/bin/true") else "/usr/bin/true"
    with syscall_filter() as filter_fd:
        probe = command([true], View((), ()), seccomp_fd=filter_fd)
        fds = () if filter_fd is None else (filter_fd,)
        try:
            done = subprocess.run(
                probe, capture_output=True, timeout=PROBE_TIMEOUT_S, check=False, pass_fds=fds
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"bwrap did not run: {error}"
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bwrap cannot make namespaces here: {said[-1] if said else done.returncode}"
    return None


def agent_uid() -> int:
    """The host uid the agent runs as: unprivileged when assay is root, else assay's own."""
    if os.geteuid() != 0:
        return os.geteuid()
    # here, not at the top: a run with no class agent loads none of the sandbox's code
    from assay.world.container.idmap import sandbox_ids

    return sandbox_ids().host_uid(AGENT_INSIDE_UID)


@contextlib.contextmanager
def syscall_filter() -> Iterator[int | None]:
    """A pipe's read end holding the seccomp program, for bwrap's `--seccomp FD` (closed on
    leaving); None where the machine has no filter (not x86_64 or aarch64)."""
    from assay.world.container import seccomp

    if not seccomp.SUPPORTED:
        yield None
        return
    read, write = os.pipe()
    try:
        with os.fdopen(write, "wb") as stream:
            stream.write(seccomp.program())  # some hundred bytes: well within a pipe's buffer
        yield read
    finally:
        os.close(read)


def command(
    argv: Sequence[str],
    view: View,
    *,
    tmp: str | None = None,
    info_fd: int | None = None,
    seccomp_fd: int | None = None,
) -> list[str]:
    """bwrap's command line that runs `argv` in the agent's sandbox showing `view`; `tmp`, a host
    directory of the agent's uid, is its /tmp (else a tmpfs); `seccomp_fd`, from
    `syscall_filter`, the filter its process runs under."""
    args = [shutil.which("bwrap") or "bwrap", "--die-with-parent", "--new-session"]
    args += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    args += ["--unshare-cgroup-try", "--hostname", "agent"]
    if os.geteuid() != 0:
        args += ["--unshare-user"]  # root bwrap would map the agent to root; setpriv drops it
    if info_fd is not None:
        args += ["--info-fd", str(info_fd)]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    args += _system_tree()
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--bind", tmp, "/tmp"] if tmp else ["--perms", "1777", "--tmpfs", "/tmp"]
    shown = sorted({*view.binds}, key=lambda path: (path.count("/"), path))
    args += _parents(shown)
    for path in shown:
        args += ["--ro-bind", path, path]
    args += ["--chdir", "/tmp"]
    if os.geteuid() == 0:
        uid = str(agent_uid())
        args += ["--", "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
        args += ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]
    else:
        args += ["--cap-drop", "ALL"]
    return [*args, "--", *argv]


def scratch() -> str:
    """A new host directory for the agent's /tmp, its uid's alone; kept while its process is
    started again, so what it wrote there outlives a crash. Those of assay processes that are
    gone (killed outright, so they could not remove theirs) are removed first."""
    _remove_stale()
    path = tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-")
    os.chown(path, agent_uid(), agent_uid())
    return path


def _remove_stale() -> None:
    for found in Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}*-*"):
        owner = found.name.removeprefix(SCRATCH_PREFIX).partition("-")[0]
        if owner.isdigit() and not _alive(int(owner)):
            shutil.rmtree(found, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def agent_view(spec: str) -> View:
    """The paths the agent `spec` (`module:Class` or `file.py:Class`) needs, and its sys.path."""
    prefixes = _python_prefixes()
    own = _own_code(spec)
    assay_dir = str(Path(__file__).resolve().parents[2])  # the assay package
    binds = [path for path in (assay_dir, *own) if not _under(path, prefixes)]
    binds = [*prefixes, *binds]
    kept = [entry for entry in sys.path if entry and _under(os.path.abspath(entry), prefixes)]
    extra = [str(Path(path).parent) for path in (assay_dir, *own)]
    return View(tuple(dict.fromkeys(binds)), tuple(dict.fromkeys([*extra, *kept])))


def sandboxed_spec(spec: str) -> str:
    """`spec` with a file's path made absolute: the agent's working directory is its own /tmp."""
    module, _, name = spec.rpartition(":")
    return f"{os.path.abspath(module)}:{name}" if module.endswith(".py") else spec


def _own_code(spec: str) -> list[str]:
    """A file agent's file; a module agent's top-level package (or module file), found without
    running it, where it lies outside the Python environment."""
    module = spec.rpartition(":")[0]
    if module.endswith(".py"):
        path = os.path.realpath(module)
        return [path] if os.path.isfile(path) else []
    search = [os.getcwd(), *(entry or os.getcwd() for entry in sys.path)]
    try:
        found = importlib.machinery.PathFinder.find_spec(module.partition(".")[0], search)
    except (ImportError, ValueError):
        return []
    if found is None:
        return []
    if found.submodule_search_locations:
        return [os.path.realpath(p) for p in found.submodule_search_locations]
    return [os.path.realpath(found.origin)] if found.origin else []


def _python_prefixes() -> list[str]:
    """The interpreter's install and the environment's, as the interpreter finds them."""
    places = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    places += [str(Path(sys.executable).parent), str(Path(os.path.realpath(sys.executable)).parent)]
    found = [os.path.realpath(p) for p in places] + [os.path.abspath(p) for p in places]
    usable = [p for p in dict.fromkeys(found) if os.path.isdir(p) and not _system(p)]
    return [p for p in usable if not _under(p, [q for q in usable if q != p])]


def _system_tree() -> list[str]:
    args: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    files = [path for path in SYSTEM_FILES if os.path.exists(path)]
    args += _parents(files)
    for path in files:
        args += ["--ro-bind", path, path]
    return args


def _parents(paths: Iterable[str]) -> list[str]:
    """A world-readable directory for each ancestor of a bound path (bwrap's own would be 0700)."""
    made: dict[str, None] = {}
    for path in paths:
        for parent in reversed(Path(path).parents):
            text = str(parent)
            if text != "/" and not _system(text):
                made.setdefault(text)
    args: list[str] = []
    for parent in made:
        args += ["--perms", "0755", "--dir", parent]
    return args


def _system(path: str) -> bool:
    return _under(path, SYSTEM_DIRS)


def _under(path: str, roots: Iterable[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)
