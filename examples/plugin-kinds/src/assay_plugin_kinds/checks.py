"""The check kind `sms-sent`: a text went to a number and says what it should.

The model names its runner (`run_sms_sent_check`, below) and the service kind it reads, so
`assay validate` refuses a task using it in a world without an sms service.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from assay import CheckBase, CheckRun


class SmsSentCheck(CheckBase):
    """`to` received a text (sent, not refused) holding every phrase of `contains`."""

    kind: Literal["sms-sent"] = Field(alias="assert")
    runner: ClassVar[str] = "assay_plugin_kinds.checks:run_sms_sent_check"
    reads_service: ClassVar[str | None] = "sms"
    to: str = Field(pattern=r"^\+\d{7,15}$")
    contains: list[str] = Field(default_factory=list)
    service: str | None = None  # the sms service's name, where the world has more than one


def run_sms_sent_check(check: SmsSentCheck, context: Any) -> CheckRun:
    """Passes when one text the service queued went to `check.to` and holds every phrase."""
    sent = [
        request["payload"]
        for request in context.final.requests(check.service)
        if request["operation"] == "send" and request["status"] == "ok"
    ]
    to_number = [text for text in sent if text.get("to") == check.to]
    wanted = [phrase.casefold() for phrase in check.contains]
    matching = [
        text for text in to_number if all(p in str(text.get("text", "")).casefold() for p in wanted)
    ]
    details = (
        f"{len(matching)} of {len(to_number)} texts to {check.to} hold every phrase"
        if to_number
        else f"no text went to {check.to} ({len(sent)} sent to other numbers)"
    )
    return CheckRun.of(
        check,
        passed=bool(matching),
        score=1.0 if matching else 0.0,
        details=details,
        evidence={"texts": to_number},
    )
