"""An X12 clearinghouse (`kind = "x12"`): 270 → 271 eligibility, 276 → 277 claim status and
837 → 999 + 277CA, answered from the world's CSVs; a TA1 when ISA14 asks for one or the
interchange envelope is broken, a 999 rejection when a 270/276's group or set envelope is."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from assay.errors import EnvironmentFailure, ServiceError
from assay.world.services.base import Service
from assay.world.services.healthcare.events import EVENTS_TABLE
from assay.world.services.healthcare.x12 import ack, build, envelope, summary
from assay.world.services.healthcare.x12.acceptance import acceptance_body, read_batch
from assay.world.services.healthcare.x12.data import Book, load_book
from assay.world.services.healthcare.x12.eligibility import Rejection, eligibility_body
from assay.world.services.healthcare.x12.paths import BadX12, Interchange, parse, read
from assay.world.services.healthcare.x12.records import TABLE, keep
from assay.world.services.healthcare.x12.status import status_body
from assay.world.services.healthcare.x12.tools import X12_TOOLS

VERSIONS = {"270": "005010X279A1", "271": "005010X279A1", "276": "005010X212", "277": "005010X212"}
FUNCTIONAL = {"270": "HS", "271": "HB", "276": "HR", "277": "HN"}


class Clearinghouse(Service):
    kind = "x12"
    surfaces = (("x12", "x12"),)
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
        load_book(root, name, options, file)  # proved now: a bad row is a SpecError

    def __init__(self, name: str, options: dict[str, Any], world: Any):
        super().__init__(name, options, world)
        self.book: Book = load_book(world.world.root, name, options, "world.toml")
        self.sender = str(options.get("sender", "GENHOSP"))
        self.receiver = str(options.get("receiver", "CLEARINGHOUSE"))
        self.control = 0

    def handle(self, operation: str, payload: dict[str, Any]) -> dict[str, Any]:
        if operation == "eligibility":
            return self._inquiry(payload, "270", summary.from_270, self._eligibility)
        if operation == "claim_status":
            return self._inquiry(payload, "276", summary.from_276, self._claim_status)
        return self._submit(str(payload.get("raw") or ""))

    def _envelope(self, outbound: bool) -> build.Envelope:
        self.control += 1
        sender, receiver = (
            (self.sender, self.receiver) if outbound else (self.receiver, self.sender)
        )
        return build.Envelope(sender, receiver, self.control, self.world.clock.now())

    def _inquiry(self, payload: dict[str, Any], asked_set: str, reader, answerer) -> dict[str, Any]:
        """A 270 or 276, raw or from fields: refused at the envelope (TA1 or 999) or answered."""
        raw = payload.get("raw")
        if not raw:
            raw, ask = self._from_fields(asked_set, _asked(payload))
            return self._answered(asked_set, raw, ask, None, answerer)
        document = _parsed(raw, asked_set)
        refused = self._refused(asked_set, str(raw), document, check_sets=True)
        if refused is not None:
            return refused
        return self._answered(asked_set, str(raw), reader(document), document, answerer)

    def _from_fields(self, asked_set: str, ask: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The 270/276 the tool's fields make, and what it asks (its trace, as its reader would)."""
        member = self.book.members.get(ask.get("member_id") or "")
        if member is not None:  # the practice's record names the member in the request
            ask.update(last=member["last"], first=member["first"])
        trace = f"{asked_set}-{self.control + 1:09d}"
        body = {"270": summary.body_270, "276": summary.body_276}[asked_set](ask, trace)
        ask.update(trace=trace, reference=trace)
        if asked_set == "276" and ask.get("claim_id"):
            ask["patient_control_number"] = ask["claim_id"]  # body_276 sends it as REF*EJ
        if asked_set == "270":
            ask["subscriber_traces"] = [["TRN", "1", trace, summary.TRACE_ORIGINATOR]]
        functional, version = FUNCTIONAL[asked_set], VERSIONS[asked_set]
        return build.interchange(self._envelope(True), functional, version, body), ask

    def _answered(self, asked_set, raw, ask, document, answerer) -> dict[str, Any]:
        answer_set, answer = answerer(ask)
        parsed = (summary.of_271 if answer_set == "271" else summary.of_277)(parse(answer))
        result = self._pair(asked_set, raw, ask, answer_set, answer, parsed)
        return self._with_ta1(result, document)

    def _eligibility(self, ask: dict[str, Any]) -> tuple[str, str]:
        payer = self.book.payers.get(ask.get("payer_id") or "")
        member = self.book.members.get(ask.get("member_id") or "")
        rejection = None
        if payer is None:  # X279A1 2100A AAA03 79: invalid participant identification
            rejection = Rejection("2100A", "N", "79")
        elif member is None or member["payer_id"] != payer["payer_id"]:
            rejection, member = Rejection("2100C", "Y", "75"), None  # subscriber not found
        elif ask.get("dob") and ask["dob"].replace("-", "") != member["dob"].replace("-", ""):
            rejection = Rejection("2100C", "Y", "71")  # date of birth does not match
        envelope_out = self._envelope(False)
        body = eligibility_body(ask, payer, member, rejection, envelope_out.now)
        answer = build.interchange(envelope_out, FUNCTIONAL["271"], VERSIONS["271"], body)
        at_payer = rejection is not None and rejection.loop == "2100A"
        if at_payer or not any(seg.startswith("AAA*") for seg in body):
            _checked_271(answer)  # x12sdk's 2100C/2100D AAA codes are narrower than the guide's
        return "271", answer

    def _claim_status(self, ask: dict[str, Any]) -> tuple[str, str]:
        claim = self._claim(ask)
        member = self.book.members.get(claim["member_id"] if claim else ask.get("member_id") or "")
        payer = self.book.payers.get(ask.get("payer_id") or "")
        envelope_out = self._envelope(False)
        body = status_body(ask, payer, claim, member, envelope_out.now)
        return "277", build.interchange(envelope_out, FUNCTIONAL["277"], VERSIONS["277"], body)

    def _claim(self, ask: dict[str, Any]) -> dict[str, str] | None:
        """The claim named by the payer claim number (REF*1K), the patient control number
        (REF*EJ), the claim id given as a field, or the trace (TRN02), of the member asked for."""
        for key in ("payer_claim_number", "patient_control_number", "claim_id", "trace"):
            claim = self.book.claims.get(ask.get(key) or "")
            if claim is None:
                continue
            if ask.get("member_id") and claim["member_id"] != ask["member_id"]:
                return None  # a claim is found only for its own member
            return claim
        return None

    def _submit(self, raw: str) -> dict[str, Any]:
        from assay.world.services.healthcare.x12.validate import validate

        document = _parsed(raw, "837")
        batch = read_batch(document)
        asked = {"claims": [claim.claim_id for claim in batch.claims]}
        refused = self._refused("837", raw, document, check_sets=False)
        if refused is not None:
            reason = refused["parsed"].get("reason")
            return {**refused, "raw_277ca": None, "accepted": False, "errors": [reason]}
        checked = validate(raw)
        if checked.ack:
            body = ack.body_from_pyx12(checked)
        else:  # pyx12 could not read it: no map for its group
            body = ack.body_unsupported(envelope.groups(document))
        ack_raw = build.interchange(self._envelope(False), "FA", "005010X231A1", body)
        accepted = summary.of_999(parse(ack_raw))["accepted"]
        parsed = {"accepted": accepted, "claims": len(batch.claims), "errors": checked.errors}
        answer = self._pair("837", raw, {**asked, "valid": checked.valid}, "999", ack_raw, parsed)
        receipt = None
        if accepted:  # a rejected transaction set goes no further than its 999
            receipt_envelope = self._envelope(False)
            body = acceptance_body(
                batch, self.receiver, receipt_envelope.now, f"277CA-{receipt_envelope.control:09d}"
            )
            receipt = build.interchange(receipt_envelope, "HN", "005010X214", body)
            keep(self.world, self.name, "277", receipt, asked, answer["pair_id"])
        answer = self._with_ta1(answer, document)
        return {**answer, "raw_277ca": receipt, "accepted": accepted, "errors": checked.errors}

    def _refused(
        self, asked_set: str, raw: str, document: Interchange, check_sets: bool
    ) -> dict[str, Any] | None:
        """A TA1 rejecting a broken interchange envelope, or (`check_sets`) a 999 rejecting a
        broken group or set envelope; None when the envelope is sound."""
        isa = envelope.received(document)
        if isa.error is not None:
            ta1 = build.ta1_interchange(self._envelope(False), isa.quoted(), isa.error)
            parsed = {"accepted": False, "code": isa.error, "reason": envelope.TA1_NOTES[isa.error]}
            return self._pair(asked_set, raw, {"interchange": isa.error}, "TA1", ta1, parsed)
        groups = envelope.groups(document)
        if not check_sets or not ack.rejects(groups):
            return None
        ack_raw = build.interchange(
            self._envelope(False), "FA", "005010X231A1", ack.body_from_groups(groups)
        )
        result = self._pair(asked_set, raw, {}, "999", ack_raw, summary.of_999(parse(ack_raw)))
        return self._with_ta1(result, document)

    def _with_ta1(self, result: dict[str, Any], document: Interchange | None) -> dict[str, Any]:
        """The answer, with `raw_ta1` (TA1 accepted, 000) when the request's ISA14 asked."""
        if document is None or not envelope.received(document).ta1_requested:
            return result
        isa = envelope.received(document)
        ta1 = build.ta1_interchange(self._envelope(False), isa.quoted(), "000")
        keep(
            self.world, self.name, "TA1", ta1, {"accepted": True, "code": "000"}, result["pair_id"]
        )
        return {**result, "raw_ta1": ta1}

    def _pair(self, asked_set, asked_raw, asked, answer_set, answer_raw, parsed) -> dict[str, Any]:
        pair_id = keep(self.world, self.name, asked_set, asked_raw, asked, None)
        keep(self.world, self.name, answer_set, answer_raw, parsed, pair_id)
        return {
            "transaction_set": answer_set,
            "raw": answer_raw,
            "parsed": parsed,
            "pair_id": pair_id,
        }


def _asked(payload: dict[str, Any]) -> dict[str, Any]:
    return {
        key: str(value)
        for key, value in payload.items()
        if value not in (None, "") and key != "raw"
    }


def _parsed(raw: Any, wanted: str) -> Interchange:
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
