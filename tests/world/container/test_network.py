"""The networks attach() gives stand-in sandbox namespaces: real namespaces, pasta and the proxy."""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from assay.world.container import hostnet
from assay.world.container.network import (
    DNS_FORWARD,
    Network,
    NetworkFailed,
    attach,
    host_addresses,
)
from assay.world.container.proxy import Allowlist, Refusal, forbidden, parse

if os.geteuid() != 0 or not all(shutil.which(tool) for tool in ("unshare", "nsenter", "ip")):
    pytest.skip("network namespaces need root, unshare, nsenter and ip", allow_module_level=True)

ARCHIVE = "deb.debian.org"
PROBE_TIMEOUT_S = 20
# Connects to each HOST:PORT argument; prints "connected" or the errno's name for each.
CONNECT = """
import errno, socket, sys
out = []
for target in sys.argv[1:]:
    host, _, port = target.rpartition(":")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(family)
    s.settimeout(3)
    try:
        s.connect(socket.getaddrinfo(host.strip("[]"), int(port), family)[0][4])
        out.append("connected")
    except OSError as e:
        out.append(errno.errorcode.get(e.errno, "timeout") if e.errno else "timeout")
    finally:
        s.close()
print(" ".join(out))
"""
# Asks nameserver argv[1] for the A records of argv[2]; prints the addresses.
RESOLVE = """
import socket, struct, sys
name = b"".join(bytes([len(p)]) + p.encode() for p in sys.argv[2].split(".")) + b"\\0"
query = struct.pack(">6H", 0x5eed, 0x0100, 1, 0, 0, 0) + name + struct.pack(">HH", 1, 1)
s = socket.socket(socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(5)
s.sendto(query, (sys.argv[1], 53))
data, at, found = s.recv(4096), len(query), []
for _ in range(struct.unpack(">H", data[6:8])[0]):
    while data[at] and data[at] < 0xC0:
        at += data[at] + 1
    at += 2 if data[at] else 1
    kind, _, _, length = struct.unpack(">HHIH", data[at:at + 10])
    if kind == 1:
        found.append(socket.inet_ntoa(data[at + 10:at + 14]))
    at += 10 + length
print(" ".join(found))
"""
# Sends argv[2] to the proxy at argv[1] (host:port); prints the first line of the answer.
ASK_PROXY = """
import socket, sys
host, _, port = sys.argv[1].rpartition(":")
s = socket.create_connection((host, int(port)), 5)
s.sendall(sys.argv[2].encode() + b"\\r\\n\\r\\n")
answer = s.recv(4096)
if len(sys.argv) > 3 and answer.startswith(b"HTTP/1.1 200"):
    s.sendall(sys.argv[3].encode() + b"\\r\\n\\r\\n")
    answer = s.recv(4096)
print(answer.split(b"\\r\\n")[0].decode())
"""
FETCH = """
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=10) as answer:
    print(answer.status, answer.read(12).decode())
"""


@pytest.fixture
def namespace() -> Iterator[int]:
    """A stand-in sandbox: a process in user and network namespaces of its own, whose root is host
    uid 100000 as a sandbox's is, with loopback up as bwrap leaves it."""
    holder = subprocess.Popen(["unshare", "--user", "--net", "--fork", "sleep", "120"])
    children = Path(f"/proc/{holder.pid}/task/{holder.pid}/children")
    deadline = time.monotonic() + 5
    while not children.read_text().split():
        assert time.monotonic() < deadline, "unshare did not start its child"
        time.sleep(0.005)
    pid = int(children.read_text().split()[0])
    Path(f"/proc/{pid}/uid_map").write_text("0 100000 65536\n")
    Path(f"/proc/{pid}/gid_map").write_text("0 100000 65536\n")
    subprocess.run(
        ["nsenter", f"--net=/proc/{pid}/ns/net", "ip", "link", "set", "lo", "up"], check=True
    )
    yield pid
    holder.kill()
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    holder.wait(5)


@pytest.fixture
def attached() -> Iterator[Callable[..., Network]]:
    """attach(), with every network closed at the end."""
    made: list[Network] = []

    def make(*args: object) -> Network:
        made.append(attach(*args))  # type: ignore[arg-type]
        return made[-1]

    yield make
    for network in made:
        network.close()


@pytest.fixture(scope="module")
def archive() -> str:
    """The address of the Debian archive, as the host resolves it; skips where it is unreachable."""
    try:
        address = socket.getaddrinfo(ARCHIVE, 80, socket.AF_INET, socket.SOCK_STREAM)[0][4][0]
        socket.create_connection((address, 80), 3).close()
    except OSError as error:
        pytest.skip(f"{ARCHIVE} is not reachable from here: {error}")
    return address


