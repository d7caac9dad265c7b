"""An HTTP proxy that lets a sandbox reach only its task's allowed hosts, and never the host itself."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

HEAD_TIMEOUT_S = 30.0
CONNECT_TIMEOUT_S = 10.0
CHUNK = 65536
MAX_CONNECTIONS = 256  # at once, per sandbox: each holds a descriptor or two of assay's
# Headers meant for the proxy, or for one hop, that are not passed on.
HOP_HEADERS = {"proxy-connection", "proxy-authorization", "connection", "keep-alive", "host"}

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class Refusal(Exception):
    """A request the proxy does not pass on: its status and a one-line reason."""

    def __init__(self, host: str, reason: str, status: int = 403) -> None:
        super().__init__(reason)
        self.host, self.reason, self.status = host, reason, status


@dataclass(frozen=True)
class Request:
    """What a client asked for: a tunnel (CONNECT) or one plain HTTP request to pass on."""

    host: str
    port: int
    tunnel: bool
    head: bytes = b""  # the request to send upstream, in origin form; empty for a tunnel


class Allowlist:
    """Which hosts a sandbox may reach.

    Entries are host names, matched exactly and case-insensitively (a trailing dot ignored), or
    IP address literals. `*.example.org` and `.example.org` admit every subdomain of example.org
    but not example.org itself, which needs its own entry. No ports, schemes or paths.
    """

    not_admitted = "is not one of the task's allowed hosts"

    def __init__(self, entries: Sequence[str]) -> None:
        self.names: set[str] = set()
        self.suffixes: set[str] = set()
        for entry in entries:
            name = normal_host(entry)
            suffix = name.startswith(("*.", "."))
            bare = name.removeprefix("*").removeprefix(".") if suffix else name
            odd = any(char in bare for char in "/ @?#*[]") or bare.count(":") == 1
            if not bare or bare.startswith(".") or odd:
                raise ValueError(f"not a host name or address: {entry!r}")
            if suffix:
                self.suffixes.add("." + bare)
            else:
                self.names.add(bare)

    def admits(self, host: str, port: int | None = None) -> bool:
        name = normal_host(host)
        return name in self.names or any(name.endswith(suffix) for suffix in self.suffixes)

    def named(self, host: str, port: int) -> bool:
        """Whether host:port was named exactly, so that it is reached even on the host's
        loopback (a model endpoint the user named); never for a task's allowed hosts."""
        return False


def normal_host(host: str) -> str:
    """Lower case, no trailing dot, no brackets around an IPv6 literal."""
    name = host.strip().lower().rstrip(".")
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        return name


def forbidden(address: IpAddress, host_addresses: Collection[IpAddress]) -> str | None:
    """What makes `address` one the proxy never connects to, or None when it may."""
    mapped = getattr(address, "ipv4_mapped", None)
    address = mapped or address
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_unspecified or address.is_multicast:
        return "not the address of a host"
    if address in host_addresses:
        return "an address of the host"
    return None


