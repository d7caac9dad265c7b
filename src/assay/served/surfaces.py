"""Which service surfaces and listeners a benchmark run has, by the services its world holds."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assay.world.services.base import Service


def service_endpoints(run_id: str, services: Iterable[type[Service]]) -> dict[str, str]:
    """The surfaces of the run's world's services (each kind's `surfaces`), for the `endpoints`
    of a created run."""
    return {
        name: f"/v1/benchmark-runs/{run_id}/{path}"
        for service in services
        for name, path in service.surfaces
    }


def listener_endpoints(context: Any, run_id: str, kinds: set[str]) -> dict[str, str]:
    """The protocol listeners the run may use, when served: SFTP for a world with files, and the
    run's own MLLP listener (opened now) for a world with an HL7 interface."""
    found = {}
    if "files" in kinds and context.sftp_url is not None:
        found["sftp"] = context.sftp_url
    if "hl7" in kinds and context.mllp is not None:
        found["hl7_mllp"] = context.mllp.open(run_id)
    return found
