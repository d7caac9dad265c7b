"""Over HTTP, an agent acts in a container-format task through the same `exec` tool."""

from __future__ import annotations

from apikit import new_run, world_api
from sandboxkit import make_task

TEST_SH = (
    "grep -qx hi /app/greeting && echo 1 > /logs/verifier/reward.txt "
    "|| echo 0 > /logs/verifier/reward.txt\n"
)


def test_a_task_run_started_acted_and_completed_over_http(tmp_path):
    make_task(tmp_path / "set", "greet", test_sh=TEST_SH, instruction="Write hi to /app/greeting.")
    with world_api(tmp_path / "set", tmp_path / "api.db") as api:
        run, headers = new_run(api, "set")
        (task_run,) = run["task_runs"]
        observation = api.post(task_run["start_url"], headers=headers).json()
        assert observation["request"] == "Write hi to /app/greeting."
        assert [tool["name"] for tool in observation["tools"]] == ["exec"]
        command = "mkdir -p /app && echo hi > /app/greeting && cat /app/greeting"
        acted = api.post(
            task_run["act_url"],
            json={"call": {"tool": "exec", "args": {"command": command}}},
            headers=headers,
        ).json()
        assert acted["events"][0]["result"] == {"stdout": "hi\n", "stderr": "", "exit_code": 0}
        done = api.post(task_run["complete_url"], json={"output": ""}, headers=headers).json()
        assert (done["phase"], done["outcome"], done["reward"]) == ("completed", "verified", 1)
