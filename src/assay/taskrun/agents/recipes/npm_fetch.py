#!/usr/bin/env python3
"""Fetch one package from the npm registry and unpack it, its integrity checked: the install of an
agent that npm publishes as a native build per platform, in an image that has no Node.js.

Usage: npm_fetch.py NAME VERSION TARGET (NAME may be scoped: @scope/name).
"""

import base64
import hashlib
import json
import os
import sys
import tarfile
import tempfile
import urllib.parse
import urllib.request

REGISTRY = os.environ.get("NPM_CONFIG_REGISTRY", "https://registry.npmjs.org").rstrip("/")


def main():
    name, version, target = sys.argv[1:4]
    url = f"{REGISTRY}/{urllib.parse.quote(name, safe='@')}/{version}"
    with urllib.request.urlopen(url, timeout=60) as reply:
        dist = json.load(reply)["dist"]
    algorithm, _, expected = dist["integrity"].partition("-")
    digest = hashlib.new(algorithm)
    with tempfile.TemporaryFile() as packed:
        with urllib.request.urlopen(dist["tarball"], timeout=600) as reply:
            while block := reply.read(1 << 20):
                digest.update(block)
                packed.write(block)
        if base64.b64encode(digest.digest()).decode() != expected:
            sys.exit(
                f"{name}@{version}: the tarball does not match its integrity {dist['integrity']}"
            )
        packed.seek(0)
        os.makedirs(target, exist_ok=True)
        with tarfile.open(fileobj=packed, mode="r:gz") as archive:
            members = [m for m in archive.getmembers() if m.name.startswith("package/")]
            for member in members:
                member.name = member.name.removeprefix("package/")
            for member in members:  # Python before 3.11.4 has no extraction filter
                if member.name.startswith("/") or ".." in member.name.split("/"):
                    sys.exit(f"{name}@{version}: {member.name} is outside the package")
            archive.extractall(target, members=members)
    print(f"{name}@{version} unpacked into {target}")


if __name__ == "__main__":
    main()
