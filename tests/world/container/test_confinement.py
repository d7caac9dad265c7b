"""What a command in a sandbox cannot reach, tried from inside: the kernel's settings, the host's
users, processes, files and network, and more than its share of processes, memory and disk."""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from assay.world.container import Sandbox
from assay.world.container.confine import Limits, default_base
from assay.world.container.host import tool_dir
from assay.world.container.idmap import sandbox_ids
from assay.world.container.seccomp import ARCHES

PYTHON = "python3"  # the base root's own


def run(box: Sandbox, command: str, timeout_s: float = 30) -> str:
    result = box.exec(command, timeout_s=timeout_s)
    assert result.exit_code == 0, result
    return result.stdout.decode()


def python(box: Sandbox, code: str, timeout_s: float = 30) -> str:
    """Run `code` with the host interpreter inside the sandbox; its stdout."""
    return run(box, f"{PYTHON} - <<'EOF'\n{code}\nEOF", timeout_s)


@pytest.fixture
def host_marker() -> Iterator[Path]:
    """A file on the host's /var/tmp, with a name no sandbox could have by chance."""
    path = Path("/var/tmp") / f"assay-marker-{uuid.uuid4().hex}"
    path.write_text("host marker\n")
    yield path
    path.unlink()


# -- the kernel's settings -------------------------------------------------------------------------


def test_the_kernels_core_pattern_cannot_be_written_and_stays_the_hosts(box: Sandbox) -> None:
    before = Path("/proc/sys/kernel/core_pattern").read_text()
    tried = box.exec("echo '|/tmp/pwn' > /proc/sys/kernel/core_pattern", timeout_s=10)
    assert tried.exit_code != 0
    assert Path("/proc/sys/kernel/core_pattern").read_text() == before


def test_the_page_cache_cannot_be_dropped_nor_any_sysctl_set(box: Sandbox) -> None:
    for path in ("/proc/sys/vm/drop_caches", "/proc/sys/kernel/hostname", "/proc/sys/fs/file-max"):
        assert box.exec(f"echo 1 > {path}", timeout_s=10).exit_code != 0, path


def test_what_docker_masks_in_proc_reads_as_nothing(box: Sandbox) -> None:
    for path in ("/proc/sysrq-trigger", "/proc/kcore", "/proc/keys", "/proc/timer_list"):
        read = box.exec(f"head -c 4096 {path}", timeout_s=10)
        assert read.exit_code != 0 or read.stdout == b"", path
    assert box.exec("echo c > /proc/sysrq-trigger", timeout_s=10).exit_code != 0


# -- users -----------------------------------------------------------------------------------------


def test_root_inside_is_an_unprivileged_uid_outside(box: Sandbox) -> None:
    assert run(box, "id -u; id -g") == "0\n0\n"
    inside, outside, count = run(box, "cat /proc/self/uid_map").split()
    assert (int(inside), int(outside)) == (0, sandbox_ids().host_uid(0))
    assert int(outside) > 0 and int(count) <= 65536
    inside, outside, _ = run(box, "cat /proc/self/gid_map").split()
    assert (int(inside), int(outside)) == (0, sandbox_ids().host_gid(0))
    assert int(outside) > 0


def test_what_root_inside_writes_belongs_to_the_subordinate_uid_on_the_host(box: Sandbox) -> None:
    run(box, "echo x > /tmp/made && mkdir -p /srv && echo y > /srv/made")
    uid, gid = sandbox_ids().host_uid(0), sandbox_ids().host_gid(0)
    for made in (
        box.home / "layer" / "tmp" / "made",
        box.home / "layer" / "upper" / "srv" / "made",
    ):
        info = made.stat()
        assert (info.st_uid, info.st_gid) == (uid, gid), made
        assert info.st_uid != 0


# -- processes -------------------------------------------------------------------------------------


