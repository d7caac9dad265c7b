"""The keeper: a stdlib-only process, run as `python -I -S keeper.py FD`, that holds one sandbox.

It makes the sandbox's user and mount namespaces (root inside is an unprivileged host uid), mounts
its overlay root, starts bubblewrap for the pid, network, IPC and UTS namespaces, then joins them
and serves requests from assay on FD. Every command is forked from this process, whose code was
loaded from the host before it joined: nothing the agent put in the sandbox (a `tar`, a `timeout`,
an `/etc/ld.so.preload`) is on the path by which assay starts commands or copies files.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import installer_env
import keeper_ops

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT = 1, 2, 4, 32
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 0x40000
PR_SET_DUMPABLE = 4
MESSAGE = 1 << 20
READY_TIMEOUT_S = 30.0
FD = "fd:"

libc = ctypes.CDLL(None, use_errno=True)


def zygote(control: socket.socket) -> None:
    """Fork a keeper for each request (its control socket and log come as fds), so a sandbox
    starts without an interpreter's start-up; ends when assay closes the socket."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # keepers are reaped by the kernel
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, MESSAGE, 2)
        except OSError:
            return
        if not message or len(fds) != 2:
            return
        pid = os.fork()
        if pid == 0:
            control.close()
            os.setsid()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            os.dup2(fds[1], 2)
            os.close(fds[1])
            try:
                keep(socket.socket(fileno=fds[0]))
            finally:
                os._exit(0)
        for fd in fds:
            os.close(fd)
        control.send(json.dumps({"pid": pid}).encode())


def keep(control: socket.socket) -> None:
    """Hold one sandbox: its namespaces, its root, every command started in it."""
    config = json.loads(control.recv(MESSAGE))
    _check(libc.unshare(CLONE_NEWUSER | CLONE_NEWNS), "unshare")
    _say(control, {"unshared": os.getpid()})
    if json.loads(control.recv(MESSAGE) or b"{}").get("mapped") is not True:
        return
    # Opened in the new mount namespace (overlay clones only its own mounts) and while this process
    # still has the host uid that owns a 0700 home on the way, before it becomes root inside.
    try:
        sources = {
            name: os.open(path, os.O_PATH | os.O_CLOEXEC)
            for name, path in config["sources"].items()
        }
    except OSError as error:
        _say(control, {"error": f"cannot open {error.filename}: {error.strerror}"})
        return
    config = {**config, "fds": sources}
    os.umask(0o022)
    os.setresgid(0, 0, 0)
    os.setresuid(0, 0, 0)
    try:
        bwrap, pid1 = _start(config)
    except (OSError, RuntimeError) as error:
        _say(control, {"error": str(error)})
        return
    _say(control, {"ready": pid1})
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # handlers are reaped by the kernel
    try:
        _serve(control, config)
    finally:
        keeper_ops.kill(pid1)  # pid 1 dying makes the kernel kill its whole pid namespace
        try:
            bwrap.wait(timeout=10)
        except subprocess.TimeoutExpired:
            bwrap.kill()


