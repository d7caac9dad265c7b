"""Which service surfaces a benchmark run has, by the kinds of service its world holds."""

from __future__ import annotations

SERVICE_SURFACES = {"fhir": "fhir", "portal": "portal", "voice": "voice"}  # kind → path segment


def service_endpoints(run_id: str, kinds: set[str]) -> dict[str, str]:
    """The surfaces the run's world has, for the `endpoints` of a created run."""
    return {
        segment: f"/v1/benchmark-runs/{run_id}/{segment}"
        for kind, segment in SERVICE_SURFACES.items()
        if kind in kinds
    }
