"""A service that accepts any operation and only records it."""

from __future__ import annotations

from assay.world.services.base import Service
from assay.world.services.kinds import service_kind


@service_kind
class Recorder(Service):
    kind = "recorder"
    options_known = frozenset()
