"""`voice-transcript` checks: phrases a speaker said, and did not say, on the voice line
(docs/contracts/healthcare.md §6). Matching is deterministic: normalised whole phrases, or
rapidfuzz's partial ratio when asked."""

from __future__ import annotations

from typing import Any

from assay.formats.checks import VoiceTranscriptCheck
from assay.verify.check_run import CheckRun
from assay.verify.context import VerifyContext
from assay.verify.healthcare.rows import fetch_rows
from assay.world.services.healthcare.phrases import normalise, says

TURNS = "SELECT service, call_id, turn, speaker, text, id FROM sandbox_voice_turns ORDER BY id"


def run_voice_check(check: VoiceTranscriptCheck, context: VerifyContext) -> CheckRun:
    turns = fetch_rows(context, check, TURNS, "the voice turns", service=check.service)
    turns = _chosen(check, turns)
    items: list[dict[str, Any]] = []
    for phrase in check.contains:
        items.append(_found(phrase, [phrase], turns, check.fuzzy, forbidden=False))
    for group in check.any_of:
        items.append(_found(" | ".join(group), group, turns, check.fuzzy, forbidden=False))
    for phrase in check.not_contains:
        items.append(_found(phrase, [phrase], turns, check.fuzzy, forbidden=True))
    passed_items = [item for item in items if item["found"] != item.get("forbidden", False)]
    score = len(passed_items) / len(items)
    calls = len({turn["call_id"] for turn in turns})
    return CheckRun.of(
        check,
        passed=len(passed_items) == len(items),
        score=score,
        details=_details(check, items, passed_items, calls),
        evidence={"speaker": check.speaker, "calls": calls, "phrase_results": items},
    )


def compile_voice_check(check: VoiceTranscriptCheck) -> list[tuple[str, str]]:
    """What the model cannot see: a phrase of punctuation only (never heard, so a forbidden one
    always passes and a wanted one always fails) and an `any_of` group with no phrase."""
    problems = [
        (f"{field}[{index}]", f"{phrase!r} has no words to hear")
        for field, phrases in (("contains", check.contains), ("not_contains", check.not_contains))
        for index, phrase in enumerate(phrases)
        if not normalise(phrase)
    ]
    for index, group in enumerate(check.any_of):
        if not group:
            problems.append((f"any_of[{index}]", "a group needs at least one phrase"))
        problems.extend(
            (f"any_of[{index}][{inner}]", f"{phrase!r} has no words to hear")
            for inner, phrase in enumerate(group)
            if not normalise(phrase)
        )
    return problems


def _chosen(check: VoiceTranscriptCheck, turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    calls = list(dict.fromkeys(turn["call_id"] for turn in turns))
    if calls and check.call != "any":
        wanted = calls[0] if check.call == "first" else calls[-1]
        turns = [turn for turn in turns if turn["call_id"] == wanted]
    if check.speaker != "any":
        turns = [turn for turn in turns if turn["speaker"] == check.speaker]
    return turns


def _found(
    shown: str,
    phrases: list[str],
    turns: list[dict[str, Any]],
    fuzzy: int | None,
    *,
    forbidden: bool,
) -> dict[str, Any]:
    for turn in turns:
        if any(says(turn["text"], phrase, fuzzy) for phrase in phrases):
            item = {"phrase": shown, "found": True, "turn": turn["turn"]}
            break
    else:
        item = {"phrase": shown, "found": False, "turn": None}
    if forbidden:
        item["forbidden"] = True
    return item


def _details(
    check: VoiceTranscriptCheck,
    items: list[dict[str, Any]],
    passed: list[dict[str, Any]],
    calls: int,
) -> str:
    text = f"{check.speaker} turns of {calls} call(s): {len(passed)} of {len(items)} phrases passed"
    wrong = [item for item in items if item not in passed]
    wrong.sort(key=lambda item: not item.get("forbidden"))  # a forbidden phrase said comes first
    if wrong:
        shown = "; ".join(
            f"✗ said {item['phrase']!r} at turn {item['turn']}"
            if item.get("forbidden")
            else f"✗ never said {item['phrase']!r}"
            for item in wrong[:3]
        )
        text += f"; {shown}"
    return text
