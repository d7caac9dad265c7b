"""The host command line that runs one command inside a sandbox, as Docker's `exec` would."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from assay.world.sandbox.identity import Identity
from assay.world.sandbox.layout import COMPAT_MOUNT

KILL_AFTER_S = 5
DEFAULT_PATH = f"{COMPAT_MOUNT}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Docker's default capabilities less MKNOD (no device cgroup here guards the nodes it would make)
# and NET_RAW (a public command shares the host's network). CAP_SYS_ADMIN and the rest stay out.
CAPABILITIES = (
    "chown,dac_override,fsetid,fowner,setgid,setuid,setfcap,setpcap,"
    "net_bind_service,sys_chroot,kill,audit_write"
)


@dataclass(frozen=True)
class ExecPlan:
    """What one exec asks for, besides the command text."""

    timeout_s: float
    identity: Identity
    env: Mapping[str, str]
    network: bool
    cwd: str
    fsize_mb: int | None = None
    cpus: int | None = None
    writable: tuple[str, ...] = ()  # read-only mounts made writable for this command alone


def exec_argv(pid1: int, plan: ExecPlan, script_fd: int, host_python: str) -> list[str]:
    """`nsenter` into pid 1's namespaces › `timeout` › `env -i` › limits › identity › bash.

    script_fd: a descriptor open on the command text, read by bash as a file (never via argv).
    `timeout` runs inside, so nsenter outlives what it signals: a process orphaned there is reaped
    by the sandbox's pid 1, not by the host's init, and stop() never waits on a slow host reaper.
    """
    namespaces = ["-m", "-u", "-i", "-p", *(["-n"] if not plan.network else []), "-r", "-w"]
    return [
        *("nsenter", "-t", str(pid1), *namespaces, "--"),
        *private_writable(plan.writable),
        *("timeout", "-k", str(KILL_AFTER_S), f"{plan.timeout_s:.3f}"),
        *("env", "-i", "-C", plan.cwd, *environment(plan, host_python)),
        *limits(plan),
        *identity_args(plan.identity),
        *("bash", f"/dev/fd/{script_fd}"),
    ]


def private_writable(paths: tuple[str, ...]) -> list[str]:
    """A mount namespace of the command's own in which `paths` are writable; every other process
    in the sandbox (whatever the agent left running) still sees them read-only."""
    if not paths:
        return []
    remount = 'while [ "$1" != -- ]; do mount -o remount,bind,rw "$1" || exit 125; shift; done'
    return [
        *("unshare", "-m", "--propagation", "private", "--"),
        *("sh", "-c", f'{remount}; shift; exec "$@"', "sh", *paths, "--"),
    ]


def environment(plan: ExecPlan, host_python: str) -> list[str]:
    """The `NAME=value` words of an exec: the defaults, then the caller's `env` over them."""
    values = {
        "PATH": DEFAULT_PATH,
        "HOME": plan.identity.home,
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "ASSAY_HOST_PYTHON": host_python,
    }
    for name, value in plan.env.items():
        if not ENV_NAME.fullmatch(name):
            raise ValueError(f"not an environment variable name: {name!r}")
        values[name] = value
    return [f"{name}={value}" for name, value in values.items()]


def limits(plan: ExecPlan) -> list[str]:
    """prlimit (no core files, 4096 open files, the file size cap) and taskset for a cpu count."""
    argv = ["prlimit", "--core=0", "--nofile=4096:4096"]
    if plan.fsize_mb is not None:
        argv.append(f"--fsize={plan.fsize_mb * 1024 * 1024}")
    argv.append("--")
    allowed = sorted(os.sched_getaffinity(0))
    if plan.cpus is not None and 0 < plan.cpus < len(allowed):
        argv += ["taskset", "-c", ",".join(str(cpu) for cpu in allowed[: plan.cpus])]
    return argv


def identity_args(identity: Identity) -> list[str]:
    """setpriv: the capability bounding set always, and the user's ids and groups when not root."""
    argv = ["setpriv", f"--bounding-set=-all,{_plus(CAPABILITIES)}", "--inh-caps=-all"]
    if identity.uid != 0 or identity.gid != 0:
        groups = "--init-groups" if identity.known else "--clear-groups"
        argv += [f"--reuid={identity.uid}", f"--regid={identity.gid}", groups]
    return [*argv, "--"]


def _plus(names: str) -> str:
    return ",".join(f"+{name}" for name in names.split(","))
