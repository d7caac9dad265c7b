"""The rule for whose failure a verifier's is: (status, reason, agent acted) → effect and side."""

from __future__ import annotations

import pytest

from assay.verify.blame import ASSAY_SIDE, Blame, assay_side, verifier_blame

AGENTS = Blame("not_achieved", "agent")
NOT_SCORED = Blame("not_scored", "scoring")
SCORED = Blame("scored", None)

CASES = [
    # a reward file was read: the rule never touches it
    ("SCORED", None, True, SCORED),
    ("SCORED", None, False, SCORED),
    # after the agent acted, a verifier that gave no score is the agent's failure
    ("INDETERMINATE", "no reward file", True, AGENTS),
    (
        "INDETERMINATE",
        "no reward file: reward.json is empty and there is no reward.txt",
        True,
        AGENTS,
    ),
    ("INDETERMINATE", "verifier timeout", True, AGENTS),
    ("SCORING_ERROR", "reward.txt: 'abc' is not a number", True, AGENTS),
    ("SCORING_ERROR", "reward.json: larger than 1 MiB", True, AGENTS),
    ("SCORING_ERROR", "reward.txt: a symbolic link, not a regular file", True, AGENTS),
    ("INDETERMINATE", None, True, AGENTS),
    # before it acted, the same failures are not scored
    ("INDETERMINATE", "no reward file", False, NOT_SCORED),
    ("INDETERMINATE", "verifier timeout", False, NOT_SCORED),
    ("SCORING_ERROR", "reward.txt: 'abc' is not a number", False, NOT_SCORED),
    # assay's or the machine's failures are never the agent's
    ("INDETERMINATE", "sandbox_failed: nsenter exited 1", True, NOT_SCORED),
    ("INDETERMINATE", "sandbox_unavailable: bubblewrap (bwrap) is not installed", True, NOT_SCORED),
    ("INDETERMINATE", "unsupported_environment:gpus", True, NOT_SCORED),
    ("INDETERMINATE", "missing_env:OPENAI_API_KEY", True, NOT_SCORED),
    ("INDETERMINATE", "environment_build_failed: RUN exited 2", True, NOT_SCORED),
    ("INDETERMINATE", "verifier_build_failed: RUN exited 2", True, NOT_SCORED),
    ("INDETERMINATE", "healthcheck_failed: 'curl x' did not succeed in 4 tries", True, NOT_SCORED),
    ("INDETERMINATE", "sandbox_failed: x", False, NOT_SCORED),
    ("INDETERMINATE", "verifier_tooling_unsupported: uv python install 3.13", True, NOT_SCORED),
    (
        "INDETERMINATE",
        "unsupported_instruction: COPY --from=x (tests/Dockerfile)",
        True,
        NOT_SCORED,
    ),
    # only the reason's first word counts: a look-alike is not assay's
    ("INDETERMINATE", "sandbox_failed_by_agent: x", True, AGENTS),
    ("INDETERMINATE", "the sandbox_failed somewhere", True, AGENTS),
]


@pytest.mark.parametrize(("status", "reason", "acted", "expected"), CASES)
def test_the_rule(status: str, reason: str | None, acted: bool, expected: Blame) -> None:
    assert verifier_blame(status, reason, acted) == expected


def test_every_assay_side_word_is_recognised_with_or_without_a_detail() -> None:
    for word in ASSAY_SIDE:
        assert assay_side(word)
        assert assay_side(f"{word}: detail")
        assert assay_side(f"{word}:detail")
    assert not assay_side(None) and not assay_side("")
