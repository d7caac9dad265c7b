"""An HL7 v2 interface engine (`kind = "hl7"`): messages the agent sends are answered with an ACK
and kept in `sandbox_hl7_messages` (and a `hl7_outbound` event); seeded messages wait in the inbox.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from assay.errors import SpecError
from assay.formats.files import shown
from assay.world.services.base import Service, canonical
from assay.world.services.healthcare.events import EVENTS_TABLE, next_row_id, record_event
from assay.world.services.healthcare.hl7.acks import ack_message, answer_codes
from assay.world.services.healthcare.hl7.paths import normalise, read, segments
from assay.world.services.healthcare.hl7.tools import HL7_TOOLS
from assay.world.services.healthcare.hl7.verdicts import DEFAULT_ACCEPT, Verdict, judge

TABLE = """
CREATE TABLE IF NOT EXISTS sandbox_hl7_messages (
    id INTEGER PRIMARY KEY,
    service TEXT NOT NULL,
    direction TEXT NOT NULL,
    message_type TEXT,
    trigger_event TEXT,
    control_id TEXT,
    ack_code TEXT,
    turn INTEGER NOT NULL,
    raw TEXT NOT NULL
);
"""
INSERT_MESSAGE = (
    "INSERT INTO sandbox_hl7_messages (id, service, direction, message_type, trigger_event, "
    "control_id, ack_code, turn, raw) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
VALIDATE = ("parse", "strict")


class Hl7Interface(Service):
    kind = "hl7"
    surfaces = (("hl7_inbox", "hl7/inbox"), ("hl7_outbound", "hl7/outbound"))
    options_known = frozenset({"inbox", "version", "validate", "accept"})
    tables: ClassVar[dict[str, str]] = {"sqlite": TABLE + EVENTS_TABLE}
    tools = HL7_TOOLS

    @classmethod
    def seed_files(cls, root: Path, options: dict[str, Any]) -> list[Path]:
        return sorted({path for pattern in options.get("inbox", []) for path in root.glob(pattern)})

    @classmethod
    def seed(cls, db: Any, root: Path, name: str, options: dict[str, Any], file: str) -> None:
        _check_options(name, options, file)
        for path in cls.seed_files(root, options):
            raw = normalise(path.read_text(encoding="utf-8"))
            verdict = judge(raw, tuple(options.get("accept", DEFAULT_ACCEPT)), strict=False)
            if verdict.message_type is None:
                raise SpecError(shown(path), None, verdict.reasons[0])
            row = (name, "inbound", verdict.message_type, verdict.trigger_event)
            db.execute(
                INSERT_MESSAGE,
                next_row_id(db, "sandbox_hl7_messages"),
                *row,
                verdict.control_id,
                None,
                0,
                raw,
            )

    def __init__(self, name: str, options: dict[str, Any], world: Any):
        super().__init__(name, options, world)
        self.accept = tuple(options.get("accept", DEFAULT_ACCEPT))
        self.version = str(options.get("version", "2.5.1"))
        self.strict = options.get("validate", "parse") == "strict"
        self.acks = 0

    def handle(self, operation: str, payload: dict[str, Any]) -> dict[str, Any]:
        if operation == "inbox":
            return {"messages": self._inbox()}
        raw = normalise(str(payload["message"]))
        verdict = judge(raw, self.accept, self.strict)
        stamp = _hl7_time(self.world.clock.stamp())
        acks = [
            ack_message(raw, verdict, code, stamp, self._next_control_id(), self.version)
            for code in answer_codes(verdict)
        ]
        message_id = self._keep(raw, verdict)
        return {
            "ack": acks[-1] if acks else None,
            "acks": acks,
            "ack_code": verdict.ack_code,
            "commit_code": verdict.commit_code if verdict.enhanced else None,
            "control_id": verdict.control_id,
            "message_id": message_id,
            "message_type": verdict.message_type,
            "errors": verdict.reasons,
        }

    def _next_control_id(self) -> str:
        self.acks += 1
        return f"ACK{self.acks:05d}"

    def duplicate_key(self, operation: str, payload: dict[str, Any]) -> str:
        """The same message sent twice, whatever its times (MSH-7, EVN-2) and control id (MSH-10)."""
        if operation == "inbox":
            return canonical([operation, self.world.turn])
        raw = normalise(str(payload.get("message", "")))
        lines = [_without_stamps(line) for line in segments(raw)]
        return canonical([operation, read(raw, "MSH.9") if lines else None, lines])

    def _keep(self, raw: str, verdict: Verdict) -> int:
        db = self.world.db
        message_id = next_row_id(db, "sandbox_hl7_messages")
        db.execute(
            INSERT_MESSAGE,
            message_id,
            self.name,
            "outbound",
            verdict.message_type,
            verdict.trigger_event,
            verdict.control_id,
            verdict.ack_code,
            self.world.turn,
            raw,
        )
        record_event(
            self.world,
            self.name,
            "hl7_outbound",
            {
                "message_id": message_id,
                "message_type": verdict.message_type,
                "control_id": verdict.control_id,
                "ack_code": verdict.ack_code,
            },
        )
        return message_id

    def _inbox(self) -> list[dict[str, Any]]:
        rows = self.world.db.rows(
            "SELECT id, message_type, control_id, raw FROM sandbox_hl7_messages "
            "WHERE service = ? AND direction = 'inbound' ORDER BY id",
            self.name,
        )
        return [dict(row) for row in rows]


def _without_stamps(line: str) -> str:
    """A segment with its send time and control id blanked: MSH-7, MSH-10 and EVN-2."""
    blank = {"MSH": (6, 9), "EVN": (2,)}.get(
        line[:3], ()
    )  # MSH counted with MSH-1 as the separator
    separator = line[3] if len(line) > 3 else "|"
    fields = line.split(separator)
    for index in blank:
        if index < len(fields):
            fields[index] = ""
    return separator.join(fields)


def _hl7_time(stamp: str) -> str:
    """`2026-03-02T09:00:00Z` → `20260302090000` (HL7 DTM)."""
    digits = "".join(char for char in stamp if char.isdigit())
    return digits[:14]


def _check_options(name: str, options: dict[str, Any], file: str) -> None:
    if options.get("validate", "parse") not in VALIDATE:
        raise SpecError(file, f"services.{name}.validate", "must be parse or strict")
    accept = options.get("accept", DEFAULT_ACCEPT)
    if not isinstance(accept, list | tuple) or not all(
        isinstance(kind, str) and kind.count("^") == 1 for kind in accept
    ):
        raise SpecError(file, f"services.{name}.accept", 'must list message types like "ADT^A04"')
    inbox = options.get("inbox", [])
    if not isinstance(inbox, list) or not all(isinstance(item, str) for item in inbox):
        raise SpecError(file, f"services.{name}.inbox", "must be a list of file patterns")
