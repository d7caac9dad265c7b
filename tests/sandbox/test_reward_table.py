"""Every row of the reward table (docs/contracts/container.md §5), through real task runs in real
sandboxes."""

from __future__ import annotations

from pathlib import Path

import pytest
from sandboxkit import make_task, reward_task
from sandboxrun import exec_action, run_one, script

# (row, reward.txt, reward.json, status, primary, outcome). Each task run's agent is the reference
# solution, which acts: a reward file that is missing or does not parse is then the agent's
# failure, not achieved (docs/scoring.md); before the agent acts it is not scored (tested below).
ROWS = [
    ("1-one", "1", None, "SCORED", 1.0, "verified"),
    ("1-half", "0.5", None, "SCORED", 0.5, "not_achieved"),
    ("1-newline", "1.0\n", None, "SCORED", 1.0, "verified"),
    ("2-zero", "0", None, "SCORED", 0.0, "not_achieved"),
    ("3-nan", "nan", None, "SCORING_ERROR", None, "not_achieved"),
    ("3-inf", "inf", None, "SCORING_ERROR", None, "not_achieved"),
    ("3-overflow", "1e999", None, "SCORING_ERROR", None, "not_achieved"),
    ("4-negative", "-0.1", None, "SCORING_ERROR", None, "not_achieved"),
    ("4-above", "1.5", None, "SCORING_ERROR", None, "not_achieved"),
    ("5-empty", "  \n", None, "SCORING_ERROR", None, "not_achieved"),
    ("6-word", "abc", None, "SCORING_ERROR", None, "not_achieved"),
    ("6-two", "1 2", None, "SCORING_ERROR", None, "not_achieved"),
    ("6-hex", "0x1", None, "SCORING_ERROR", None, "not_achieved"),
    ("7-json-wins", "0", '{"reward": 1}', "SCORED", 1.0, "verified"),
    (
        "8-extra-keys",
        None,
        '{"reward": 1, "tests_passed": 12, "tests_total": 12}',
        "SCORED",
        1.0,
        "verified",
    ),
    ("9-sole-key", None, '{"funny": 0.7}', "SCORED", 0.7, "not_achieved"),
    ("10-no-primary", None, '{"correctness": 1, "performance": 0}', "SCORED", None, "not_scored"),
    ("11-nan", None, '{"reward": NaN}', "SCORING_ERROR", None, "not_achieved"),
    ("11-string", None, '{"reward": 1, "note": "x"}', "SCORING_ERROR", None, "not_achieved"),
    ("11-bool", None, '{"reward": true}', "SCORING_ERROR", None, "not_achieved"),
    ("11-nested", None, '{"reward": {"a": 1}}', "SCORING_ERROR", None, "not_achieved"),
    ("12-outside", None, '{"reward": 2}', "SCORING_ERROR", None, "not_achieved"),
    ("13-empty-object", None, "{}", "SCORING_ERROR", None, "not_achieved"),
    ("13-array", None, "[1]", "SCORING_ERROR", None, "not_achieved"),
    ("14-empty-json", "1", "  ", "SCORED", 1.0, "verified"),
    ("15-none", None, None, "INDETERMINATE", None, "not_achieved"),
    ("15-only-empty-json", None, "", "INDETERMINATE", None, "not_achieved"),
]


@pytest.mark.parametrize(
    ("row", "txt", "json_text", "status", "primary", "outcome"), ROWS, ids=[r[0] for r in ROWS]
)
def test_reward_files_give_the_status_the_table_names(
    tmp_path: Path,
    row: str,
    txt: str | None,
    json_text: str | None,
    status: str,
    primary: float | None,
    outcome: str,
) -> None:
    task = reward_task(tmp_path, f"row-{row}", reward_txt=txt, reward_json=json_text)
    result = run_one(task)
    evidence = script(result)
    assert (evidence["status"], evidence["primary"], result.outcome) == (status, primary, outcome)
    if status == "SCORED":
        assert result.error is None
        assert result.score == (primary if primary is not None else None)
    else:
        assert result.error is not None and result.error.side == "agent"
        assert (result.reward, result.score) == (0.0, 0.0)
        assert evidence["reason"]


