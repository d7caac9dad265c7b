"""Multi-step tasks (`[[steps]]`): each step's instruction comes as the customer's next message
after the agent finishes the step before; each step is verified on its own in the same files; a
step below its min_reward ends the steps; the task's reward is the steps' mean, or the final's."""

from __future__ import annotations

import os
from pathlib import Path

from sandboxrun import exec_action, run_one, script

TOML = '[agent]\ntimeout_sec = 120\n[environment]\nworkdir = "/app"\n'
CREATE_TEST = '[ "$(head -1 /app/greeting.txt)" = hello ] && echo 1 || echo 0'
APPEND_TEST = '[ "$(sed -n 2p /app/greeting.txt)" = "$(cat /app/config.txt)" ] && echo 1 || echo 0'


def write_steps(
    root: Path, toml: str = "", setup: str = "cp /app/setup-value /app/config.txt"
) -> Path:
    """Two steps over /app: create greeting.txt, then append the line setup.sh left."""
    files = {
        "task.toml": toml + TOML + '[[steps]]\nname = "create"\n[[steps]]\nname = "append"\n',
        "tests/helpers.sh": 'reward() { echo "$1" > /logs/verifier/reward.txt; }\n',
        "steps/create/instruction.md": "Write hello as the first line of /app/greeting.txt.",
        "steps/create/tests/test.sh": f". /tests/helpers.sh\nreward $({CREATE_TEST})\n",
        "steps/create/solution/solve.sh": "echo hello > /app/greeting.txt\n",
        "steps/append/instruction.md": "Append the line in /app/config.txt to /app/greeting.txt.",
        "steps/append/workdir/setup-value": "world\n",
        "steps/append/workdir/setup.sh": setup + "\n",
        "steps/append/tests/test.sh": f". /tests/helpers.sh\nreward $({APPEND_TEST})\n",
        "steps/append/solution/solve.sh": "cat /app/config.txt >> /app/greeting.txt\n",
        "environment/Dockerfile": "FROM debian:bookworm-slim\nWORKDIR /app\n",
    }
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if path.suffix == ".sh":
            os.chmod(path, 0o755)
    return root


def customer_messages(result) -> list[str]:
    return [
        event["text"]
        for step in result.trajectory["steps"]
        for event in step["events"]
        if event.get("type") == "message" and event.get("from") == "customer"
    ]


def test_the_oracle_does_each_step_in_turn_and_every_step_is_verified(tmp_path: Path) -> None:
    result = run_one(write_steps(tmp_path / "two"), agent="oracle")
    evidence = script(result)
    assert result.outcome == "verified", result.error
    assert [(s["name"], s["rewards"]) for s in evidence["steps"]] == [
        ("create", {"reward": 1.0}),
        ("append", {"reward": 1.0}),
    ]
    assert evidence["rewards"] == {"reward": 1.0}
    assert customer_messages(result) == [
        "Write hello as the first line of /app/greeting.txt.",
        "Append the line in /app/config.txt to /app/greeting.txt.",
    ]


def test_doing_nothing_is_verified_in_no_step(tmp_path: Path) -> None:
    result = run_one(write_steps(tmp_path / "idle"), agent="noop")
    evidence = script(result)
    assert result.outcome == "not_achieved"
    assert [s["rewards"] for s in evidence["steps"]] == [{"reward": 0.0}, {"reward": 0.0}]


def test_a_step_below_its_min_reward_ends_the_steps(tmp_path: Path) -> None:
    task = write_steps(tmp_path / "gated")
    toml = (task / "task.toml").read_text().replace('"create"\n', '"create"\nmin_reward = 1.0\n')
    (task / "task.toml").write_text(toml)
    result = run_one(task, agent="noop")
    evidence = script(result)
    assert [s["name"] for s in evidence["steps"]] == ["create"]
    assert len(customer_messages(result)) == 1  # the second step's instruction never came
    assert evidence["rewards"] == {"reward": 0.0} and result.outcome == "not_achieved"


def test_mean_and_final_combine_the_steps_rewards(tmp_path: Path) -> None:
    """The agent skips the first step and does the second: the mean is 0.5, the final 1."""
    second_only = [
        {"finish": ""},
        exec_action("echo hello > greeting.txt && cat config.txt >> greeting.txt"),
        {"finish": ""},
    ]
    mean = script(run_one(write_steps(tmp_path / "mean"), actions=second_only))
    assert mean["rewards"] == {"reward": 0.5}
    final = run_one(
        write_steps(tmp_path / "final", 'multi_step_reward_strategy = "final"\n'),
        actions=second_only,
    )
    assert script(final)["rewards"] == {"reward": 1.0} and final.outcome == "verified"


def test_a_later_step_whose_setup_fails_is_the_agents_and_says_which(tmp_path: Path) -> None:
    """As with a verifier that gives no reward once the agent has acted: what the agent did in
    the step before may be what broke it."""
    result = run_one(write_steps(tmp_path / "broken", setup="exit 3"), agent="oracle")
    assert result.outcome == "not_achieved"
    assert script(result)["reason"] == "step_setup_failed:append: setup.sh exited 3"
