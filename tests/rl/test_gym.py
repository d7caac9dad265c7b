"""`assay/Task-v0`: Gymnasium's checker, rewards of the scripted solutions, rejected attempts,
truncation, not-scored runs, seeded draws, storing, vector environments."""

from __future__ import annotations

import json
import time

import pytest
from rlkit import TASK, played
from worldkit import SHOP, write_world

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import assay.gym  # noqa: E402  (registers assay/Task-v0)
from assay import UsageError  # noqa: E402
from assay.runs import run_task  # noqa: E402
from assay.taskrun import agent_factory  # noqa: E402
from assay.taskrun.session import SessionOver  # noqa: E402


def make(**options):
    return gymnasium.make(assay.gym.ENV_ID, world=str(SHOP), **{"task": TASK, **options})


def play(env, actions, **reset):
    """Reset, take the actions until the run ends; the last step's five values."""
    env.reset(**reset)
    for action in actions:
        step = env.step(action)
        if step[2] or step[3]:
            return step
    raise AssertionError("the task run did not end")


def test_gymnasiums_checker_passes_on_a_task_and_on_a_split():
    for env in (make(), make(task=None, split="train")):
        check_env(env.unwrapped)
        env.close()


def test_spaces_are_text_with_documented_limits():
    env = make()
    assert env.observation_space.max_length == assay.gym.OBSERVATION_MAX == 1_048_576
    assert env.action_space.max_length == assay.gym.ACTION_MAX == 65_536
    observation, info = env.reset(seed=3)
    assert observation in env.observation_space
    assert json.loads(observation)["task_id"] == info["task_id"] == TASK
    env.close()


def test_the_reference_earns_1_the_noop_0_and_each_wrong_solution_its_outcomes_reward(shop):
    task = shop.tasks[TASK]
    env = make()
    _, reward, terminated, truncated, info = play(env, played(task, "reference"))
    assert (reward, terminated, truncated, info["outcome"]) == (1.0, True, False, "verified")
    assert info["score"] == 1.0 and info["verdict"] == "pass" and info["not_scored"] is False
    assert {check["name"] for check in info["checks"]} == {check.name for check in task.checks}
    assert info["summary"]["termination"] == "finished"
    _, reward, terminated, _, info = play(env, played(task, "noop"))
    assert (reward, terminated, info["outcome"]) == (0.0, True, "not_achieved")
    rewards = {}
    for wrong in task.wrong:
        agent = f"wrong:{wrong.name}"
        expected = run_task(shop, task, agent_factory(agent)(task), run_id="oracle")
        _, reward, _, _, info = play(env, played(task, agent))
        assert (reward, info["outcome"]) == (float(expected.reward), expected.outcome)
        rewards[wrong.name] = reward
    assert rewards == {"refunds both charges": -1.0, "says it refunded without refunding": 0.0}
    env.close()


def test_an_invalid_action_is_a_rejected_attempt_the_agent_sees():
    env = make()
    env.reset()
    for text in ("not json", "[1, 2]", '{"dance": 1}', '{"call": {"tool": "fly"}}', "[" * 5000):
        observation, reward, terminated, truncated, info = env.step(text)
        assert (reward, terminated, truncated, info["rejected"]) == (0.0, False, False, True)
        assert json.loads(observation)["events"][0]["status"] == "REJECTED"
    seen = json.loads(env.step("{oops")[0])["events"][0]
    assert (seen["code"], seen["message"][:24]) == ("invalid_action", "the action is not JSON (")
    *_, info = env.step('{"finish": ""}')
    assert info["summary"]["rejected_attempts"] == 6
    env.close()


def test_text_beyond_ascii_travels_as_escapes_and_is_accepted_in_actions(tmp_path):
    task = 'title = "t"\nrole = "desk"\n[customer]\nrequest = "Add a note: café — now"\n[[checks]]\nname = "c"\nsql = "SELECT 1"\nexpect = 1\n'
    root = write_world(tmp_path / "w", tasks={"t": task})
    env = gymnasium.make(assay.gym.ENV_ID, world=str(root), task="t")
    observation, _ = env.reset()
    assert observation.isascii() and observation in env.observation_space
    assert json.loads(observation)["request"] == "Add a note: café — now"
    add = json.dumps({"call": {"tool": "add_note", "args": {"text": "café"}}}, ensure_ascii=False)
    observation, *_, info = env.step(add)
    assert info["rejected"] is False and observation in env.observation_space
    env.close()


def test_an_action_over_the_limit_is_rejected_and_an_observation_over_it_ends_the_run():
    env = make(max_action_length=100)
    env.reset()
    observation, *_, info = env.step('{"say": "' + "x" * 200 + '"}')
    assert info["rejected"] is True
    assert "over the limit of 100" in json.loads(observation)["events"][0]["message"]
    env.close()
    first, _ = make().reset()
    env = make(max_observation_length=len(first) + 150)
    env.reset()
    find = json.dumps({"call": {"tool": "find_order", "args": {"order_id": "A-1042"}}})
    observation, reward, terminated, _, info = env.step(find)
    assert len(observation) <= len(first) + 150
    assert (reward, terminated, info["not_scored"], info["outcome"]) == (
        0.0,
        True,
        True,
        "not_scored",
    )
    assert "max_observation_length" in info["error"]["message"]
    env.close()


