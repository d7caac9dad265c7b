"""The front desk's own tool; `send_sms` comes with the sms service kind."""

from __future__ import annotations

from assay import ToolError, tool


@tool
def find_appointment(world, appointment_id: str) -> dict:
    """Look up an appointment: the patient, their phone number and when it starts."""
    found = world.db.row("SELECT * FROM appointments WHERE id = ?", appointment_id)
    if found is None:
        raise ToolError("not_found", f"no appointment {appointment_id}")
    return found
