"""Which service surfaces a benchmark run has, by the kinds of service its world holds."""

from __future__ import annotations

from typing import Any

# kind → (endpoint name, path below the run) for each surface
SERVICE_SURFACES = {
    "fhir": (("fhir", "fhir"),),
    "portal": (("portal", "portal"),),
    "voice": (("voice", "voice"),),
    "hl7": (("hl7_inbox", "hl7/inbox"), ("hl7_outbound", "hl7/outbound")),
    "files": (("files", "files"), ("files_inbox", "files/inbox")),
    "x12": (("x12", "x12"),),
}


def service_endpoints(run_id: str, kinds: set[str]) -> dict[str, str]:
    """The surfaces the run's world has, for the `endpoints` of a created run."""
    return {
        name: f"/v1/benchmark-runs/{run_id}/{path}"
        for kind, surfaces in SERVICE_SURFACES.items()
        if kind in kinds
        for name, path in surfaces
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
