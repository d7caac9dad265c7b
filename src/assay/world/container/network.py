"""The network a sandbox's network namespace gets: loopback only, pasta's public one, or an allowlist
proxy; with either of the last two, the host's package cache on the namespace's own loopback."""

from __future__ import annotations

import contextlib
import ctypes
import ipaddress
import os
import select
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from assay.world.container import hostnet
from assay.world.container.hostnet import NetworkFailed, host_addresses, run_command
from assay.world.container.packages import Offer, cache_server
from assay.world.container.proxy import Allowlist, IpAddress, Proxy

MODES = ("public", "no-network", "allowlist")
READY_S = 30.0  # as long as a sandbox may take to start: a loaded machine is slow, not broken
STOP_S = 2.0
# Link-local IPv4 is blocked in a public namespace: cloud metadata services (169.254.169.254) live there.
LINK_LOCAL_V4 = ipaddress.ip_network("169.254.0.0/16")
# The address pasta answers DNS on (UDP port 53, relayed to the host's first resolver) when no
# resolver of the host can be reached from the namespace directly; exempt from the link-local block.
DNS_FORWARD = ipaddress.ip_address("169.254.1.53")
BLOCK_PREF = 100  # policy rules run after the `local` table (0), so the namespace's own addresses stay its own
NO_PROXY = "localhost,127.0.0.1,::1"
CLONE_NEWNET = 0x40000000


@dataclass
class Network:
    """What attach() gave a sandbox's namespace, and what stops it."""

    mode: str
    env: dict[str, str] = field(default_factory=dict)  # for the sandbox's commands
    notes: list[str] = field(default_factory=list)
    nameservers: list[str] = field(default_factory=list)  # for the sandbox's /etc/resolv.conf
    refused: list[tuple[str, str]] = field(default_factory=list)  # (host, reason), by the proxy
    pasta: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    proxy: Proxy | None = field(default=None, repr=False)
    packages: Offer | None = field(default=None, repr=False)  # the package cache, if offered
    _wake: int | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def close(self) -> None:
        """Stop pasta and the proxy; idempotent."""
        with self._lock:
            wake, self._wake = self._wake, None
            pasta, self.pasta = self.pasta, None
            proxy, self.proxy = self.proxy, None
            packages, self.packages = self.packages, None
        if packages is not None:
            packages.close()
        if wake is not None:
            with contextlib.suppress(OSError):
                os.write(wake, b"x")
            os.close(wake)
        if pasta is not None:
            _stop(pasta)
        if proxy is not None:
            proxy.close()


def attach(pid: int, mode: str, allowed_hosts: Sequence[str] = ()) -> Network:
    """Give the network namespace of process `pid` (which is also in its own user namespace) the
    network `mode` asks for. Raises NetworkFailed."""
    if mode not in MODES:
        raise NetworkFailed(f"unknown network mode {mode!r} (one of {', '.join(MODES)})")
    _check_target(pid)
    if mode == "no-network":
        return Network(mode, notes=["loopback only"])
    if mode == "public":
        return _public(pid)
    return _allowlist(pid, allowed_hosts)


def _check_target(pid: int) -> None:
    """`pid` exists and has network and user namespaces other than assay's own."""
    if isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0:
        raise NetworkFailed(f"not a process id: {pid!r}")
    for kind in ("net", "user"):
        try:
            theirs, ours = os.stat(f"/proc/{pid}/ns/{kind}"), os.stat(f"/proc/self/ns/{kind}")
        except FileNotFoundError:
            raise NetworkFailed(f"no process {pid}") from None
        except OSError as error:
            raise NetworkFailed(
                f"cannot see the namespaces of process {pid}: {error.strerror}"
            ) from None
        if (theirs.st_dev, theirs.st_ino) == (ours.st_dev, ours.st_ino):
            raise NetworkFailed(f"process {pid} shares the host's {kind} namespace")