def test_a_first_observation_over_the_limit_ends_the_run_at_the_first_step():
    first, _ = make().reset()
    env = make(max_observation_length=len(first) - 1)
    observation, _ = env.reset()
    assert json.loads(observation)["done"] is True
    _, reward, terminated, _, info = env.step('{"finish": ""}')
    assert (reward, terminated, info["not_scored"], info["turn"]) == (0.0, True, True, 0)
    assert "over max_observation_length" in info["error"]["message"]
    env.close()


def test_max_turns_truncates_and_still_grades(shop):
    env = make()
    env.reset()
    for turn in range(1, shop.tasks[TASK].max_turns + 1):
        _, reward, terminated, truncated, info = env.step('{"say": "hello?"}')
        if turn < shop.tasks[TASK].max_turns:
            assert not (terminated or truncated)
    assert (terminated, truncated, reward, info["outcome"]) == (False, True, 0.0, "not_achieved")
    assert info["summary"]["termination"] == "max_turns"
    env.close()


def test_running_out_of_time_truncates(tmp_path):
    timed = 'time_limit_s = 0.05\n[customer]\nrequest = "r"\n[[checks]]\nname = "c"\nsql = "SELECT 1"\nexpect = 1\n'
    root = write_world(tmp_path / "w", tasks={"t": 'title = "t"\nrole = "desk"\n' + timed})
    env = gymnasium.make(assay.gym.ENV_ID, world=str(root), task="t")
    env.reset()
    time.sleep(0.1)
    _, _, terminated, truncated, info = env.step('{"say": "hi"}')
    assert (terminated, truncated, info["summary"]["termination"]) == (False, True, "timeout")
    env.close()


def test_a_run_not_scored_ends_with_reward_0_and_is_flagged(tmp_path):
    task = 'title = "t"\nrole = "desk"\n[customer]\nrequest = "r"\n[[checks]]\nname = "c"\nsql = "SELECT 1"\nexpect = 1\n'
    root = write_world(tmp_path / "w", tasks={"t": task})
    env = gymnasium.make(assay.gym.ENV_ID, world=str(root), task="t")
    env.reset()
    _, reward, terminated, _, info = env.step('{"call": {"tool": "explode", "args": {}}}')
    assert (reward, terminated, info["not_scored"], info["reward"]) == (0.0, True, True, None)
    assert info["error"]["side"] == "world"
    with pytest.raises(SessionOver, match="reset to start another"):
        env.step('{"finish": ""}')
    env.close()


def test_a_seeded_reset_draws_the_same_task_and_options_can_name_one(shop):
    env = make(task=None)
    drawn = [env.reset(seed=seed)[1]["task_id"] for seed in range(12)]
    assert drawn == [env.reset(seed=seed)[1]["task_id"] for seed in range(12)]
    assert len(set(drawn)) > 1
    assert {shop.tasks[task_id].split for task_id in drawn} == {"train"}
    assert env.reset(options={"task": TASK})[1]["task_id"] == TASK
    with pytest.raises(UsageError, match="not one of this environment's tasks"):
        env.reset(options={"task": "refuse-late-refund-nope"})
    env.close()


def test_bad_arguments_are_one_clear_error():
    with pytest.raises(UsageError, match="task: unknown task 'nope' in world shop"):
        make(task="nope")
    with pytest.raises(UsageError, match="split: unknown split 'test'"):
        make(task=None, split="test")
    env = make()
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.unwrapped.step('{"finish": ""}')
    env.close()


def test_holdout_runs_only_when_asked_and_hides_check_details(shop):
    holdout = next(task for task in shop.tasks.values() if task.split == "holdout")
    with pytest.raises(UsageError, match="is a holdout task"):
        make(task=holdout.id)
    env = make(task=holdout.id, split="holdout")
    *_, info = play(env, ['{"finish": ""}'])
    assert info["checks"] and all(check["details"] is None for check in info["checks"])
    env.close()


def test_task_runs_are_kept_only_when_asked(shop, tmp_path):
    from assay.runs.record import load_outcome
    from assay.runs.store import open_store

    store = tmp_path / "records.db"
    env = make(store=str(store))
    run_id = env.unwrapped.pool.recorder.run_id
    task = shop.tasks[TASK]
    play(env, played(task, "reference"))
    play(env, played(task, "noop"))
    env.reset()  # left unfinished: kept as cancelled
    env.close()
    with open_store(str(store)) as records:
        outcome = load_outcome(records, run_id, trajectories=True)
    runs = outcome.task_runs
    assert [(run.outcome, run.repeat, run.status) for run in runs] == [
        ("verified", 0, "completed"),
        ("not_achieved", 1, "completed"),
        ("not_achieved", 2, "cancelled"),
    ]
    assert runs[0].trajectory["steps"]
    assert (outcome.benchmark_run.agent, outcome.benchmark_run.task_runs) == ("gym", 3)
    assert outcome.benchmark_run.phase == "completed"
    unkept = make()
    assert unkept.unwrapped.pool.recorder is None
    unkept.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_vector_environments_play_in_step(shop, mode):
    actions = played(shop.tasks[TASK], "reference")
    envs = gymnasium.make_vec(
        assay.gym.ENV_ID, num_envs=3, vectorization_mode=mode, world=str(SHOP), task=TASK
    )
    observations, infos = envs.reset(seed=5)
    assert len(observations) == 3 and list(infos["task_id"]) == [TASK] * 3
    for action in actions:
        _, rewards, terminated, truncated, infos = envs.step((action,) * 3)
    assert rewards.tolist() == [1.0, 1.0, 1.0] and terminated.all() and not truncated.any()
    assert list(infos["outcome"]) == ["verified"] * 3
    envs.close()
