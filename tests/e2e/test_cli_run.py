"""`assay run` as a user drives it: the installed command, in a subprocess."""

from __future__ import annotations

import json
import textwrap

import pytest
from worldkit import SHOP, write_world


def test_help_lists_run(assay_cli):
    done = assay_cli("--help")
    assert done.returncode == 0
    assert "run" in done.stdout


def test_reference_run_prints_the_table(assay_cli):
    done = assay_cli("run", str(SHOP), "--agent", "reference")
    assert done.returncode == 0, done.stderr
    assert "refund-double-charge" in done.stdout
    assert "score 1.000 (pass)" in done.stdout
    assert "verified 15" in done.stdout


def test_json_shape(assay_cli):
    done = assay_cli(
        "run", str(SHOP), "--agent", "noop", "--task", "refund-double-charge", "--json"
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    run = data["benchmark_run"]
    for key in (
        "id",
        "world",
        "world_version",
        "agent",
        "repeats",
        "score",
        "verdict",
        "outcomes",
        "mean_reward",
        "summary",
    ):
        assert key in run
    assert (run["world"], run["world_version"], run["agent"]) == ("shop", "1", "noop")
    assert run["outcomes"] == {
        "verified": 0,
        "not_achieved": 1,
        "rule_violated": 0,
        "not_scored": 0,
    }
    (task_run,) = data["task_runs"]
    for key in (
        "id",
        "task_id",
        "repeat",
        "status",
        "outcome",
        "reward",
        "score",
        "verdict",
        "passed",
        "fraction",
        "axes",
        "checks",
        "summary",
        "output",
        "error",
    ):
        assert key in task_run
    assert task_run["summary"]["termination"] == "finished"
    check = task_run["checks"][0]
    assert set(check) == {
        "name",
        "type",
        "assert",
        "weight",
        "axis",
        "passed",
        "score",
        "details",
        "evidence",
    }
    assert check["evidence"]["query"].startswith("SELECT count(*) FROM refunds")


def test_wrong_solution_of_one_task(assay_cli):
    done = assay_cli(
        "run",
        str(SHOP),
        "--agent",
        "wrong:refunds both charges",
        "--task",
        "refund-double-charge",
        "--json",
    )
    (task_run,) = json.loads(done.stdout)["task_runs"]
    assert (task_run["outcome"], task_run["reward"]) == ("rule_violated", -1)


@pytest.mark.parametrize(("agent", "code"), [("noop", 1), ("reference", 0)])
def test_fail_under(assay_cli, agent, code):
    done = assay_cli(
        "run", str(SHOP), "--agent", agent, "--task", "update-address", "--fail-under", "0.9"
    )
    assert done.returncode == code


def test_a_users_own_agent_class_with_repeats(assay_cli, tmp_path):
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "agents.py").write_text(
        textwrap.dedent(
            """
            class MyAgent:
                def act(self, observation):
                    if observation.turn == 0:
                        return {"call": {"tool": "update_address", "args": {"order_id": "B-2003", "address": "18 Mill Lane, York"}}}
                    return {"finish": "Updated."}
            """
        )
    )
    done = assay_cli(
        "run",
        str(SHOP),
        "--agent",
        "mypkg.agents:MyAgent",
        "--task",
        "update-address",
        "--repeats",
        "3",
        "--json",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["benchmark_run"]["repeats"] == 3
    assert [(r["repeat"], r["outcome"]) for r in data["task_runs"]] == [
        (0, "verified"),
        (1, "verified"),
        (2, "verified"),
    ]


def test_save_and_replay_a_trajectory(assay_cli, tmp_path):
    saved = tmp_path / "trajectories"
    first = assay_cli(
        "run",
        str(SHOP),
        "--task",
        "refund-unknown-outcome",
        "--json",
        "--save-trajectories",
        str(saved),
    )
    (file,) = saved.iterdir()
    assert json.loads(file.read_text())["trajectory"]["task_id"] == "refund-unknown-outcome"
    again = assay_cli(
        "run", str(SHOP), "--task", "refund-unknown-outcome", "--agent", f"replay:{file}", "--json"
    )
    (one,) = json.loads(first.stdout)["task_runs"]
    (two,) = json.loads(again.stdout)["task_runs"]
    assert one["checks"] == two["checks"]
    assert one["summary"] == two["summary"]
    assert one["final_state_hash"] == two["final_state_hash"]
    assert one["trajectory"] == two["trajectory"]


BAD = {
    "missing world": ([], "empty/world.toml: file not found"),
    "no directory": ([], "nowhere: not a directory"),
    "unknown key": (["unknown"], "tasks/t.toml: colour: unknown key"),
    "two statements": (["statements"], "tasks/t.toml: checks[0].sql: SQL holds 2 statements"),
}


def bad_world(tmp_path, kind):
    if kind == "missing world":
        (tmp_path / "empty").mkdir()
        return tmp_path / "empty"
    if kind == "no directory":
        return tmp_path / "nowhere"
    task = 'title = "t"\nrole = "desk"\n[customer]\nrequest = "r"\n[[checks]]\nname = "c"\nsql = "SELECT 1"\n'
    if kind == "unknown key":
        task = 'colour = "red"\n' + task
    else:
        task = task.replace('sql = "SELECT 1"', 'sql = "SELECT 1; DELETE FROM notes"')
    return write_world(tmp_path / "w", tasks={"t": task})


@pytest.mark.parametrize("kind", BAD)
def test_bad_world_is_one_line_and_exit_2(assay_cli, tmp_path, kind):
    done = assay_cli("run", str(bad_world(tmp_path, kind)))
    assert done.returncode == 2
    assert done.stderr.startswith("error: ")
    assert BAD[kind][1] in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agent", "genius"], "error: --agent: unknown agent 'genius'"),
        (["--task", "nope"], "error: --task: unknown task 'nope' in world shop"),
        (
            ["--agent", "wrong:nope", "--task", "update-address"],
            "error: --agent: task update-address has no wrong solution 'nope'",
        ),
        (["--repeats", "0"], "Invalid value for '--repeats'"),
    ],
)
def test_bad_arguments_exit_2(assay_cli, args, message):
    done = assay_cli("run", str(SHOP), *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