@pytest.mark.parametrize(("txt", "status"), [("abc", "SCORING_ERROR"), (None, "INDETERMINATE")])
def test_a_verifier_failure_before_the_agent_acted_is_not_scored(
    tmp_path: Path, txt: str | None, status: str
) -> None:
    task = reward_task(tmp_path, f"unacted-{status}", reward_txt=txt)
    result = run_one(task, agent="noop")
    assert (script(result)["status"], result.outcome) == (status, "not_scored")
    assert result.error is not None and result.error.side == "scoring"


def test_row_10_keeps_every_metric_as_an_axis_and_is_left_out_of_the_mean(tmp_path: Path) -> None:
    task = reward_task(tmp_path, "metrics", reward_json='{"correctness": 1, "performance": 0}')
    result = run_one(task)
    assert result.error is None and result.status == "completed"
    assert {name: axis.score for name, axis in result.axes.items()} == {
        "correctness": 1.0,
        "performance": 0.0,
    }
    assert (result.reward, result.score, result.verdict) == (None, None, None)
    assert result.summary.false_completion is False  # it cannot be shown to have failed


def test_row_16_a_verifier_past_its_timeout_is_indeterminate_and_its_reward_discarded(
    tmp_path: Path,
) -> None:
    task = make_task(
        tmp_path,
        "slow-verifier",
        test_sh="echo 1 > /logs/verifier/reward.txt\nsleep 30\n",
        solve_sh=":\n",
        toml="[verifier]\ntimeout_sec = 1\n",
    )
    evidence = script(run_one(task))
    assert (evidence["status"], evidence["reason"], evidence["rewards"]) == (
        "INDETERMINATE",
        "verifier timeout",
        {},
    )


def test_row_18_the_exit_code_is_recorded_not_used(tmp_path: Path) -> None:
    result = run_one(reward_task(tmp_path, "exit-3", reward_txt="1", exit_code=3))
    assert result.outcome == "verified"
    assert script(result)["exit_code"] == 3


def test_row_19_an_agent_out_of_time_is_still_verified(tmp_path: Path) -> None:
    task = make_task(
        tmp_path,
        "agent-timeout",
        test_sh="test -f /app/done && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n",
        toml="[agent]\ntimeout_sec = 1\n",
    )
    actions = [exec_action("mkdir -p /app && touch /app/done && sleep 5", 10), exec_action("true")]
    result = run_one(task, actions=actions)
    evidence = script(result)
    assert result.summary.termination == "timeout"
    assert evidence["status"] == "SCORED" and "agent_timeout" in evidence["notes"]
    assert result.outcome == "verified"  # the file was written before the time ran out


def test_row_20_a_reward_file_planted_by_the_agent_never_counts(tmp_path: Path) -> None:
    task = make_task(tmp_path, "planted", test_sh="exit 0\n")
    actions = [
        exec_action(
            "echo 1 > /logs/verifier/reward.txt; echo '{\"reward\": 1}' > /logs/verifier/reward.json"
        )
    ]
    result = run_one(task, actions=actions)
    assert script(result)["status"] == "INDETERMINATE"  # never read: the test script wrote none
    assert result.outcome == "not_achieved"  # and the agent, which acted, does not hide behind it


def test_a_background_writer_left_by_the_agent_cannot_touch_the_verifiers_files(
    tmp_path: Path,
) -> None:
    task = make_task(
        tmp_path, "background", test_sh="echo 0 > /logs/verifier/reward.txt\nsleep 1\n"
    )
    writer = "while true; do echo 1 > /logs/verifier/reward.txt; sleep 0.05; done"
    result = run_one(task, actions=[exec_action(f"nohup bash -c '{writer}' >/dev/null 2>&1 &")])
    assert (script(result)["primary"], result.outcome) == (0.0, "not_achieved")


def test_the_agent_cannot_write_the_verifiers_logs_at_all(tmp_path: Path) -> None:
    task = make_task(tmp_path, "readonly-logs", test_sh="echo 1 > /logs/verifier/reward.txt\n")
    probe = "touch /logs/verifier/x && echo wrote || echo refused"
    result = run_one(task, actions=[exec_action(probe)])
    first = result.trajectory["steps"][1]["events"][0]["result"]
    assert first["stdout"].strip() == "refused"


def test_a_test_script_without_its_execute_bit_still_runs(tmp_path: Path) -> None:
    task = reward_task(tmp_path, "no-x-bit", reward_txt="1")
    (task / "tests" / "test.sh").chmod(0o644)
    assert run_one(task).outcome == "verified"
