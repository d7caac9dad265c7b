"""An X12 clearinghouse (`kind = "x12"`): 270 → 271 eligibility, 276 → 277 claim status and
837 → 999 + 277CA, answered from the world's CSVs. Both sides of each pair are rows of
`sandbox_x12_records` (and `x12_request` / `x12_response` events)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from assay.errors import EnvironmentFailure, ServiceError
from assay.world.services.base import Service, canonical
from assay.world.services.healthcare.events import (
    EVENTS_TABLE,
    next_row_id,
    record_event,
)
from assay.world.services.healthcare.x12 import build, summary
from assay.world.services.healthcare.x12.data import Book, load_book
from assay.world.services.healthcare.x12.paths import BadX12, parse, read
from assay.world.services.healthcare.x12.tools import X12_TOOLS

TABLE = """
CREATE TABLE IF NOT EXISTS sandbox_x12_records (
    id INTEGER PRIMARY KEY,
    service TEXT NOT NULL,
    transaction_set TEXT NOT NULL,
    direction TEXT NOT NULL,
    control_number TEXT,
    pair_id INTEGER,
    turn INTEGER NOT NULL,
    raw TEXT NOT NULL,
    parsed TEXT NOT NULL
);
"""
INSERT = (
    "INSERT INTO sandbox_x12_records (id, service, transaction_set, direction, control_number, "
    "pair_id, turn, raw, parsed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
VERSIONS = {"270": "005010X279A1", "271": "005010X279A1", "276": "005010X212", "277": "005010X212"}


class Clearinghouse(Service):
    kind = "x12"
    options_known = frozenset({"payers", "members", "claims", "sender", "receiver"})
    tables: ClassVar[dict[str, str]] = {"sqlite": TABLE + EVENTS_TABLE}
    tools = X12_TOOLS

    @classmethod
    def seed_files(cls, root: Path, options: dict[str, Any]) -> list[Path]:
        return [
            root / str(options[name]) for name in ("payers", "members", "claims") if name in options
        ]

    @classmethod
    def seed(cls, db: Any, root: Path, name: str, options: dict[str, Any], file: str) -> None:
        load_book(
            root, name, options, file
        )  # proved now: a bad row is a SpecError, never a bad answer

    def __init__(self, name: str, options: dict[str, Any], world: Any):
        super().__init__(name, options, world)
        self.book: Book = load_book(world.world.root, name, options, "world.toml")
        self.sender = str(options.get("sender", "GENHOSP"))
        self.receiver = str(options.get("receiver", "CLEARINGHOUSE"))
        self.control = 0

    def handle(self, operation: str, payload: dict[str, Any]) -> dict[str, Any]:
        if operation == "eligibility":
            return self._eligibility(payload)
        if operation == "claim_status":
            return self._claim_status(payload)
        return self._submit(str(payload.get("raw") or ""))

    def _envelope(self, outbound: bool) -> build.Envelope:
        self.control += 1
        sender, receiver = (
            (self.sender, self.receiver) if outbound else (self.receiver, self.sender)
        )
        return build.Envelope(sender, receiver, self.control, self.world.clock.now())

    def _eligibility(self, payload: dict[str, Any]) -> dict[str, Any]:
        raw = payload.get("raw")
        ask = summary.from_270(_parsed(raw, "270")) if raw else _asked(payload)
        if not raw:
            raw = build.interchange(
                self._envelope(True), "HS", VERSIONS["270"], summary.body_270(ask)
            )
        payer = self.book.payers.get(ask.get("payer_id") or "")
        member = self.book.members.get(ask.get("member_id") or "")
        problem = None
        if payer is None:
            problem = "42"  # unable to respond now: the payer is not on this clearinghouse
        elif member is None or member["payer_id"] != payer["payer_id"]:
            problem = "75"  # subscriber not found
        elif ask.get("dob") and ask["dob"].replace("-", "") != member["dob"].replace("-", ""):
            problem = "71"  # date of birth does not match
        envelope = self._envelope(False)
        trace = f"TRN270-{envelope.control:04d}"
        body = build.eligibility_body(ask, payer, member, problem, envelope.now, trace)
        answer = build.interchange(envelope, "HB", VERSIONS["271"], body)
        if problem is None:  # x12sdk's 2100C AAA codes are narrower than the guide's (71, 72, 75)
            _checked_271(answer)
        return self._pair("270", raw, ask, "271", answer, summary.of_271(parse(answer)))

    def _claim_status(self, payload: dict[str, Any]) -> dict[str, Any]:
        raw = payload.get("raw")
        ask = summary.from_276(_parsed(raw, "276")) if raw else _asked(payload)
        if not raw:
            raw = build.interchange(
                self._envelope(True), "HR", VERSIONS["276"], summary.body_276(ask)
            )
        claim = self.book.claims.get(ask.get("claim_id") or "")
        if claim is not None and ask.get("member_id") and claim["member_id"] != ask["member_id"]:
            claim = None  # a claim is found only for its own member
        envelope = self._envelope(False)
        body = build.status_body(ask, claim, envelope.now, f"TRN276-{envelope.control:04d}")
        answer = build.interchange(envelope, "HN", VERSIONS["277"], body)
        return self._pair("276", raw, ask, "277", answer, summary.of_277(parse(answer)))

    def _submit(self, raw: str) -> dict[str, Any]:
        from assay.world.services.healthcare.x12.validate import validate

        document = _parsed(raw, "837")
        checked = validate(raw)
        claims = [
            (str(seg[1]), str(seg[2]) if len(seg) > 2 else "")
            for seg in document.segments
            if seg[0] == "CLM"
        ]
        ack_body = summary.body_999(document, checked)
        ack = build.interchange(self._envelope(False), "FA", "005010X231A1", ack_body)
        receipt = build.interchange(
            self._envelope(False),
            "HN",
            "005010X214",
            build.acceptance_body(claims, checked.valid, self.world.clock.now()),
        )
        asked = {"claims": [claim for claim, _ in claims], "valid": checked.valid}
        answer = self._pair(
            "837",
            raw,
            asked,
            "999",
            ack,
            {"accepted": checked.valid, "claims": len(claims), "errors": checked.errors},
        )
        pair_id = answer["pair_id"]
        self._keep("277", "response", receipt, {"claims": asked["claims"]}, pair_id)
        return {**answer, "raw_277ca": receipt, "accepted": checked.valid, "errors": checked.errors}

    def _pair(
        self,
        asked_set: str,
        asked_raw: str,
        asked: dict[str, Any],
        answer_set: str,
        answer_raw: str,
        parsed: dict[str, Any],
    ) -> dict[str, Any]:
        pair_id = self._keep(asked_set, "request", asked_raw, asked, None)
        self._keep(answer_set, "response", answer_raw, parsed, pair_id)
        return {
            "transaction_set": answer_set,
            "raw": answer_raw,
            "parsed": parsed,
            "pair_id": pair_id,
        }

    def _keep(
        self,
        transaction_set: str,
        direction: str,
        raw: str,
        parsed: dict[str, Any],
        pair: int | None,
    ) -> int:
        db = self.world.db
        row_id = next_row_id(db, "sandbox_x12_records")
        try:
            control = read(parse(raw), "ISA.13")
        except BadX12:
            control = None
        db.execute(
            INSERT,
            row_id,
            self.name,
            transaction_set,
            direction,
            control,
            pair if pair is not None else row_id,
            self.world.turn,
            raw,
            canonical(parsed),
        )
        kind = "x12_request" if direction == "request" else "x12_response"
        record_event(
            self.world,
            self.name,
            kind,
            {
                "record_id": row_id,
                "transaction_set": transaction_set,
                "control_number": control,
                "pair_id": pair if pair is not None else row_id,
            },
        )
        return row_id


def _asked(payload: dict[str, Any]) -> dict[str, str]:
    return {
        key: str(value)
        for key, value in payload.items()
        if value not in (None, "") and key != "raw"
    }


def _parsed(raw: Any, wanted: str) -> Any:
    try:
        document = parse(str(raw))
    except BadX12 as error:
        raise ServiceError("bad_x12", f"the {wanted} could not be read: {error}") from None
    found = read(document, "ST.01")
    if found != wanted:
        raise ServiceError("bad_x12", f"expected a {wanted} transaction set, got {found or 'none'}")
    return document


def _checked_271(answer: str) -> None:
    """Parse the 271 back with the typed 5010 models: a template bug fails loudly."""
    try:
        from x12sdk.io import X12ModelReader
    except ImportError:  # the typed models are optional; the tokenizer has read it already
        return
    try:
        with X12ModelReader(answer) as reader:
            next(iter(reader.models()))
    except Exception as error:
        if "service_type_code" in str(error):  # the asker's code, copied into EB03: their error
            message = "the service type is not an X12 service type code"
            raise ServiceError("bad_request", message) from None
        raise EnvironmentFailure(
            f"the clearinghouse built a 271 its models reject: {error}"
        ) from error
