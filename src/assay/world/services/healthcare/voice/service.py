"""A scripted phone line: a greeting, a menu by digits or words, replies by keywords. Every turn,
the agent's and the line's, is a row of `sandbox_voice_turns`; nothing is random."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from assay.errors import ServiceError
from assay.world.services.base import Service
from assay.world.services.healthcare.phrases import says
from assay.world.services.healthcare.voice.script import check_script
from assay.world.services.healthcare.voice.tools import VOICE_TOOLS

TABLE = """
CREATE TABLE IF NOT EXISTS sandbox_voice_turns (
    id INTEGER PRIMARY KEY,
    service TEXT NOT NULL,
    call_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    speaker TEXT NOT NULL,
    text TEXT NOT NULL,
    dtmf TEXT,
    at TEXT NOT NULL
);
"""
INSERT_TURN = (
    "INSERT INTO sandbox_voice_turns (service, call_id, turn, speaker, text, dtmf, at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)


class VoiceLine(Service):
    kind = "voice"
    surfaces = (("voice", "voice"),)
    options_known = frozenset(
        {"number", "greeting", "menu", "replies", "default_reply", "persona", "hangup_on"}
    )
    tables: ClassVar[dict[str, str]] = {"sqlite": TABLE}
    tools = VOICE_TOOLS

    @classmethod
    def seed(cls, db: Any, root: Path, name: str, options: dict[str, Any], file: str) -> None:
        """Nothing to fill: the script is proved when the world is built."""
        check_script(name, options, file)

    def __init__(self, name: str, options: dict[str, Any], world: Any):
        super().__init__(name, options, world)
        self.calls: dict[str, bool] = {}  # call id → still connected
        self.spoken = 0  # the agent's turns so far: each its own request, never a duplicate

    def handle(self, operation: str, payload: dict[str, Any]) -> dict[str, Any]:
        if operation == "call":
            return self._call(str(payload["number"]))
        call_id = str(payload["call_id"])
        if call_id not in self.calls:
            raise ServiceError("no_call", f"there is no call {call_id}")
        if not self.calls[call_id]:
            raise ServiceError("call_ended", f"call {call_id} has ended")
        if operation == "hangup":
            self.calls[call_id] = False
            return {"call_id": call_id, "ended": True}
        if operation == "press":
            digits = str(payload["digits"])
            self._turn(call_id, "agent", "", digits)
            return self._answer(call_id, self._by_digits(digits))
        text = str(payload["text"])
        self._turn(call_id, "agent", text, None)
        farewell = _matched(self.options.get("hangup_on", []), text)
        if farewell is not None:  # the line hangs up after saying its last words
            self.calls[call_id] = False
            return {**self._answer(call_id, farewell), "ended": True}
        return self._answer(call_id, self._by_words(text))

    def duplicate_key(self, operation: str, payload: dict[str, Any]) -> str:
        # a conversation repeats itself on purpose: only a second call to the line is a duplicate
        # (a counter, never id(): an address is reused once its payload is freed)
        if operation == "call":
            return super().duplicate_key(operation, payload)
        self.spoken += 1
        return f"{operation}#{self.spoken}"

    def _call(self, number: str) -> dict[str, Any]:
        if number != str(self.options.get("number", number)):
            raise ServiceError("no_answer", f"nobody answers at {number}")
        lines = [line for line in self.world.services.values() if isinstance(line, VoiceLine)]
        call_id = f"call-{1 + sum(len(line.calls) for line in lines):04d}"  # unique across lines
        self.calls[call_id] = True
        return self._answer(call_id, str(self.options.get("greeting", "Hello.")))

    def _answer(self, call_id: str, text: str) -> dict[str, Any]:
        self._turn(call_id, "caller", text, None)
        return {"call_id": call_id, "say": text}

    def _turn(self, call_id: str, speaker: str, text: str, dtmf: str | None) -> None:
        world = self.world
        world.db.execute(
            INSERT_TURN, self.name, call_id, world.turn, speaker, text, dtmf, world.clock.stamp()
        )

    def _by_digits(self, digits: str) -> str:
        for entry in self.options.get("menu", []):
            if str(entry.get("dtmf", "")) == digits:
                return str(entry["say"])
        return self._default()

    def _by_words(self, text: str) -> str:
        entries = [*self.options.get("menu", []), *self.options.get("replies", [])]
        reply = _matched(entries, text)
        return self._default() if reply is None else reply

    def _default(self) -> str:
        return str(self.options.get("default_reply", "Sorry, I didn't get that."))


def _matched(entries: list[dict[str, Any]], text: str) -> str | None:
    """The `say` of the first entry one of whose `match` phrases the text says, if any."""
    for entry in entries:
        match = entry.get("match", [])
        keywords = [match] if isinstance(match, str) else match
        if any(says(text, keyword) for keyword in keywords):
            return str(entry.get("say", "Goodbye."))
    return None