def _start(config: dict) -> tuple[subprocess.Popen, int]:
    """Mount the root, start bwrap, and join its namespaces; (bwrap's process, pid 1's host pid)."""
    _check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make mounts private")
    _mount("assay-skeleton", config["skeleton"], "tmpfs", "mode=0755")
    # A source is reached through its descriptor: the overlay clones only this namespace's
    # mounts, and the keeper's own uid may not walk a 0700 directory on the way to it.
    lowers = [_source(config, lower) for lower in config["lowers"]]
    for inside in config["mountpoints"]:
        keeper_ops.make_mountpoint(config["skeleton"], inside, lowers)
    installer_env.write(config["skeleton"], lowers, config["tools"])
    merged = config["merged"]
    options = f"lowerdir={':'.join(lowers)},upperdir={config['upper']},workdir={config['work']}"
    _mount("overlay", merged, "overlay", options + ",userxattr")
    for name, inside in config["binds"]:
        _bind_read_only(_source(config, FD + name), merged + inside)
    info_read, info_write = os.pipe()
    ready_read, ready_write = os.pipe()
    argv = [*config["bwrap"][:1], "--info-fd", str(info_write), *config["bwrap"][1:]]
    passed = [info_write, ready_write]
    program = bytes.fromhex(config["seccomp"])
    if program:  # bwrap's own pid 1 and its child run under the commands' filter too
        filter_read, filter_write = os.pipe()
        os.write(filter_write, program)
        os.close(filter_write)
        argv[1:1] = ["--seccomp", str(filter_read)]
        passed.append(filter_read)
    bwrap = subprocess.Popen(
        argv,
        pass_fds=passed,
        stdin=subprocess.DEVNULL,
        stdout=ready_write,
        stderr=open(config["log"], "wb"),  # noqa: SIM115  (bwrap keeps it)
    )
    for fd in passed:
        os.close(fd)
    said = _read_line(ready_read)
    info = _read_all(info_read)
    if said != b"ready":
        bwrap.kill()
        raise RuntimeError(_last_line(config["log"], "bwrap did not start"))
    pid1 = int(json.loads(info)["child-pid"])
    for name in ("ipc", "uts", "net", "pid", "mnt"):
        with open(f"/proc/{pid1}/ns/{name}", "rb") as namespace:
            _check(libc.setns(namespace.fileno(), 0), f"join the {name} namespace")
    os.chdir("/")
    return bwrap, pid1


def _source(config: dict, lower: str) -> str:
    """A path, or for `fd:NAME` the /proc/self/fd path of the descriptor opened for NAME."""
    return f"/proc/self/fd/{config['fds'][lower[len(FD) :]]}" if lower.startswith(FD) else lower


def _mount(source: str, target: str, kind: str, options: str) -> None:
    result = libc.mount(source.encode(), target.encode(), kind.encode(), 0, options.encode())
    _check(result, f"mount {kind} at {target}")


def _bind_read_only(source: str, target: str) -> None:
    """A read-only, nosuid, nodev bind; the tree bwrap binds at / carries it along."""
    _check(libc.mount(source.encode(), target.encode(), None, MS_BIND, None), f"bind {target}")
    flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV
    _check(libc.mount(None, target.encode(), None, flags, None), f"make {target} read-only")


def _serve(control: socket.socket, config: dict) -> None:
    """Each request arrives with its own socket; a forked handler answers it and exits."""
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, MESSAGE, 8)
        except OSError:
            return
        if not message:
            for fd in fds:
                os.close(fd)
            return
        if os.fork() == 0:
            # Handlers live in the sandbox's pid namespace, beside the agent's processes (same uid
            # inside): none may be traced. The keeper itself is outside it.
            libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            control.close()
            code = 0
            try:
                keeper_ops.handle(json.loads(message), fds, config)
            except BaseException:  # a handler must never return into the serving loop
                code = 1
            os._exit(code)
        for fd in fds:
            os.close(fd)


def _say(control: socket.socket, message: dict) -> None:
    control.send(json.dumps(message).encode())


def _check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def _read_line(fd: int) -> bytes:
    data = b""
    deadline = time.monotonic() + READY_TIMEOUT_S
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        readable, _, _ = select.select([fd], [], [], max(left, 0))
        chunk = os.read(fd, 256) if readable else b""
        if not chunk:
            break
        data += chunk
    os.close(fd)
    return data.strip()


def _read_all(fd: int) -> bytes:
    with os.fdopen(fd, "rb") as stream:
        return stream.read()


def _last_line(path: str, fallback: str) -> str:
    try:
        with open(path, errors="replace") as log:
            lines = [line.strip() for line in log if line.strip()]
    except OSError:
        lines = []
    return lines[-1] if lines else fallback


if __name__ == "__main__":
    zygote(socket.socket(fileno=int(sys.argv[1])))
