"""What an agent in a container-format task can and cannot reach, and what its task run records."""

from __future__ import annotations

import os
from pathlib import Path

from sandboxkit import make_task
from sandboxrun import exec_action, run_one, script

from assay.world.container.build import layers_dir

PASS_IF_APP_X = (
    "test -f /app/x && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n"
)


def outputs(result) -> list[dict]:
    """The result of every exec the agent ran, in order."""
    return [
        event["result"]
        for step in result.trajectory["steps"]
        for event in step["events"]
        if event.get("type") == "tool_result" and event.get("status") == "OK"
    ]


def test_no_task_directory_tests_or_solution_is_visible_to_the_agent(tmp_path: Path) -> None:
    other = make_task(
        tmp_path, "other", test_sh="echo 1 > /logs/verifier/reward.txt\n", solve_sh="echo secret\n"
    )
    task = make_task(tmp_path, "probe", test_sh=PASS_IF_APP_X, solve_sh="echo answer\n")
    probes = [
        f"ls -A {task}",
        f"cat {task}/solution/solve.sh {other}/tests/test.sh",
        "ls -A /tests /solution",
        f"ls -A {os.environ['ASSAY_HOME']}",
    ]
    result = run_one(task, actions=[exec_action(probe) for probe in probes])
    listing, read, mounted, home = outputs(result)
    assert listing["stdout"] == "" and read["exit_code"] != 0 and "secret" not in read["stdout"]
    assert "test.sh" not in mounted["stdout"] and "solve.sh" not in mounted["stdout"]
    assert home["stdout"] == ""


def test_the_agent_starts_from_an_empty_environment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ASSAY_TEST_SECRET", "hunter2")
    task = make_task(tmp_path, "env", test_sh=PASS_IF_APP_X)
    (shown,) = outputs(run_one(task, actions=[exec_action("env")]))
    assert "hunter2" not in shown["stdout"] and "PATH=" in shown["stdout"]


def test_exec_output_is_cut_at_64_kib_per_stream_with_the_cut_said(tmp_path: Path) -> None:
    task = make_task(tmp_path, "loud", test_sh=PASS_IF_APP_X)
    (shown,) = outputs(
        run_one(task, actions=[exec_action("head -c 200000 /dev/zero | tr '\\0' a")])
    )
    assert len(shown["stdout"].encode()) < 70_000
    assert f"[... {200_000 - 65_536} bytes left out ...]" in shown["stdout"]


def test_no_network_in_the_agent_phase_leaves_only_loopback(tmp_path: Path) -> None:
    toml = '[agent]\ntimeout_sec = 30\n[environment]\nnetwork_mode = "no-network"\n'
    task = make_task(tmp_path, "offline", test_sh=PASS_IF_APP_X, toml=toml)
    (shown,) = outputs(
        run_one(task, actions=[exec_action("tail -n +3 /proc/net/dev | cut -d: -f1")])
    )
    assert shown["stdout"].split() == ["lo"]


def test_an_unsupported_environment_is_not_scored_before_the_agent_acts(tmp_path: Path) -> None:
    toml = "[environment]\ngpus = 1\n"
    task = make_task(tmp_path, "gpu", test_sh=PASS_IF_APP_X, solve_sh="touch /app/x\n", toml=toml)
    result = run_one(task)
    assert result.outcome == "not_scored" and result.summary.turns == 0
    assert script(result)["status"] == "INDETERMINATE"
    assert result.error is not None and "unsupported_environment:gpus" in result.error.message


def test_a_failing_build_step_is_not_scored_with_the_step_named(tmp_path: Path) -> None:
    task = make_task(
        tmp_path, "broken", test_sh=PASS_IF_APP_X, dockerfile="FROM debian\nRUN exit 7\n"
    )
    result = run_one(task, agent="noop")
    assert result.outcome == "not_scored"
    assert result.error is not None
    assert "environment_build_failed: RUN exit 7 exited 7" in result.error.message


def test_the_final_state_hash_is_what_the_agent_changed(tmp_path: Path) -> None:
    task = make_task(tmp_path, "state", test_sh=PASS_IF_APP_X)
    same = [run_one(task, actions=[exec_action("mkdir -p /app && echo a > /app/x")]) for _ in "12"]
    other = run_one(task, actions=[exec_action("mkdir -p /app && echo b > /app/x")])
    assert same[0].final_state_hash == same[1].final_state_hash != other.final_state_hash
    assert same[0].outcome == "verified"


def test_a_dockerfile_layer_is_built_once_and_reused(tmp_path: Path) -> None:
    dockerfile = "FROM debian:bookworm\nRUN mkdir -p /opt/built && date +%s%N > /opt/built/stamp\n"
    test_sh = "cat /opt/built/stamp; echo 1 > /logs/verifier/reward.txt\n"
    task = make_task(tmp_path, "cached", test_sh=test_sh, dockerfile=dockerfile)
    before = set(layers_dir().glob("*.done")) if layers_dir().exists() else set()
    stamps = [run_one(task, agent="noop").checks[0].evidence["test_stdout_tail"] for _ in "12"]
    after = set(layers_dir().glob("*.done"))
    assert len(after - before) == 1
    assert stamps[0] == stamps[1]
