"""What the keeper does for one request, inside the sandbox's namespaces: run a command under the
sandbox's restrictions, copy files in or out, remove a path (stdlib only; see keeper.py)."""

from __future__ import annotations

import bz2  # noqa: F401  (tarfile's stream codecs, loaded before the root changes)
import contextlib
import ctypes
import errno
import glob
import json
import lzma  # noqa: F401
import os
import resource
import select
import shutil
import signal
import socket
import stat
import tarfile
import time
import zlib  # noqa: F401

import identity  # a sibling module, stdlib only

PR_SET_KEEPCAPS, PR_CAPBSET_DROP, PR_SET_SECCOMP = 8, 24, 22
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
SECCOMP_MODE_FILTER = 2
# Docker's default capabilities: chown, dac_override, fowner, fsetid, kill, setgid, setuid, setpcap,
# net_bind_service, net_raw, sys_chroot, mknod, audit_write, setfcap. Never sys_admin.
KEPT_CAPABILITIES = frozenset({0, 1, 3, 4, 5, 6, 7, 8, 10, 13, 18, 27, 29, 31})
KILL_AFTER_S = 5.0
TIMED_OUT = 124
COPY_BLOCK = 1 << 16

libc = ctypes.CDLL(None, use_errno=True)
"".encode("latin-1"), "".encode("ascii")  # load the codecs tarfile uses before the root changes


class _Filter(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def handle(request: dict, fds: list[int], config: dict) -> None:
    """Carry out one request; the answer goes back on the request's own socket, fds[0]."""
    answer = socket.socket(fileno=fds[0])
    try:
        reply = OPS[request["op"]](request, fds[1:], config)
    except (OSError, ValueError, KeyError, tarfile.TarError, identity.UnknownUser) as error:
        reply = {"error": str(error) or type(error).__name__}
    answer.send(json.dumps(reply).encode())


def kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def make_mountpoint(skeleton: str, inside: str, lowers: list[str]) -> None:
    """Make `inside` (a directory, or an empty file when it ends in `!file`) in the skeleton, each
    directory on the way with the owner and mode the layers below give it, so the skeleton
    changes nothing a command sees but that the mountpoint exists."""
    is_file = inside.endswith("!file")
    inside = inside[: -len("!file")] if is_file else inside
    parts = [part for part in inside.split("/") if part]
    for depth in range(1, len(parts) + (0 if is_file else 1)):
        relative = "/".join(parts[:depth])
        target = os.path.join(skeleton, relative)
        if os.path.isdir(target):
            continue
        found = next(
            (info for info in (_lstat(os.path.join(lower, relative)) for lower in lowers) if info),
            None,
        )
        os.mkdir(target)
        if found is not None and stat.S_ISDIR(found.st_mode):
            os.chown(target, found.st_uid, found.st_gid)
            os.chmod(target, stat.S_IMODE(found.st_mode))
    if is_file:
        with open(os.path.join(skeleton, *parts), "ab"):
            pass


def _lstat(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


# -- exec ------------------------------------------------------------------------------------------


def _exec(request: dict, fds: list[int], config: dict) -> dict:
    script, out, err = fds
    try:
        who = identity.resolve("/", request.get("user"))
    except identity.UnknownUser as error:
        os.write(err, f"{error}\n".encode())
        return {"exit_code": 126, "timed_out": False}
    env = dict(request["env"])
    env["HOME"] = env.get("HOME") or who.home
    pid = os.fork()
    if pid == 0:
        _become_command(request, config, who, env, (script, out, err))
    for fd in fds:
        os.close(fd)
    return _wait(pid, float(request["timeout_s"]))


def _become_command(request: dict, config: dict, who, env: dict, fds: tuple[int, int, int]) -> None:
    """In the forked child: the command's session, files, limits, filter, identity, then bash."""
    try:
        os.setsid()
        for number in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGCHLD, signal.SIGINT):
            signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        script, out, err = fds
        null = os.open("/dev/null", os.O_RDONLY)
        for target, fd in ((0, null), (1, out), (2, err), (3, script)):
            os.dup2(fd, target)
        os.closerange(4, 65536)
        try:
            os.chdir(request["cwd"])
        except OSError as error:
            os.write(
                2, f"cannot change directory to {request['cwd']!r}: {error.strerror}\n".encode()
            )
            os._exit(126)
        for number, soft, hard in request.get("rlimits", []):
            resource.setrlimit(number, (soft, hard))
        if request.get("cpus"):
            os.sched_setaffinity(0, request["cpus"])
        _restrict(config, who)
        os.execvpe("bash", ["bash", "/dev/fd/3"], env)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.write(2, f"could not start the command: {error}\n".encode())
    os._exit(127)


def _restrict(config: dict, who) -> None:
    """The seccomp filter, Docker's capability bounding set, then the command's own ids."""
    program = bytes.fromhex(config.get("seccomp", ""))
    if program:
        prog = _Filter(len(program) // 8, program)
        if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "install the seccomp filter")
    libc.prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0)
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    capability = 0
    while capability < 64:
        if capability not in KEPT_CAPABILITIES and libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0):
            if ctypes.get_errno() == errno.EINVAL:
                break  # past the kernel's last capability
            raise OSError(ctypes.get_errno(), f"drop capability {capability}")
        capability += 1
    os.setgroups(identity.groups("/", who) if who.known else [])
    os.setresgid(who.gid, who.gid, who.gid)
    os.setresuid(who.uid, who.uid, who.uid)


