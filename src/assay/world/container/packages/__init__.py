"""A package cache on the host for sandboxes: apt through a caching HTTP proxy, pip and uv
through a pull-through PyPI index, both reached on the sandbox's own loopback. Only the host writes
it, from what upstream served and its hashes allow, so nothing a sandbox does can plant a file in it
(docs/container-tasks.md, "Package cache")."""

from assay.world.container.packages.relay import Event, recorded
from assay.world.container.packages.server import Offer, cache_server
from assay.world.container.packages.store import packages_dir

__all__ = ["Event", "Offer", "cache_server", "packages_dir", "recorded"]
