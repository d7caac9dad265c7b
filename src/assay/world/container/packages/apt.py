"""The cache's apt face: a plain HTTP forward proxy (apt's `Acquire::http::Proxy`). Files under
`pool/` (versioned, checked by apt against the signed indexes) and `by-hash/` ones (named by their
hash, checked here) are kept for good; other `dists/` files are asked again upstream each time
(If-None-Match, If-Modified-Since) and served from the cache on 304; anything else is relayed."""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import json
import re
import socket
from collections.abc import Callable, Collection
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from assay.world.container.packages.relay import OCTETS, note, relay, serve_file
from assay.world.container.packages.store import Store, Writer
from assay.world.container.packages.wire import Reply, Request
from assay.world.container.proxy import Allowlist, IpAddress, forbidden, normal_host

BY_HASH = re.compile(r"/by-hash/SHA256/([0-9a-f]{64})$")
POOL_FILE = re.compile(r"/pool/.+\.(deb|udeb|ddeb|dsc|diff\.gz|tar\.[a-z0-9]+|changes|buildinfo)$")
FORWARDED = ("user-agent", "accept")


def kind(path: str) -> str:
    """How the apt face treats a path: `hash` (kept, its hash checked), `pool` (kept), `index`
    (asked again each time) or `other` (relayed)."""
    if BY_HASH.search(path):
        return "hash"
    if "/dists/" in path:
        return "index"
    if POOL_FILE.search(path):
        return "pool"
    return "other"


class Apt:
    """Answers requests sent to a proxy (absolute `http://` targets) for one sandbox's network."""

    def __init__(
        self, client: httpx.AsyncClient, host_addresses: Callable[[], Collection[IpAddress]]
    ) -> None:
        self.client, self.host_addresses = client, host_addresses

    async def handle(
        self, request: Request, reply: Reply, allowlist: Allowlist | None, store: Store
    ) -> None:
        url = urlsplit(request.target)
        try:
            port = url.port or 80
        except ValueError:
            port = 0
        if url.scheme != "http" or not url.hostname or not 0 < port < 65536:
            await reply.whole(400, b"the package cache relays absolute http:// URLs only\n")
            return
        host = normal_host(url.hostname)
        refusal = await self._refusal(host, port, allowlist)
        if isinstance(refusal, str):
            note("apt", request.target, "refused")
            await reply.whole(403, f"assay package cache: {refusal}\n".encode())
            return
        path = (url.path or "/") + (f"?{url.query}" if url.query else "")
        target = Target(request.target, host, port, path, refusal)
        how = kind(url.path)
        if how in ("hash", "pool"):
            await self._kept(store, target, request, reply)
        elif how == "index":
            await self._index(store, target, request, reply)
        else:
            async with self._open(target, request) as response:
                await relay(response, reply, lambda _: note("apt", target.url, "passed"))

    async def _kept(self, store: Store, target: Target, request: Request, reply: Reply) -> None:
        key = target.key
        found = store.find(key)
        if found is not None:
            note("apt", target.url, "hit")
            await serve_file(reply, found, OCTETS, wanted=request.headers.get("range"))
            return
        expected = BY_HASH.search(target.path)

        def check(writer: Writer) -> bool:
            return expected is None or writer.sha256.hexdigest() == expected.group(1)

        def then(kept: bool) -> None:
            note("apt", target.url, "fetched" if kept else "passed")

        async with self._open(target, request) as response:
            await relay(response, reply, then, store, key, check)

    async def _index(self, store: Store, target: Target, request: Request, reply: Reply) -> None:
        key = target.key
        meta = store.find_json(f"{key}.meta")
        found = store.find(key) if meta is not None else None
        conditions = {}
        if found is not None and meta is not None:
            if meta.get("etag"):
                conditions["If-None-Match"] = meta["etag"]
            if meta.get("last-modified"):
                conditions["If-Modified-Since"] = meta["last-modified"]
        try:
            async with self._open(target, request, conditions) as response:
                if response.status_code == 304 and found is not None and meta is not None:
                    await self._from_cache(target, found, meta, request, reply, "revalidated")
                    return

                def then(kept: bool) -> None:
                    if kept:
                        validators = {
                            name: response.headers.get(name) for name in ("etag", "last-modified")
                        }
                        store.put(f"{key}.meta", json.dumps(validators).encode())
                    outcome = ("refreshed" if found else "fetched") if kept else "passed"
                    note("apt", target.url, outcome)

                await relay(response, reply, then, store, key)
        except httpx.HTTPError:
            if reply.started or found is None or meta is None:
                raise
            await self._from_cache(target, found, meta, request, reply, "stale")

    async def _from_cache(
        self,
        target: Target,
        found: Path,
        meta: dict[str, Any],
        request: Request,
        reply: Reply,
        outcome: str,
    ) -> None:
        note("apt", target.url, outcome)
        modified = meta.get("last-modified")
        if modified and request.headers.get("if-modified-since") == modified:
            await reply.start(304, [("Last-Modified", modified)])
            await reply.end()
            return
        extra = [("Last-Modified", modified)] if modified else []
        await serve_file(reply, found, "application/octet-stream", extra)

    def _open(
        self, target: Target, request: Request, extra: dict[str, str] | None = None
    ) -> AbstractAsyncContextManager[httpx.Response]:
        """The upstream request, sent to the address checked in `_refusal` (no second lookup a
        changed DNS answer could turn toward the host), with the client's Host."""
        address = target.address
        shown = f"[{address}]" if address.version == 6 else str(address)
        headers = {name: request.headers[name] for name in FORWARDED if name in request.headers}
        authority = target.host if target.port == 80 else f"{target.host}:{target.port}"
        headers.update({"Host": authority, "Accept-Encoding": "identity", **(extra or {})})
        url = f"http://{shown}:{target.port}{target.path}"
        return self.client.stream(request.method, url, headers=headers)

    async def _refusal(self, host: str, port: int, allowlist: Allowlist | None) -> str | IpAddress:
        """Why the proxy may not fetch from `host`, or the address it may fetch from."""
        if allowlist is not None and not allowlist.admits(host):
            return f"{host} is not one of the task's allowed hosts"
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as error:
            return f"{host} does not resolve: {error.strerror}"
        addresses = [ipaddress.ip_address(str(info[4][0]).partition("%")[0]) for info in infos]
        own = self.host_addresses()
        for address in addresses:
            what = forbidden(address, own)
            if what:
                return f"{host} resolves to {address}, {what}"
        return addresses[0]


class Target:
    """An upstream URL as the apt face fetches it: its host, port, path and checked address."""

    def __init__(self, url: str, host: str, port: int, path: str, address: IpAddress) -> None:
        self.url, self.host, self.port, self.path, self.address = url, host, port, path, address

    @property
    def key(self) -> str:
        digest = hashlib.sha256(f"{self.host}:{self.port}{self.path}".encode()).hexdigest()
        return f"apt/{digest[:2]}/{digest}"