def _public(pid: int) -> Network:
    """pasta connects the namespace to the outside; policy rules keep the host out of its reach.

    Every rule is added once pasta has added the default routes (the kernel checks a route's
    gateway through the rules, so a gateway blocked before would leave no default route); with
    --no-map-gw a gateway is only the router it is, never the host.
    """
    network = Network("public")
    own, gateways = hostnet.host_facts()
    resolvers = [a for a in hostnet.resolvers() if _usable_resolver(a, own | gateways)]
    forward = [] if resolvers else ["--dns-forward", str(DNS_FORWARD)]
    network.nameservers = [str(address) for address in resolvers] or [str(DNS_FORWARD)]
    # Blocking the addresses pasta gives the namespace too is harmless: the `local` table, looked
    # up first, keeps them the namespace's own. Loopback never leaves a namespace.
    hosts = sorted({a for a in own if not a.is_loopback} - gateways, key=_order)
    network.pasta = _start_pasta(pid, forward)
    pasta_pid = network.pasta.pid
    try:
        # pasta gives the namespace the host's own default gateways. Nothing runs in the sandbox
        # before attach returns, so the rules may all follow pasta's routes, in one batch a family.
        gateways = sorted(gateways, key=_order)
        blocked = [*hosts, LINK_LOCAL_V4, *gateways]
        _block(pid, blocked, exempt=DNS_FORWARD if forward else None)
        _offer_packages(network, pid, None)
        _watch(network, pid)
    except BaseException:
        network.close()
        raise
    network.notes.append(f"public through pasta (pid {pasta_pid})")
    network.notes.append("blocked: " + ", ".join(map(str, [*hosts, *gateways, LINK_LOCAL_V4])))
    network.notes.append(f"nameservers: {', '.join(network.nameservers)}")
    if forward:
        network.notes.append(f"DNS at {DNS_FORWARD} is relayed by pasta to the host's resolver")
    return network


def _order(address: IpAddress) -> tuple[int, IpAddress]:
    return (address.version, address)


def _allowlist(pid: int, allowed_hosts: Sequence[str]) -> Network:
    """A proxy listening on the namespace's own 127.0.0.1; with no route out, it is the only way out."""
    try:
        allowlist = Allowlist(allowed_hosts)
    except ValueError as error:
        raise NetworkFailed(f"allowed hosts: {error}") from None
    network = proxied(pid, allowlist)
    try:
        _offer_packages(network, pid, allowlist)
    except BaseException:
        network.close()
        raise
    shown = ", ".join(allowed_hosts) or "(none)"
    network.notes.append(f"allowlist through the proxy at {network.env['HTTP_PROXY']}: {shown}")
    return network


def proxied(pid: int, allowlist: Allowlist, *, bring_up: bool = True) -> Network:
    """A proxy that admits only what `allowlist` does, on 127.0.0.1 of the namespace of `pid`,
    and the proxy variables that name it; `bring_up` False: its loopback is up already. Raises
    NetworkFailed."""
    if bring_up:
        _ip(pid, "link", "set", "lo", "up")
    listener = listen_inside(pid)
    network = Network("allowlist")
    network.proxy = Proxy(listener, allowlist, host_addresses(), network.refused)
    try:
        network.proxy.start()
    except RuntimeError as error:
        network.close()
        raise NetworkFailed(str(error)) from None
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    for name in ("HTTP_PROXY", "HTTPS_PROXY"):
        network.env[name] = network.env[name.lower()] = url
    network.env["NO_PROXY"] = network.env["no_proxy"] = NO_PROXY
    return network


def _offer_packages(network: Network, pid: int, allowlist: Allowlist | None) -> None:
    """The host's package cache, served on a socket of the namespace's own loopback; its index
    variables join the commands' environment (a task's own settings win over them)."""
    server = cache_server(lambda: hostnet.host_facts()[0])
    network.packages = server.offer(listen_inside(pid), allowlist)
    network.env.update(network.packages.env)


def _usable_resolver(address: IpAddress, unreachable: set[IpAddress]) -> bool:
    """A resolver the namespace reaches through pasta without reaching the host."""
    local = address.is_loopback or address.is_link_local or address.is_unspecified
    return not local and address not in unreachable


def _start_pasta(pid: int, extra: list[str]) -> subprocess.Popen[bytes]:
    """pasta in the foreground, ready once its PID file is written (after it configured the namespace)."""
    pasta = shutil.which("pasta")
    if pasta is None:
        raise NetworkFailed("pasta is not installed (Debian and Ubuntu: apt-get install passt)")
    work = Path(tempfile.mkdtemp(prefix="assay-pasta-"))
    pidfile, log = work / "pid", work / "stderr"
    argv = [*("setpriv", "--pdeathsig", "KILL", "--"), pasta, *PASTA_OPTIONS, *extra]
    argv += ["--pid", str(pidfile), str(pid)]
    try:
        with log.open("wb") as stderr:
            process = _launch(argv, stderr)
        deadline = time.monotonic() + READY_S
        while not _nonempty(pidfile):
            if process.poll() is not None:
                raise NetworkFailed(f"pasta exited with {process.returncode}: {_last_line(log)}")
            if time.monotonic() > deadline:
                _stop(process)
                raise NetworkFailed(f"pasta was not ready after {READY_S:.0f}s: {_last_line(log)}")
            time.sleep(0.002)
        return process
    finally:
        shutil.rmtree(work, ignore_errors=True)