def _wait(pid: int, timeout_s: float) -> dict:
    """The command's exit code; past its time the group gets SIGTERM, then SIGKILL, and 124."""
    descriptor = os.pidfd_open(pid)
    try:
        timed_out = not select.select([descriptor], [], [], max(timeout_s, 0.0))[0]
        if timed_out:
            _signal_group(pid, signal.SIGTERM)
            if not select.select([descriptor], [], [], KILL_AFTER_S)[0]:
                _signal_group(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(descriptor)
    if timed_out:
        return {"exit_code": TIMED_OUT, "timed_out": True}
    code = os.waitstatus_to_exitcode(status)  # -N for a signal: 128 + N, as a shell says
    return {"exit_code": 128 - code if code < 0 else code, "timed_out": False}


def _signal_group(pid: int, number: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, number)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, number)


# -- files -----------------------------------------------------------------------------------------


def _put_file(request: dict, fds: list[int], config: dict) -> dict:
    """One file to `target` (into it, by name, when it is a directory or ends in '/')."""
    (source,) = fds
    target = request["target"]
    if target.endswith("/") or os.path.isdir(target):
        target = os.path.join(target, request["name"])
    os.makedirs(os.path.dirname(target) or "/", exist_ok=True)
    if os.path.islink(target):
        os.unlink(target)
    with os.fdopen(source, "rb") as data, open(target, "wb") as copy:
        shutil.copyfileobj(data, copy, COPY_BLOCK)
    _own(target, _owner(request))
    os.chmod(target, int(request.get("chmod") or request["mode"], 8))
    return {"done": True}


def _put_tree(request: dict, fds: list[int], config: dict) -> dict:
    """A tar stream (plain or gzip, bzip2, xz compressed) unpacked into `target`: links stay
    links, existing directories keep theirs. `chmod` is every member's mode; `keep_owners` keeps
    the members' own uid and gid where no `owner` is given (a copy between sandboxes, an archive)."""
    (source,) = fds
    target = request["target"]
    os.makedirs(target, exist_ok=True)
    owner = _owner(request)  # looked up once, not for every file of the tree
    chmod = int(request["chmod"], 8) if request.get("chmod") else None
    keep = bool(request.get("keep_owners")) and owner is None
    with os.fdopen(source, "rb") as data, tarfile.open(fileobj=data, mode="r|*") as archive:
        for member in archive:
            if chmod is not None:
                member.mode = chmod
            member_owner = identity.Identity(member.uid, member.gid, "/", False) if keep else owner
            _unpack(archive, member, target, member_owner)
    return {"done": True}


