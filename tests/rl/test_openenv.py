"""`assay openenv`: openenv-core's own clients drive task runs of a world over loopback."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import httpx
import pytest
from apikit import ASSAY, free_port
from processkit import wait_ready
from rlkit import TASK, played
from worldkit import SHOP

from assay.openenv import TaskAction, TaskClient, TaskEnvironment
from assay.rl import TaskPool


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    """`assay openenv` over the shop's refund task, in a process of its own; what it logs must
    be no more than its one line."""
    port = free_port()
    command = [ASSAY, "openenv", str(SHOP), "--task", TASK, "--port", str(port)]
    log = tmp_path_factory.mktemp("openenv") / "stderr.txt"
    process = subprocess.Popen(command, stderr=log.open("w"), text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(process, f"{url}/health")
    except RuntimeError as failed:
        raise RuntimeError(f"{failed} {log.read_text()}") from None
    yield url
    process.terminate()
    process.wait(10)
    lines = log.read_text().splitlines()
    assert lines == [f"serving {SHOP} (tasks: {TASK}) on {url}"], lines


def test_the_reference_over_openenv_gets_what_assay_run_gets(server, shop, tmp_path):
    store = str(tmp_path / "records.db")
    ran = subprocess.run(
        [
            ASSAY,
            "run",
            str(SHOP),
            "--agent",
            "reference",
            "--task",
            TASK,
            "--json",
            "--store",
            store,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    expected = json.loads(ran.stdout)["task_runs"][0]
    # imported here, after assay.openenv has loaded openenv-core without gradio: imported at the
    # top (before assay, in import order) it would load gradio, seconds in every test process
    from openenv.core import GenericEnvClient

    with GenericEnvClient(base_url=server).sync() as env:
        result = env.reset()
        assert (result.done, result.observation["observation"]["task_id"]) == (False, TASK)
        for action in played(shop.tasks[TASK], "reference"):
            assert not result.done
            result = env.step(json.loads(action))
            if not result.done:
                assert result.reward == 0.0
        info = result.observation["info"]
        state = env.state()
    assert result.done and result.observation["truncated"] is False
    assert result.reward == float(expected["reward"]) == 1.0
    assert (info["outcome"], info["score"], info["verdict"]) == (
        expected["outcome"],
        expected["score"],
        expected["verdict"],
    )
    assert [check["passed"] for check in info["checks"]] == [
        check["passed"] for check in expected["checks"]
    ]
    assert (state["task_run_id"], state["turn"], state["done"]) == (info["task_run_id"], 3, True)


def test_a_typed_client_sees_rejected_attempts_state_and_a_wrong_solutions_reward(server, shop):
    wrong = [
        json.loads(action) for action in played(shop.tasks[TASK], "wrong:refunds both charges")
    ]
    with TaskClient(base_url=server).sync() as env:
        env.reset(episode_id="tr_chosen")
        rejected = env.step(TaskAction(say="hi", finish="both"))
        assert (rejected.done, rejected.reward) == (False, 0.0)
        assert rejected.observation.info["rejected"] is True
        assert rejected.observation.observation["events"][0]["code"] == "invalid_action"
        state = env.state()
        assert (state.task_run_id, state.episode_id, state.turn, state.done) == (
            "tr_chosen",
            "tr_chosen",
            1,
            False,
        )
        for action in wrong:
            result = env.step(TaskAction(**action))
        assert (result.done, result.reward) == (True, -1.0)
        assert result.observation.info["outcome"] == "rule_violated"
        assert result.observation.info["summary"]["rejected_attempts"] == 1


def test_sessions_at_once_each_have_a_task_run_of_their_own(server):
    with TaskClient(base_url=server).sync() as one, TaskClient(base_url=server).sync() as two:
        one.reset()
        two.reset()
        one.step(TaskAction(say="hello"))
        first, second = one.state(), two.state()
    assert first.task_run_id != second.task_run_id
    assert (first.turn, second.turn) == (1, 0)


def test_the_schema_names_the_three_actions_and_what_an_observation_holds(server):
    schema = httpx.get(f"{server}/schema", timeout=5).json()
    assert {"call", "say", "finish"} <= set(schema["action"]["properties"])
    assert {"observation", "truncated", "info"} <= set(schema["observation"]["properties"])


def test_one_shot_http_refuses_a_step_with_no_task_run_and_an_unknown_task(server):
    step = httpx.post(f"{server}/step", json={"action": {"say": "hi"}}, timeout=5)
    assert step.status_code == 409
    assert step.json()["detail"].startswith("no task run: reset first")
    reset = httpx.post(f"{server}/reset", json={"task": "nope"}, timeout=5)
    assert reset.status_code == 422
    assert reset.json()["detail"].startswith("task: 'nope' is not one of this environment's tasks")
    fresh = httpx.post(f"{server}/reset", json={}, timeout=5).json()
    assert fresh["observation"]["observation"]["task_id"] == TASK


def test_a_session_hears_why_a_reset_or_step_was_refused(server):
    with TaskClient(base_url=server).sync() as env:
        with pytest.raises(RuntimeError, match="no task run: reset first"):
            env.step(TaskAction(say="hi"))
        with pytest.raises(RuntimeError, match="'nope' is not one of this environment's tasks"):
            env.reset(task="nope")
        assert env.reset().observation.info["task_id"] == TASK


def test_a_seeded_reset_draws_the_same_task(shop):
    pool = TaskPool(
        shop, [task for task in shop.tasks.values() if task.split == "train"], agent="t"
    )
    env = TaskEnvironment(pool)
    drawn = [env.reset(seed=seed).info["task_id"] for seed in range(10)]
    assert drawn == [env.reset(seed=seed).info["task_id"] for seed in range(10)]
    assert len(set(drawn)) > 1
    assert env.reset(task=TASK).info["task_id"] == TASK
    env.close()
    assert env.state.task_run_id is None