# No port forwarded into the namespace (-t/-u none), none from its loopback to the host's
# (-T/-U none: this pasta's default, auto, would forward the host's listening ports), no gateway
# address mapped to the host's loopback (--no-map-gw); addresses and routes configured by pasta
# itself; root, so that it may join a user namespace owned by root (it drops to nobody otherwise).
PASTA_OPTIONS = (
    *("--foreground", "--quiet", "--runas", "0", "--config-net"),
    *("-t", "none", "-u", "none", "-T", "none", "-U", "none", "--no-map-gw"),
)

_launcher: tuple[int, ThreadPoolExecutor] | None = None


def _launch(argv: list[str], stderr: object) -> subprocess.Popen[bytes]:
    """Popen from a thread that lives as long as this process: pasta's parent-death signal fires
    when the thread that forked it ends, so a short-lived caller's thread must not fork it."""
    global _launcher
    if _launcher is None or _launcher[0] != os.getpid():
        _launcher = (os.getpid(), ThreadPoolExecutor(1, thread_name_prefix="assay-pasta"))
    options = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": stderr}
    try:
        return _launcher[1].submit(subprocess.Popen, argv, **options).result()
    except OSError as error:
        raise NetworkFailed(f"cannot start pasta: {error.strerror or error}") from None


def _watch(network: Network, pid: int) -> None:
    """Stop pasta once process `pid` is gone: pasta itself would keep the namespace alive."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError as error:
        raise NetworkFailed(f"process {pid} is gone: {error.strerror}") from None
    wake_read, network._wake = os.pipe()

    def wait() -> None:
        try:
            select.select([pidfd, wake_read], [], [])
        finally:
            os.close(pidfd)
            os.close(wake_read)
        network.close()

    threading.Thread(target=wait, name=f"assay-network-{pid}", daemon=True).start()


def _block(
    pid: int, blocked: Sequence[IpAddress | ipaddress.IPv4Network], exempt: IpAddress | None
) -> None:
    """A `prohibit` policy rule per destination: unlike a route, it holds for link-local ones too."""
    rules: dict[str, list[str]] = {"-4": [], "-6": []}
    if exempt is not None:
        rules[f"-{exempt.version}"].append(
            f"rule add to {exempt} lookup main pref {BLOCK_PREF - 1}"
        )
    for target in blocked:
        prefix = (
            target if isinstance(target, ipaddress.IPv4Network) else ipaddress.ip_network(target)
        )
        rules[f"-{prefix.version}"].append(f"rule add to {prefix} prohibit pref {BLOCK_PREF}")
    for family, lines in rules.items():
        if lines:
            _ip(pid, family, "-batch", "-", stdin="\n".join(lines) + "\n")


def listen_inside(pid: int) -> socket.socket:
    """A TCP socket listening on 127.0.0.1 of the namespace of `pid`, made by a thread that joins it."""
    made: list[socket.socket | OSError] = []

    def make() -> None:
        try:
            fd = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
            try:
                _setns(fd)
            finally:
                os.close(fd)
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.bind(("127.0.0.1", 0))
            listener.listen(128)
            made.append(listener)
        except OSError as error:
            made.append(error)

    thread = threading.Thread(target=make, name=f"assay-netns-{pid}")
    thread.start()
    thread.join()  # the thread ends here, in the sandbox's namespace: no other code runs in it
    if isinstance(made[0], OSError):
        raise NetworkFailed(
            f"cannot listen in the namespace of process {pid}: {made[0].strerror or made[0]}"
        )
    return made[0]


def _setns(fd: int) -> None:
    if hasattr(os, "setns"):  # Python 3.12
        os.setns(fd, CLONE_NEWNET)
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, CLONE_NEWNET) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


def _ip(pid: int, *args: str, stdin: str | None = None) -> str:
    """`ip ARGS` run in the network namespace of `pid`."""
    return run_command(["nsenter", f"--net=/proc/{pid}/ns/net", "ip", *args], stdin)


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(STOP_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(STOP_S)


def _nonempty(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except FileNotFoundError:
        return False


def _last_line(log: Path) -> str:
    lines = [line for line in log.read_text(errors="replace").splitlines() if "syslog" not in line]
    return lines[-1].strip() if lines else "no message"