def _unpack(
    archive: tarfile.TarFile, member: tarfile.TarInfo, target: str, owner: identity.Identity | None
) -> None:
    name = os.path.normpath(member.name).lstrip("/")
    if name in ("", ".") and member.isdir():
        return
    if name.startswith(".."):
        raise ValueError(f"archive member outside the target: {member.name}")
    path = os.path.join(target, name)
    if member.isdir():
        if not os.path.isdir(path):
            os.makedirs(path, exist_ok=True)
            os.chmod(path, member.mode)
            _own(path, owner)
        return
    if os.path.lexists(path) and not os.path.isdir(path):
        os.unlink(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)  # an archive may list no directories
    if member.issym():
        os.symlink(member.linkname, path)
    elif member.islnk():
        os.link(os.path.join(target, member.linkname.lstrip("/")), path)
    elif member.isfile():
        with archive.extractfile(member) as data, open(path, "wb") as copy:  # type: ignore[union-attr]
            shutil.copyfileobj(data, copy, COPY_BLOCK)
        os.chmod(path, member.mode)
    else:
        return  # devices and FIFOs are not copied
    _own(path, owner)


def _owner(request: dict) -> identity.Identity | None:
    """The request's `owner` (user or user:group) as the sandbox's own files name it."""
    return None if request.get("owner") is None else identity.resolve("/", request["owner"])


def _own(path: str, owner: identity.Identity | None) -> None:
    if owner is not None:
        os.chown(path, owner.uid, owner.gid, follow_symlinks=False)


def _get(request: dict, fds: list[int], config: dict) -> dict:
    """`path` (a file or a tree, never followed through a link) as a tar stream on fds[0], its top
    entry named `arcname` (default: its own name); `owners` keeps the entries' uid and gid."""
    (sink,) = fds
    path = request["path"]
    with os.fdopen(sink, "wb") as stream:
        if not os.path.lexists(path):
            return {"found": False}
        base = request.get("arcname") or os.path.basename(path.rstrip("/")) or "."
        keep = bool(request.get("owners"))
        with tarfile.open(fileobj=stream, mode="w|", format=tarfile.PAX_FORMAT) as archive:
            archive.add(path, arcname=base, recursive=True, filter=lambda m: _plain(m, keep))
    return {"found": True}


def _plain(member: tarfile.TarInfo, keep_owners: bool = False) -> tarfile.TarInfo | None:
    """Regular files, directories and links only; no owners carried out unless asked."""
    if not (member.isfile() or member.isdir() or member.issym() or member.islnk()):
        return None
    if not keep_owners:
        member.uid = member.gid = 0
    member.uname = member.gname = ""
    return member


def _glob(request: dict, fds: list[int], config: dict) -> dict:
    """The paths a pattern (Go's filepath.Match rules are glob's, for what Dockerfiles use)
    matches, each as [as matched, with links followed, is a directory]; a plain path matches
    itself when it exists."""
    pattern = request["pattern"]
    if any(char in pattern for char in "*?["):
        found = sorted(glob.glob(pattern, include_hidden=True))
    else:
        found = [pattern] if os.path.exists(pattern) else []
    return {"matches": [[path, os.path.realpath(path), os.path.isdir(path)] for path in found]}


def _remove(request: dict, fds: list[int], config: dict) -> dict:
    path = request["path"]
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return {"done": True}
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(path)
    else:
        os.unlink(path)
    return {"done": True}


def _ping(request: dict, fds: list[int], config: dict) -> dict:
    return {"done": True, "at": time.time()}


OPS = {
    "exec": _exec,
    "put_file": _put_file,
    "put_tree": _put_tree,
    "get": _get,
    "glob": _glob,
    "remove": _remove,
    "ping": _ping,
}