def parse(head: bytes) -> Request:
    """The request in `head` (request line and headers), or Refusal with status 400."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        raise Refusal(lines[0][:80], "not an HTTP request line", 400)
    method, target, version = parts
    if method == "CONNECT":
        host, _, port = target.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise Refusal(target[:80], "CONNECT needs host:port", 400)
        return Request(normal_host(host), int(port), tunnel=True)
    url = urlsplit(target)
    try:
        port = url.port or 80
    except ValueError:
        port = 0
    if url.scheme != "http" or not url.hostname or not 0 < port < 65536:
        raise Refusal(target[:80], "only CONNECT and absolute http:// URLs are proxied", 400)
    path = (url.path or "/") + (f"?{url.query}" if url.query else "")
    authority = url.netloc.rpartition("@")[2]
    kept = [
        line for line in lines[1:] if line and line.split(":")[0].strip().lower() not in HOP_HEADERS
    ]
    forwarded = [f"{method} {path} {version}", f"Host: {authority}", *kept, "Connection: close"]
    return Request(
        normal_host(url.hostname),
        port,
        False,
        ("\r\n".join(forwarded) + "\r\n\r\n").encode("latin-1"),
    )


class Proxy:
    """Serves on `listener` (already bound and listening) from a daemon thread of its own."""

    def __init__(
        self,
        listener: socket.socket,
        allowlist: Allowlist,
        host_addresses: Collection[IpAddress],
        refused: list[tuple[str, str]],
    ) -> None:
        self.listener, self.allowlist, self.host_addresses = listener, allowlist, host_addresses
        self.refused = refused
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._open_connections = 0  # touched by the loop's thread alone

    def start(self) -> None:
        """Serve from now on; RuntimeError with one line when the server cannot start."""
        ready = threading.Event()
        failed: list[BaseException] = []
        self._thread = threading.Thread(
            target=self._run, args=(ready, failed), name="assay-proxy", daemon=True
        )
        self._thread.start()
        if not ready.wait(5.0) or failed:
            self.close()
            raise RuntimeError(f"the proxy did not start: {failed[0] if failed else 'timed out'}")

    def close(self) -> None:
        loop, thread = self._loop, self._thread
        self._loop = self._thread = None
        if loop is not None and thread is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed already
                loop.call_soon_threadsafe(loop.stop)
            thread.join(5.0)
        self.listener.close()

    def _run(self, ready: threading.Event, failed: list[BaseException]) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            server = loop.run_until_complete(asyncio.start_server(self._serve, sock=self.listener))
        except Exception as error:
            failed.append(error)
            loop.close()
            ready.set()
            return
        self._loop = loop
        ready.set()
        try:
            loop.run_forever()
        finally:
            server.close()
            tasks = asyncio.all_tasks(loop)
            for task in tasks:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            loop.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._open_connections >= MAX_CONNECTIONS:
            await _answer(writer, 503, f"more than {MAX_CONNECTIONS} connections at once")
            return
        self._open_connections += 1
        try:
            await self._pass_on(reader, writer)
        finally:
            self._open_connections -= 1

    async def _pass_on(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT_S)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
            writer.close()  # no request, a request too long, or none within HEAD_TIMEOUT_S
            return
        try:
            request = parse(head)
            upstream = await self._open(request)
        except Refusal as refusal:
            self.refused.append((refusal.host, refusal.reason))
            await _answer(writer, refusal.status, refusal.reason)
            return
        except OSError as error:
            await _answer(writer, 502, f"cannot connect: {error.strerror or error}")
            return
        up_reader, up_writer = upstream
        if request.tunnel:
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            up_writer.write(request.head)
        try:
            await asyncio.gather(
                _pump(reader, up_writer, writer), _pump(up_reader, writer, up_writer)
            )
        finally:
            writer.close()
            up_writer.close()

    async def _open(self, request: Request) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A connection to the requested host, once the allowlist admits it and no address it
        resolves to is one the proxy never connects to."""
        if not self.allowlist.admits(request.host, request.port):
            raise Refusal(request.host, f"{request.host} {self.allowlist.not_admitted}")
        exact = self.allowlist.named(request.host, request.port)
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(request.host, request.port, type=socket.SOCK_STREAM)
        except socket.gaierror as error:
            raise Refusal(
                request.host, f"{request.host} does not resolve: {error.strerror}", 502
            ) from None
        found = (str(info[4][0]).partition("%")[0] for info in infos)
        addresses = list(dict.fromkeys(ipaddress.ip_address(address) for address in found))
        for address in addresses:
            what = None if exact else forbidden(address, self.host_addresses)
            if what and request.host == str(address):
                raise Refusal(request.host, f"{address} is {what}")
            if what:
                raise Refusal(request.host, f"{request.host} resolves to {address}, {what}")
        failure: OSError = OSError(f"{request.host} has no address")
        for address in addresses:
            opening = asyncio.open_connection(str(address), request.port)
            try:
                return await asyncio.wait_for(opening, CONNECT_TIMEOUT_S)
            except TimeoutError:
                failure = ConnectionError(f"{address} gave no answer in {CONNECT_TIMEOUT_S:.0f}s")
            except OSError as error:
                failure = error
        raise failure


async def _answer(writer: asyncio.StreamWriter, status: int, reason: str) -> None:
    phrase = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}.get(status, "Unavailable")
    body = f"assay proxy: {reason}\n".encode()
    head = (
        f"HTTP/1.1 {status} {phrase}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
    )
    writer.write(head.encode() + b"Connection: close\r\n\r\n" + body)
    with contextlib.suppress(OSError):
        await writer.drain()
    writer.close()


async def _pump(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, other: asyncio.StreamWriter
) -> None:
    """Copy until end of file and pass the end on; a reset on either side closes both."""
    try:
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except OSError:
        writer.close()
        other.close()
