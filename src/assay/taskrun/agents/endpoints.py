"""The model endpoints a sandboxed class agent may reach: those named with `--agent-endpoint`, each
host and port exactly, through a proxy on the agent's own loopback that admits nothing else."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from assay.errors import UsageError
from assay.settings import in_force
from assay.world.container.hostnet import NetworkFailed
from assay.world.container.network import Network, proxied
from assay.world.container.proxy import Allowlist, normal_host

# A JSON list of URLs: the agent's process is told them in it.
ENDPOINTS_ENV = "ASSAY_AGENT_ENDPOINTS"
DEFAULT_PORTS = {"http": 80, "https": 443}
LOOPBACK_WAIT_S = 10.0


class Endpoints(Allowlist):
    """host:port pairs, each admitted exactly, even on the host's loopback (the user named it)."""

    not_admitted = "is not one of the model endpoints named with --agent-endpoint"

    def __init__(self, urls: Sequence[str]) -> None:
        super().__init__([])
        self.urls = list(urls)
        self.pairs = {_host_port(url) for url in urls}

    def admits(self, host: str, port: int | None = None) -> bool:
        return (normal_host(host), port) in self.pairs

    def named(self, host: str, port: int) -> bool:
        return self.admits(host, port)


def check_endpoints(urls: Sequence[str]) -> None:
    """UsageError naming --agent-endpoint for a URL that names no host."""
    for url in urls:
        _host_port(url)


def chosen_endpoints() -> Endpoints | None:
    """The endpoints the run's settings name; None when they name none."""
    urls = in_force().agent_endpoints
    return Endpoints(urls) if urls else None


def attach(pid: int, endpoints: Endpoints) -> Network:
    """The admitting proxy in the network namespace of the agent's process `pid`; its variables
    (every address through the proxy: an endpoint may be on the host's loopback)."""
    try:
        _await_loopback(pid)
        network = proxied(pid, endpoints, bring_up=False)
    except NetworkFailed as error:
        raise UsageError(f"--agent-endpoint: the proxy did not start: {error}") from None
    network.env.update({"NO_PROXY": "", "no_proxy": "", ENDPOINTS_ENV: json.dumps(endpoints.urls)})
    return network


def _await_loopback(pid: int) -> None:
    """Wait until bwrap has brought up the loopback of the agent's namespace (it does so once
    the process exists): only then can the proxy listen there."""
    deadline = time.monotonic() + LOOPBACK_WAIT_S
    while time.monotonic() < deadline:
        try:
            if b"127.0.0.1" in Path(f"/proc/{pid}/net/fib_trie").read_bytes():
                return
        except OSError as error:
            raise NetworkFailed(f"the agent's sandbox ended: {error.strerror}") from None
        time.sleep(0.001)
    raise NetworkFailed(f"the loopback was not up after {LOOPBACK_WAIT_S:g} s")


def _host_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    try:
        port = parts.port or DEFAULT_PORTS.get(parts.scheme)
    except ValueError:
        port = None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname or port is None:
        raise UsageError(f"--agent-endpoint: {url!r} is not an http:// or https:// URL")
    return normal_host(parts.hostname), port
