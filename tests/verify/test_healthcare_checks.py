"""The portal-state-match and voice-transcript checks at their edges, over fixed rows: selection,
items, evidence and details; fuzzy thresholds, any_of groups, forbidden phrases; static proof."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from assay.formats.checks import PortalStateMatchCheck, VoiceTranscriptCheck
from assay.verify.healthcare.portal import compile_portal_check, run_portal_check
from assay.verify.healthcare.voice import compile_voice_check, run_voice_check


class Rows:
    """A final state holding fixed rows; `fetch` filters portal rows by the asked resource."""

    def __init__(self, names, rows):
        self.names, self.rows = names, rows

    def fetch(self, sql, params):
        rows = self.rows
        if "resource" in params:
            rows = [row for row in rows if row[1] == params["resource"]]
        return self.names, rows


PORTAL_NAMES = ["service", "resource", "key", "data", "version", "updated_turn"]


def portal_row(key, data, *, resource="prior_auth", version=1, turn=0, service="payer_portal"):
    return (service, resource, key, json.dumps(data), version, turn)


PORTAL = [
    portal_row("W1", {"member_id": "W1", "plan": "GOLD PPO"}, resource="patients"),
    portal_row(
        "PA-0001",
        {"patient_member_id": "W1", "procedure_code": "72148", "diagnosis_codes": ["M54.5"]},
        turn=2,
    ),
    portal_row(
        "PA-0002",
        {"patient_member_id": "W1", "procedure_code": "70553", "diagnosis_codes": ["G43.9"]},
        turn=3,
    ),
    portal_row("PA-0003", {"patient_member_id": "W2", "procedure_code": "72148"}, turn=4),
]


def portal(**fields):
    check = PortalStateMatchCheck.model_validate(
        {"name": "c", "assert": "portal-state-match", **fields}
    )
    context = SimpleNamespace(final=Rows(PORTAL_NAMES, PORTAL))
    return run_portal_check(check, context)


def test_no_row_matched_names_the_resource_and_the_correlation():
    run = portal(correlate_by={"resource": "copay_note", "member_id": "W1"}, fields=[{"path": "x"}])
    assert (run.passed, run.score) == (False, 0.0)
    assert run.details == 'no copay_note row matched {"member_id": "W1"}'
    assert run.evidence == {
        "correlate_by": {"resource": "copay_note", "member_id": "W1"},
        "matched": 0,
        "key": None,
        "assertion_results": [],
    }


def test_the_best_of_the_correlated_rows_is_scored_with_dotted_paths():
    run = portal(
        correlate_by={"resource": "prior_auth", "patient_member_id": "W1"},
        assertions=[
            {"path": "procedure_code", "expected": "70553"},
            {"path": "diagnosis_codes.0", "expected": "G43.9"},
        ],
    )
    assert (run.passed, run.score, run.evidence["key"], run.evidence["matched"]) == (
        True,
        1.0,
        "PA-0002",
        2,
    )
    assert run.details == "prior_auth PA-0002 matched; 2 of 2 assertions passed"


def test_a_half_right_row_scores_half_and_shows_what_is_wrong():
    run = portal(
        correlate_by={"resource": "prior_auth", "key": "PA-0001"},
        assertions=[
            {"path": "procedure_code", "expected": "72148"},
            {"path": "diagnosis_codes.1", "expected": "M54.5"},
        ],
    )
    assert (run.passed, run.score) == (False, 0.5)
    assert run.evidence["assertion_results"][1] == {
        "path": "diagnosis_codes.1",
        "expected": "M54.5",
        "actual": None,
        "passed": False,
    }
    assert "✗ diagnosis_codes.1: wanted M54.5, got NULL" in run.details


@pytest.mark.parametrize(
    ("count", "changed", "correlate", "passed"),
    [
        (2, False, {"patient_member_id": "W1"}, True),
        (1, False, {"patient_member_id": "W1"}, False),  # a duplicate prior auth fails count = 1
        (None, True, {"patient_member_id": "W1"}, True),  # written during the run
        (None, True, {}, True),
    ],
)
def test_count_and_changed_are_items_of_their_own(count, changed, correlate, passed):
    run = portal(correlate_by={"resource": "prior_auth", **correlate}, count=count, changed=changed)
    assert run.passed is passed
    paths = [item["path"] for item in run.evidence["assertion_results"]]
    assert paths == (["$count"] if count is not None else []) + (["$changed"] if changed else [])


def test_a_seeded_row_never_written_is_not_changed():
    run = portal(correlate_by={"resource": "patients", "key": "W1"}, changed=True)
    assert run.evidence["assertion_results"] == [
        {"path": "$changed", "expected": True, "actual": False, "passed": False}
    ]


def test_a_check_naming_a_service_reads_only_its_rows():
    run = portal(correlate_by={"resource": "prior_auth"}, service="other_portal")
    assert run.evidence["matched"] == 0


def test_compile_portal_check_refuses_an_empty_path_step():
    check = PortalStateMatchCheck.model_validate(
        {
            "name": "c",
            "assert": "portal-state-match",
            "correlate_by": {"resource": "prior_auth", "patient.": "W1", "key": "PA-0001"},
            "fields": [{"path": "diagnosis_codes..0"}, {"path": "status"}],
        }
    )
    assert compile_portal_check(check) == [
        ("correlate_by.patient.", "a path has no empty step"),
        ("assertions[0].path", "a path has no empty step"),
    ]


def test_correlate_by_without_a_resource_is_refused_by_the_model():
    with pytest.raises(ValueError, match="resource"):
        PortalStateMatchCheck.model_validate(
            {"name": "c", "assert": "portal-state-match", "correlate_by": {"key": "PA-0001"}}
        )


VOICE_NAMES = ["service", "call_id", "turn", "speaker", "text", "id"]
TURNS = [
    ("line", "call-0001", 1, "caller", "Member services. Say the member ID.", 1),
    ("line", "call-0001", 2, "agent", "The membr ID is W123456789.", 2),
    ("line", "call-0001", 3, "caller", "Thank you. The co-pay is 25 dollars.", 3),
    ("line", "call-0002", 1, "caller", "Member services.", 4),
    ("line", "call-0002", 2, "agent", "What is the date of birth on file?", 5),
]


def voice(**fields):
    check = VoiceTranscriptCheck.model_validate(
        {"name": "v", "assert": "voice-transcript", **fields}
    )
    return run_voice_check(check, SimpleNamespace(final=Rows(VOICE_NAMES, TURNS)))


@pytest.mark.parametrize(
    ("fields", "found"),
    [
        ({"contains": ["member ID"]}, [False]),  # the agent said "membr ID"
        ({"contains": ["member ID"], "fuzzy": 88}, [True]),  # partial ratio 88.9
        ({"contains": ["member ID"], "fuzzy": 89}, [False]),
        ({"contains": ["DATE OF BIRTH!"]}, [True]),  # case and punctuation ignored
        ({"contains": ["birth on"]}, [True]),
        ({"contains": ["irth"]}, [False]),  # whole words only
        ({"contains": ["co pay"], "speaker": "caller"}, [True]),  # "co-pay" normalised
        ({"contains": ["co pay"]}, [False]),  # the caller said it, not the agent
        ({"contains": ["date of birth"], "call": "first"}, [False]),
        ({"contains": ["date of birth"], "call": "last"}, [True]),
        ({"contains": ["member services"], "speaker": "any", "call": "last"}, [True]),
    ],
)
def test_phrase_matching_by_speaker_call_and_fuzzy_threshold(fields, found):
    run = voice(**fields)
    assert [item["found"] for item in run.evidence["phrase_results"]] == found
    assert run.passed is all(found)


def test_any_of_is_one_item_found_by_any_of_its_phrases():
    run = voice(any_of=[["social security", "date of birth"], ["zip code", "address"]])
    assert run.evidence["phrase_results"] == [
        {"phrase": "social security | date of birth", "found": True, "turn": 2},
        {"phrase": "zip code | address", "found": False, "turn": None},
    ]
    assert (run.passed, run.score) == (False, 0.5)
    assert run.details.endswith("✗ never said 'zip code | address'")


@pytest.mark.parametrize(
    ("not_contains", "score", "passed"),
    [(["social security number"], 1.0, True), (["date of birth"], 0.5, False)],
)
def test_a_forbidden_phrase_passes_only_when_absent(not_contains, score, passed):
    run = voice(contains=["W123456789"], not_contains=not_contains)
    assert (run.score, run.passed) == (score, passed)
    forbidden = run.evidence["phrase_results"][1]
    assert forbidden["forbidden"] is True
    assert forbidden["found"] is not passed
    if not passed:
        assert "✗ said 'date of birth' at turn 2" in run.details


def test_compile_voice_check_refuses_phrases_without_words_and_empty_groups():
    check = VoiceTranscriptCheck.model_validate(
        {
            "name": "v",
            "assert": "voice-transcript",
            "contains": ["member ID"],
            "not_contains": ["?!"],
            "any_of": [[], ["copay", "..."]],
        }
    )
    assert compile_voice_check(check) == [
        ("not_contains[0]", "'?!' has no words to hear"),
        ("any_of[0]", "a group needs at least one phrase"),
        ("any_of[1][1]", "'...' has no words to hear"),
    ]


@pytest.mark.parametrize("fuzzy", [0, 101])
def test_a_fuzzy_threshold_outside_1_to_100_is_refused(fuzzy):
    with pytest.raises(ValueError):
        VoiceTranscriptCheck.model_validate(
            {"name": "v", "assert": "voice-transcript", "contains": ["x"], "fuzzy": fuzzy}
        )
