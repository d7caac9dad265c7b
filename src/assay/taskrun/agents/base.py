"""The agent interface: one action for each observation."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from assay.taskrun.observation import Observation


@runtime_checkable
class Agent(Protocol):
    def act(self, observation: Observation) -> Any:
        """Return an action: a typed Call/Say/Finish or its JSON form."""
        ...