def test_a_command_sees_only_the_sandboxs_processes(box: Sandbox) -> None:
    pids = [int(pid) for pid in run(box, "ls /proc | grep -E '^[0-9]+$'").split()]
    assert 1 in pids and len(pids) < 20
    inside = run(box, "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done")
    ours = Path(f"/proc/{os.getpid()}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    assert ours.strip() not in inside
    assert box.exec(f"kill -0 {os.getpid()}", timeout_s=10).exit_code != 0
    assert box.exec(f"test -e /proc/{os.getpid()}/root/etc", timeout_s=10).exit_code != 0


def test_no_process_a_command_can_trace_is_outside_the_seccomp_filter(box: Sandbox) -> None:
    """A process the agent may ptrace can be made to run any system call: every such process in
    the sandbox (pid 1 and pid 2 included) must itself be under the filter."""
    escaped = python(
        box,
        """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
me = {os.getpid(), os.getppid()}
for name in sorted(os.listdir("/proc")):
    if not name.isdigit() or int(name) in me:
        continue
    pid = int(name)
    if libc.ptrace(16, pid, 0, 0) != 0:  # PTRACE_ATTACH refused: cannot be driven
        continue
    os.waitpid(pid, 0)
    status = open(f"/proc/{pid}/status").read()
    libc.ptrace(17, pid, 0, 0)  # PTRACE_DETACH
    if "Seccomp:\\t2" not in status:
        print(pid, open(f"/proc/{pid}/cmdline", "rb").read().split(b"\\0")[0].decode())
""",
    )
    assert escaped == ""


HANDLERS = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
for name in os.listdir("/proc"):
    if not name.isdigit() or int(name) in (os.getpid(), os.getppid()):
        continue
    try:
        command = open(f"/proc/{name}/cmdline", "rb").read()
    except OSError:
        continue
    if b"keeper.py" not in command:
        continue
    print("traced" if libc.ptrace(16, int(name), 0, 0) == 0 else "refused")
    for what in ("fd", "fdinfo", "map_files", "root", "cwd"):
        try:
            os.listdir(f"/proc/{name}/{what}")
            print("opened", what)
        except OSError:
            pass
    for fd in range(64):
        try:
            open(f"/proc/{name}/fd/{fd}/MARK", "w").close()
            print("wrote through", fd)
        except OSError:
            pass
"""


def test_the_keepers_handlers_can_be_neither_traced_nor_opened(box: Sandbox) -> None:
    """The process that serves an exec holds descriptors of host directories (the base root among
    them): none of them can be reached through /proc, nor the process traced."""
    mark = f"assay-pwned-{uuid.uuid4().hex[:8]}"
    found = python(box, HANDLERS.replace("MARK", mark))
    assert found.split("\n")[0] == "refused", found
    assert "opened" not in found and "wrote through" not in found, found
    assert not (default_base() / mark).exists()
    assert not (tool_dir() / mark).exists()


def test_a_command_can_make_no_namespace_and_mount_nothing(box: Sandbox) -> None:
    for command in (
        "unshare -U true",
        "unshare -r true",
        "unshare -m true",
        "unshare -n true",
        "unshare -p -f true",
        "mount -t tmpfs x /mnt",
        "mount --bind /etc /mnt",
    ):
        assert box.exec(command, timeout_s=10).exit_code != 0, command
    assert run(box, "grep -c ' /mnt ' /proc/self/mounts || true") == "0\n"


@pytest.mark.skipif(os.uname().machine not in ARCHES, reason="no filter for this machine")
def test_the_keyring_bpf_io_uring_and_clock_calls_are_refused(box: Sandbox) -> None:
    numbers = ARCHES[os.uname().machine][1]
    calls = {
        name: numbers[name]
        for name in ("keyctl", "add_key", "bpf", "io_uring_setup", "clock_settime", "setns")
    }
    said = python(
        box,
        f"""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
buffer = ctypes.create_string_buffer(256)
for name, number in {calls!r}.items():
    result = libc.syscall(number, 0, buffer, 0, 0, 0)
    print(name, result, ctypes.get_errno())
""",
    )
    for line in said.splitlines():
        _, result, error = line.split()
        assert (result, int(error)) == ("-1", errno.EPERM), line


def test_commands_keep_no_capability_docker_drops(box: Sandbox) -> None:
    status = run(box, "grep -E '^Cap(Eff|Bnd):' /proc/self/status")
    for line in status.splitlines():
        mask = int(line.split()[1], 16)
        for capability in (
            12,
            16,
            17,
            19,
            21,
            25,
        ):  # net_admin, sys_module, rawio, ptrace, admin, time
            assert not mask & (1 << capability), (line, capability)


# -- the host's files ------------------------------------------------------------------------------


def test_the_sandboxs_root_is_not_the_hosts(box: Sandbox, host_marker: Path) -> None:
    assert box.exec(f"test -e {host_marker}", timeout_s=10).exit_code != 0
    root_marker = Path("/") / host_marker.name
    root_marker.write_text("host marker\n")
    try:
        assert box.exec(f"test -e {root_marker}", timeout_s=10).exit_code != 0
    finally:
        root_marker.unlink()
    assert run(box, "ls -A /var/tmp") == ""


def test_of_the_hosts_home_and_checkout_nothing_is_inside(box: Sandbox) -> None:
    """What a command finds under /root, /work, /home and /opt is the base root's own, assay's
    read-only tool layer, or what uv's installer leaves in a home (~/.local/bin)."""
    bound = [Path("/opt/assay"), Path("/root/.local")]
    listed = run(box, "find /root /work /home /opt -maxdepth 4 2>/dev/null || true").split("\n")
    for line in filter(None, listed):
        path = Path(line)
        in_base = os.path.lexists(default_base() / path.relative_to("/"))
        on_the_way = any(
            path == b or b.is_relative_to(path) or path.is_relative_to(b) for b in bound
        )
        assert in_base or on_the_way, path
    for secret in (".ssh", ".gitconfig", ".cargo", ".npmrc", ".config", ".cache"):
        assert box.exec(f"test -e /root/{secret}", timeout_s=10).exit_code != 0, secret


# -- the host's network ----------------------------------------------------------------------------


def host_addresses() -> list[str]:
    """The host's own IPv4 addresses besides loopback (its eth0 and the like)."""
    found = set()
    for name in (socket.gethostname(), "localhost"):
        with contextlib.suppress(OSError):
            found |= {info[4][0] for info in socket.getaddrinfo(name, None, socket.AF_INET)}
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe, contextlib.suppress(OSError):
        probe.connect(("192.0.2.1", 9))  # no packet is sent: the route picks the source address
        found.add(probe.getsockname()[0])
    return sorted(address for address in found if not address.startswith("127."))


CONNECT = """
import socket, struct, time
time.sleep(2)  # time for anything that forwards the host's listening ports to find this one
gateways = set()
for line in open("/proc/net/route").read().splitlines()[1:]:
    fields = line.split()
    if fields[2] != "00000000":
        gateways.add(socket.inet_ntoa(struct.pack("<L", int(fields[2], 16))))
for address in ["127.0.0.1", *sorted(gateways), *ADDRESSES]:
    for port in (PORT, 5432):
        try:
            socket.create_connection((address, port), timeout=2).close()
            print("reached", address, port)
        except OSError:
            pass
print(len(gateways))
"""


@pytest.mark.parametrize("network", ["public", "allowlist", "no-network"])
def test_no_network_mode_reaches_a_listener_on_the_host(
    start_sandbox: Callable[..., Sandbox], network: str
) -> None:
    """A listener on every host address (loopback too) and PostgreSQL's port: neither loopback
    inside, the gateway, nor the host's own addresses lead to them."""
    box = start_sandbox(network=network, allowed_hosts=("example.com",))
    with socket.create_server(("", 0)) as listener:
        listener.setblocking(False)
        code = CONNECT.replace("PORT", str(listener.getsockname()[1]))
        said = python(box, code.replace("ADDRESSES", repr(host_addresses())), timeout_s=120)
        with pytest.raises(BlockingIOError):
            listener.accept()
    *reached, gateways = said.splitlines()
    assert reached == []
    if network == "public":
        assert int(gateways) > 0  # it has a way out, and the way out is not the host


def test_a_no_network_sandbox_has_only_loopback(start_sandbox: Callable[..., Sandbox]) -> None:
    box = start_sandbox(network="no-network")
    listed = run(box, "tail -n +3 /proc/net/dev | cut -d: -f1").split()
    assert listed == ["lo"]


# -- limits ----------------------------------------------------------------------------------------


FORKS = """
import os, signal, time
children, failed = [], 0
for _ in range(64):
    try:
        pid = os.fork()
    except OSError:
        failed += 1
        continue
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    children.append(pid)
for pid in children:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
print(len(children), failed)
"""


def test_forking_twice_the_process_limit_fails_past_it(
    start_sandbox: Callable[..., Sandbox],
) -> None:
    box = start_sandbox(limits=Limits(pids=32))
    started, failed = (int(word) for word in python(box, FORKS, timeout_s=60).split())
    assert started < 32 and failed > 32


def test_past_the_memory_limit_a_process_is_killed_and_below_it_runs(
    start_sandbox: Callable[..., Sandbox],
) -> None:
    box = start_sandbox(limits=Limits(memory_mb=64))
    touch = "b = bytearray({mib} << 20); b[::4096] = b'x' * len(b[::4096]); print('allocated')"
    large = box.exec(f'{PYTHON} -c "{touch.format(mib=256)}"', timeout_s=60)
    assert large.exit_code != 0 and b"allocated" not in large.stdout
    assert run(box, f'{PYTHON} -c "{touch.format(mib=16)}"') == "allocated\n"


@pytest.mark.parametrize("where", ["/app", "/srv/deep/dir", "/tmp"])
def test_writing_past_the_storage_limit_anywhere_fails_with_no_space(
    start_sandbox: Callable[..., Sandbox], where: str
) -> None:
    box = start_sandbox(workdir="/app", storage_mb=20)
    tried = box.exec(
        f"mkdir -p {where} && dd if=/dev/zero of={where}/fill bs=1M count=60", timeout_s=60
    )
    assert tried.exit_code != 0
    assert b"No space left on device" in tried.stderr
    written = sum(
        path.lstat().st_size
        for folder in (box.home / "layer" / "upper", box.home / "layer" / "tmp")
        for path in folder.rglob("*")
        if path.is_file()
    )
    assert written <= 21 * 1024 * 1024
