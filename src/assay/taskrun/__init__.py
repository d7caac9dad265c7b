"""The loop: observation → agent action → effect; customer, changes, holds, faults.

Names are imported on first use, so that a process needing one module of the package (an agent's
own process) does not pay for the whole of it.
"""

from __future__ import annotations

import importlib
from typing import Any

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
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
