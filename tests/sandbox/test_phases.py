"""The phases around the agent: healthcheck, hooks, artifacts, the python note, the judge's key."""

from __future__ import annotations

from pathlib import Path

import pytest
from sandboxkit import make_task
from sandboxrun import exec_action, run_one, script

EXAMPLES = Path(__file__).parents[2] / "examples" / "tasks"
REWARD_1 = "echo 1 > /logs/verifier/reward.txt\n"


def test_a_healthcheck_that_passes_after_retries_lets_the_agent_start(tmp_path: Path) -> None:
    toml = (
        "[environment.healthcheck]\n"
        'command = "test -f /tmp/tries && exit 0; touch /tmp/tries; exit 1"\n'
        "retries = 2\ninterval_sec = 0.01\nstart_interval_sec = 0.01\n"
    )
    result = run_one(make_task(tmp_path, "healthy", test_sh=REWARD_1, toml=toml), agent="noop")
    assert result.outcome == "verified", result.error


def test_a_healthcheck_that_never_passes_is_not_scored(tmp_path: Path) -> None:
    toml = (
        '[environment.healthcheck]\ncommand = "exit 1"\nretries = 1\n'
        "interval_sec = 0.01\nstart_interval_sec = 0.01\n"
    )
    result = run_one(make_task(tmp_path, "sick", test_sh=REWARD_1, toml=toml), agent="noop")
    assert result.outcome == "not_scored" and result.summary.turns == 0
    assert result.error is not None and result.error.message.startswith("healthcheck_failed")


def test_the_judge_key_reaches_the_verifier_and_never_the_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_TEST_JUDGE_KEY", "sk-judge")
    toml = '[verifier.env]\nJUDGE_KEY = "${ASSAY_TEST_JUDGE_KEY}"\n'
    test_sh = '[ "$JUDGE_KEY" = sk-judge ] && echo 1 > /logs/verifier/reward.txt\n'
    task = make_task(tmp_path, "judge", test_sh=test_sh, toml=toml)
    result = run_one(task, actions=[exec_action("env | grep -c sk-judge || true")])
    (seen,) = [
        event["result"]
        for step in result.trajectory["steps"]
        for event in step["events"]
        if event.get("type") == "tool_result"
    ]
    assert seen["stdout"].strip() == "0"
    assert result.outcome == "verified", result.error


def test_hooks_artifacts_and_the_python_note_are_recorded(tmp_path: Path) -> None:
    hooks = run_one(EXAMPLES / "hooks-and-artifacts")
    evidence = script(hooks)
    assert hooks.outcome == "verified"
    assert "collect_failed:0:3" in evidence["notes"]  # the failing hook, which stopped nothing
    hello = script(run_one(EXAMPLES / "hello-world"))  # uvx -p 3.13 on bookworm's 3.11
    assert "python_substituted" in hello["notes"] and hello["status"] == "SCORED"


def test_artifacts_are_listed_with_what_was_missing(tmp_path: Path) -> None:
    toml = 'artifacts = ["/app/out.txt", {source = "/app/absent", destination = "absent"}]\n'
    task = make_task(tmp_path, "arts", test_sh=REWARD_1, toml=toml)
    result = run_one(task, actions=[exec_action("mkdir -p /app && echo x > /app/out.txt")])
    assert script(result)["artifacts"] == [
        {"source": "/app/out.txt", "destination": "/app/out.txt", "status": "collected"},
        {"source": "/app/absent", "destination": "absent", "status": "missing"},
    ]


def test_separate_mode_sees_only_the_artifacts(tmp_path: Path) -> None:
    result = run_one(EXAMPLES / "separate-verifier")
    assert result.outcome == "verified", result.error
    noop = run_one(EXAMPLES / "separate-verifier", agent="noop")
    assert noop.outcome == "not_achieved"
