"""The world's clock: it starts at `clock` on every reset and moves only when the runtime moves it."""

from __future__ import annotations

from datetime import datetime, timedelta


class Clock:
    def __init__(self, start: datetime, step_s: float):
        self.start = start
        self.step = timedelta(seconds=step_s)
        self.ticks = 0

    def now(self) -> datetime:
        return self.start + self.step * self.ticks

    def advance(self) -> None:
        """One turn passes."""
        self.ticks += 1

    def stamp(self) -> str:
        return self.now().isoformat().replace("+00:00", "Z")