def probe(pid: int, code: str, *args: str, env: dict[str, str] | None = None) -> str:
    """Run python `code` inside the namespaces of `pid`; its output."""
    argv = [
        "nsenter",
        "-t",
        str(pid),
        "-U",
        "-n",
        "--preserve-credentials",
        sys.executable,
        "-c",
        code,
    ]
    done = subprocess.run(
        [*argv, *args], capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, env=env or {}
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def inside_ip(pid: int, *args: str) -> str:
    argv = ["nsenter", f"--net=/proc/{pid}/ns/net", "ip", *args]
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def target(address: ipaddress.IPv4Address | ipaddress.IPv6Address, port: int, ifname: str) -> str:
    if address.version == 4:
        return f"{address}:{port}"
    return f"[{address}%{ifname}]:{port}" if address.is_link_local else f"[{address}]:{port}"


def test_public_reaches_the_archive(
    namespace: int, attached: Callable[..., Network], archive: str
) -> None:
    started = time.monotonic()
    network = attached(namespace, "public")
    assert time.monotonic() - started < 2
    assert network.mode == "public" and network.nameservers
    index = f"{network.packages.url}/pypi/simple/"  # type: ignore[union-attr]
    assert network.env == {"PIP_INDEX_URL": index, "UV_INDEX_URL": index}
    assert archive in probe(namespace, RESOLVE, network.nameservers[0], ARCHIVE).split()
    request = f"GET /debian/ HTTP/1.1\\r\\nHost: {ARCHIVE}\\r\\nConnection: close\\r\\n\\r\\n"
    code = f"import socket; s = socket.create_connection(({archive!r}, 80), 5); "
    code += f's.sendall(b"{request}"); print(s.recv(64).split(b"\\r\\n")[0].decode())'
    assert probe(namespace, code).startswith("HTTP/1.1 200")


def test_public_never_reaches_the_host(namespace: int, attached: Callable[..., Network]) -> None:
    listener = socket.socket(socket.AF_INET6)
    listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    listener.bind(("::", 0))
    listener.listen()
    listener.setblocking(False)
    port = listener.getsockname()[1]
    attached(namespace, "public")
    rules = inside_ip(namespace, "rule") + inside_ip(namespace, "-6", "rule")
    gateways = set()
    for family in ("-4", "-6"):
        routes = subprocess.run(
            ["ip", family, "-j", "route", "show", "default"], capture_output=True
        )
        gateways |= {
            route["gateway"] for route in json.loads(routes.stdout or b"[]") if "gateway" in route
        }
    for gateway in gateways:  # prohibited inside, so probing it sends nothing to the real gateway
        assert f"to {gateway} prohibit" in rules
    links = json.loads(inside_ip(namespace, "-j", "link", "show"))
    ifname = next(link["ifname"] for link in links if link["ifname"] != "lo")
    addresses = host_addresses() | {ipaddress.ip_address(gateway) for gateway in gateways}
    targets = [target(address, p, ifname) for address in addresses for p in (port, 5432, 6379)]
    results = probe(namespace, CONNECT, *targets).split()
    assert len(results) == len(targets)
    assert "connected" not in results, dict(zip(targets, results, strict=True))
    with pytest.raises(BlockingIOError):
        listener.accept()
    listener.close()


def test_public_metadata_range_is_blocked(namespace: int, attached: Callable[..., Network]) -> None:
    attached(namespace, "public")
    assert probe(namespace, CONNECT, "169.254.169.254:80") == "EACCES"


def test_public_dns_relayed_by_pasta(
    namespace: int, attached: Callable[..., Network], archive: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the host's only resolver is its own (systemd-resolved's 127.0.0.53), pasta relays
    DNS sent to DNS_FORWARD to the first resolver of /etc/resolv.conf."""
    monkeypatch.setattr(hostnet, "resolvers", lambda: [ipaddress.ip_address("127.0.0.53")])
    network = attached(namespace, "public")
    assert network.nameservers == [str(DNS_FORWARD)]
    assert archive in probe(namespace, RESOLVE, str(DNS_FORWARD), ARCHIVE).split()


def test_no_network_is_loopback_only(namespace: int, attached: Callable[..., Network]) -> None:
    network = attached(namespace, "no-network")
    assert (network.env, network.nameservers) == ({}, [])
    started = time.monotonic()
    assert probe(namespace, CONNECT, "203.0.113.80:80") == "ENETUNREACH"
    assert time.monotonic() - started < 2


def test_allowlist_admits_only_listed_hosts(
    namespace: int, attached: Callable[..., Network], archive: str
) -> None:
    own = next(str(a) for a in host_addresses() if a.version == 4 and not a.is_loopback)
    network = attached(namespace, "allowlist", [ARCHIVE, "127.0.0.1", "localhost", own])
    proxy = network.env["HTTP_PROXY"].removeprefix("http://")
    assert (
        network.env["https_proxy"] == network.env["HTTP_PROXY"]
        and "127.0.0.1" in network.env["NO_PROXY"]
    )
    assert probe(namespace, FETCH, f"http://{ARCHIVE}/debian/", env=network.env).startswith("200")
    release = f"http://{ARCHIVE}/debian/dists/bookworm/Release"
    assert probe(namespace, FETCH, release, env=network.env) == "200 Origin: Debi"
    head = f"HEAD /debian/ HTTP/1.1\r\nHost: {ARCHIVE}\r\nConnection: close"
    assert (
        probe(namespace, ASK_PROXY, proxy, f"CONNECT {ARCHIVE}:80 HTTP/1.1", head)
        == "HTTP/1.1 200 OK"
    )
    refused = {
        "CONNECT example.org:443 HTTP/1.1": "example.org",
        "GET http://localhost:6379/ HTTP/1.1": "localhost",
        "CONNECT 127.0.0.1:5432 HTTP/1.1": "127.0.0.1",
        f"CONNECT {own}:5432 HTTP/1.1": own,
    }
    for request in refused:
        assert probe(namespace, ASK_PROXY, proxy, request) == "HTTP/1.1 403 Forbidden", request
    assert [host for host, _ in network.refused] == list(refused.values())
    assert "not one of the task's allowed hosts" in network.refused[0][1]
    assert network.refused[1][1] == "localhost resolves to 127.0.0.1, a loopback address"
    assert probe(namespace, CONNECT, f"{archive}:80") == "ENETUNREACH"


def test_allowlist_matching() -> None:
    allowlist = Allowlist(
        ["Deb.Debian.org.", "*.example.org", ".pypi.org", "203.0.113.9", "[2001:db8::1]"]
    )
    for host in (
        "deb.debian.org",
        "DEB.debian.org.",
        "a.example.org",
        "a.b.pypi.org",
        "203.0.113.9",
    ):
        assert allowlist.admits(host), host
    assert allowlist.admits("[2001:DB8:0::1]")
    for host in (
        "debian.org",
        "example.org",
        "pypi.org",
        "xexample.org",
        "evil.org",
        "203.0.113.10",
    ):
        assert not allowlist.admits(host), host
    for entry in ("", "http://a.org", "a.org:443", "a.org/x"):
        with pytest.raises(ValueError):
            Allowlist([entry])


def test_plain_requests_go_to_the_named_host_only() -> None:
    head = b"GET http://a.example:8080/x?y=1 HTTP/1.1\r\nHost: evil.example\r\nProxy-Connection: keep-alive\r\n"
    request = parse(head + b"Accept: */*\r\n\r\n")
    assert (request.host, request.port, request.tunnel) == ("a.example", 8080, False)
    expected = (
        b"GET /x?y=1 HTTP/1.1\r\nHost: a.example:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n"
    )
    assert request.head == expected
    assert parse(b"CONNECT [2001:db8::1]:443 HTTP/1.1\r\n\r\n").host == "2001:db8::1"
    for bad in (
        b"GET /relative HTTP/1.1\r\n\r\n",
        b"CONNECT a.org HTTP/1.1\r\n\r\n",
        b"nonsense\r\n\r\n",
    ):
        with pytest.raises(Refusal):
            parse(bad)
    assert forbidden(ipaddress.ip_address("::ffff:127.0.0.1"), set()) == "a loopback address"
    assert forbidden(ipaddress.ip_address("0.0.0.0"), set()) is not None


def test_close_stops_pasta_and_proxy(namespace: int) -> None:
    public = attach(namespace, "public")
    assert public.pasta is not None
    pasta = public.pasta.pid
    public.close()
    public.close()
    assert not Path(f"/proc/{pasta}").exists()
    allowlist = attach(namespace, "allowlist", [ARCHIVE])
    port = allowlist.env["HTTP_PROXY"].rpartition(":")[2]
    assert probe(namespace, CONNECT, f"127.0.0.1:{port}") == "connected"
    allowlist.close()
    allowlist.close()
    assert probe(namespace, CONNECT, f"127.0.0.1:{port}") == "ECONNREFUSED"


def test_pasta_stops_with_the_namespace(namespace: int, attached: Callable[..., Network]) -> None:
    network = attached(namespace, "public")
    assert network.pasta is not None
    pasta = network.pasta.pid
    os.kill(namespace, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while Path(f"/proc/{pasta}").exists():
        assert time.monotonic() < deadline, "pasta outlived its namespace"
        time.sleep(0.01)
    assert network.pasta is None


def test_attach_failures(namespace: int) -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()
    cases = [(gone.pid, "public"), (os.getpid(), "public"), (namespace, "bridge")]
    for pid, mode in cases:
        with pytest.raises(NetworkFailed) as failed:
            attach(pid, mode)
        assert "\n" not in str(failed.value)
    with pytest.raises(NetworkFailed, match="allowed hosts"):
        attach(namespace, "allowlist", ["http://a.org/"])
    routes = json.loads(
        subprocess.run(["ip", "-j", "route", "show", "default"], capture_output=True).stdout
    )
    taken = [
        "tuntap",
        "add",
        routes[0]["dev"],
        "mode",
        "tun",
    ]  # the name pasta gives its tap device
    inside_ip(namespace, *taken)
    with pytest.raises(NetworkFailed, match="pasta exited with 1: "):
        attach(namespace, "public")


def test_attach_without_pasta(
    namespace: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for tool in ("ip", "nsenter", "setpriv"):
        (tmp_path / tool).symlink_to(shutil.which(tool) or tool)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(NetworkFailed, match="pasta is not installed"):
        attach(namespace, "public")
