"""What the host's own network is: its addresses, default gateways and nameservers, which a
sandbox's network must never reach (or must reach, for DNS), read with `ip` and resolv.conf."""

from __future__ import annotations

import ipaddress
import json
import subprocess
import time
from pathlib import Path

from assay.world.container.proxy import IpAddress

RESOLV_CONF = Path("/etc/resolv.conf")
# Where systemd-resolved lists its upstream servers when /etc/resolv.conf names only 127.0.0.53.
RESOLVED_UPSTREAM = Path("/run/systemd/resolve/resolv.conf")
HOST_FACTS_S = 5.0


class NetworkFailed(Exception):
    """The network a task asks for could not be given; str() is one line."""


_facts: tuple[float, set[IpAddress], set[IpAddress]] | None = None


def host_facts() -> tuple[set[IpAddress], set[IpAddress]]:
    """The host's addresses and gateways, read again after HOST_FACTS_S: each task run starts
    two sandboxes, and the host's interfaces do not change between them."""
    global _facts
    now = time.monotonic()
    if _facts is None or now - _facts[0] > HOST_FACTS_S:
        _facts = (now, host_addresses(), _host_gateways())
    return set(_facts[1]), set(_facts[2])


def host_addresses() -> set[IpAddress]:
    """Every address on every interface of the host's network namespace (assay's own)."""
    return _addresses(run_command(["ip", "-j", "address", "show"]))


def _addresses(ip_json: str) -> set[IpAddress]:
    found = set()
    for link in json.loads(ip_json or "[]"):
        for info in link.get("addr_info", []):
            found.add(ipaddress.ip_address(info["local"].partition("%")[0]))
    return found


def resolvers() -> list[IpAddress]:
    """The host's nameservers; systemd-resolved's upstream servers when it is the only one named."""
    found = _nameservers(RESOLV_CONF)
    if found and all(address.is_loopback for address in found):
        found = _nameservers(RESOLVED_UPSTREAM) or found
    return found


def _nameservers(path: Path) -> list[IpAddress]:
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        words = line.split()
        if len(words) >= 2 and words[0] == "nameserver":
            try:
                found.append(ipaddress.ip_address(words[1].partition("%")[0]))
            except ValueError:
                continue
    return found


def _host_gateways() -> set[IpAddress]:
    """The host's default gateways (pasta gives the namespace the same)."""
    found = set()
    for family in ("-4", "-6"):
        listed = run_command(["ip", family, "-j", "route", "show", "default"])
        for route in json.loads(listed or "[]"):
            if route.get("gateway"):
                found.add(ipaddress.ip_address(route["gateway"].partition("%")[0]))
    return found


def run_command(argv: list[str], stdin: str | None = None) -> str:
    try:
        done = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise NetworkFailed(f"{' '.join(argv[:4])}: {error}") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if not line.startswith("Command failed")]
        line = next((line.strip() for line in lines if line.strip()), "failed")
        raise NetworkFailed(f"{' '.join(argv[:4])}: {line}")
    return done.stdout
