"""Never a false zero: a task run over an image built only in part, or whose verifier hit a refusal
of assay's own tooling, is INDETERMINATE with the reason, whatever reward the test wrote."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from sandboxkit import make_task
from sandboxrun import run_one, script

from assay.world.container import trial as trial_module
from assay.world.container.dockerfile import plan_build

REWARD_0 = "echo 0 > /logs/verifier/reward.txt\n"
REFUSAL = "[assay-tooling] refused: uv python install 3.13: no interpreter downloads here"
# the oracle leaves a mark in the agent's logs: a task run refused before the agent has none
SOLVE = "echo solved > /logs/agent/ran.txt\n"


def test_a_refusal_of_the_tooling_is_indeterminate_even_after_a_reward_of_0(tmp_path: Path):
    test_sh = f"echo 'collecting ...'\necho '{REFUSAL}'\necho 'exit 127'\n{REWARD_0}"
    result = run_one(make_task(tmp_path, "refused", test_sh=test_sh, solve_sh=SOLVE))
    evidence = script(result)
    assert evidence["status"] == "INDETERMINATE"
    assert evidence["reason"] == (
        "verifier_tooling_unsupported: uv python install 3.13: no interpreter downloads here"
    )
    # the agent acted, and still the run is not scored: the refusal is assay's, not the agent's
    assert evidence["agent_acted"] is True and evidence["failure_side"] == "scoring"
    assert result.outcome == "not_scored" and result.reward is None
    assert result.error is not None and result.error.message.startswith("INDETERMINATE: verifier")


def test_the_refusal_counts_only_at_a_line_start(tmp_path: Path):
    test_sh = f"echo 'the log said: {REFUSAL}'\n{REWARD_0}"
    result = run_one(make_task(tmp_path, "quoted", test_sh=test_sh, solve_sh=SOLVE))
    assert script(result)["status"] == "SCORED"
    assert result.outcome == "not_achieved"


def test_a_refusal_with_a_reward_of_1_is_still_no_score(tmp_path: Path):
    test_sh = "printf '%s\\r\\n' '[assay-tooling] refused:'\necho 1 > /logs/verifier/reward.txt\n"
    result = run_one(make_task(tmp_path, "passed-anyway", test_sh=test_sh, solve_sh=SOLVE))
    assert script(result)["reason"] == "verifier_tooling_unsupported: no reason given"
    assert result.outcome == "not_scored"


@pytest.fixture
def incomplete_plans(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real planner, each plan marked as missing a `COPY --from` of an image (what the planner
    records for an image it cannot map)."""

    def planned(dockerfile: Path, context: Path, **options):
        plan = plan_build(dockerfile, context, **options)
        missing = f"unsupported_instruction:COPY --from=registry.example/{dockerfile.parent.name}"
        return dataclasses.replace(plan, incomplete=[missing])

    monkeypatch.setattr(trial_module, "plan_build", planned)


@pytest.mark.usefixtures("incomplete_plans")
def test_an_incomplete_environment_is_refused_before_the_agent(tmp_path: Path):
    dockerfile = "FROM debian:bookworm-slim\nRUN echo built > /built.txt\n"
    task = make_task(tmp_path, "part", test_sh=REWARD_0, solve_sh=SOLVE, dockerfile=dockerfile)
    result = run_one(task)
    assert result.outcome == "not_scored" and result.summary.turns == 0
    assert result.error is not None
    assert result.error.message == (
        "unsupported_instruction: COPY --from=registry.example/environment (environment/Dockerfile)"
    )
    assert script(result)["agent_acted"] is False


@pytest.mark.usefixtures("incomplete_plans")
def test_an_incomplete_verifier_image_is_refused_before_the_agent(tmp_path: Path):
    toml = '[verifier]\ntimeout_sec = 30\nenvironment_mode = "separate"\n'
    task = make_task(
        tmp_path,
        "verifier-part",
        test_sh=REWARD_0,
        solve_sh=SOLVE,
        toml=toml,
        tests_files={"Dockerfile": "FROM debian:bookworm-slim\n"},
    )
    result = run_one(task)
    assert result.summary.turns == 0
    assert result.error is not None
    assert result.error.message == (
        "unsupported_instruction: COPY --from=registry.example/tests (tests/Dockerfile)"
    )


def test_a_copy_from_an_image_assay_cannot_map_is_indeterminate(tmp_path: Path):
    """End to end with the planner's own record of what it could not build."""
    dockerfile = (
        "FROM debian:bookworm-slim\n"
        "COPY --from=registry.example/no-such-tool:1 /bin/tool /usr/local/bin/tool\n"
    )
    task = make_task(tmp_path, "copy-from", test_sh=REWARD_0, solve_sh=SOLVE, dockerfile=dockerfile)
    result = run_one(task)
    assert result.outcome == "not_scored" and result.summary.turns == 0
    assert result.error is not None
    assert result.error.message.startswith("unsupported_instruction: ")
    assert "registry.example/no-such-tool:1" in result.error.message
