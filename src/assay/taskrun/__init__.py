"""The loop: observation → agent action → effect; customer, changes, holds, faults.

Names are imported on first use, so that a process needing one module of the package (an agent's
own process) does not pay for the whole of it.
"""

from __future__ import annotations

from assay.lazy import lazy_names

_EXPORTS = {
    "assay.taskrun.actions": [
        "Call",
        "Finish",
        "InvalidAction",
        "Say",
        "ToolCall",
        "call",
        "finish",
        "parse_action",
        "say",
    ],
    "assay.taskrun.agents": ["Agent", "agent_factory", "check_agent_for"],
    "assay.taskrun.loop": ["drive"],
    "assay.taskrun.observation": ["Event", "Observation"],
    "assay.taskrun.rollout": ["Rollout", "RunError", "Termination"],
    "assay.taskrun.session": ["Session", "SessionOver"],
}
__all__, __getattr__ = lazy_names(__name__, _EXPORTS)
