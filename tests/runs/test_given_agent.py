"""An agent handed to the runner as a Python object: an instance, its class or a factory, run in
this process and graded like one named by `--agent`."""

from __future__ import annotations

import pytest

import assay
from assay.errors import UsageError
from assay.runs import ProcessExecutor, SerialExecutor, prepare, run_benchmark

MOVE = {
    "call": {
        "tool": "update_address",
        "args": {"order_id": "B-2003", "address": "18 Mill Lane, York"},
    }
}
DONE = {"finish": "Order B-2003 will go to 18 Mill Lane, York."}


class Mover:
    """Moves the order, then finishes; it counts the observations it has seen."""

    def __init__(self) -> None:
        self.seen: list[int] = []

    def act(self, observation: assay.Observation) -> dict:
        self.seen.append(observation.turn)
        return MOVE if observation.turn == 0 else DONE


def test_an_agent_object_is_an_agent_and_runs_in_this_process(shop):
    agent = Mover()
    assert isinstance(agent, assay.Agent)
    planned = prepare(shop, agent, ["update-address"], repeats=2)
    outcome = run_benchmark(shop, agent, planned, repeats=2)
    assert [run.outcome for run in outcome.task_runs] == ["verified", "verified"]
    assert agent.seen == [0, 1, 0, 1]  # the same object, for both task runs
    assert outcome.benchmark_run.agent == f"{__name__}:Mover"
    assert outcome.benchmark_run.score == 1.0


def test_a_class_gets_a_fresh_instance_for_each_task_run(shop):
    made: list[Mover] = []

    class Counted(Mover):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    planned = prepare(shop, Counted, ["update-address", "address-correction"])
    outcome = run_benchmark(shop, Counted, planned, executor=SerialExecutor(concurrency=2))
    assert len(made) == 2 and all(len(agent.seen) >= 1 for agent in made)
    assert outcome.task_runs[0].outcome == "verified"
    assert outcome.benchmark_run.agent.endswith(
        ":test_a_class_gets_a_fresh_instance_for_each_task_run.<locals>.Counted"
    )


def test_a_factory_is_told_the_task_and_the_repeat(shop):
    asked: list[tuple[str, int]] = []

    def make(task, repeat=0):
        asked.append((task.id, repeat))
        return Mover()

    planned = prepare(shop, make, ["update-address"], repeats=2)
    outcome = run_benchmark(shop, make, planned)
    assert asked == [("update-address", 0), ("update-address", 1)]
    assert {run.outcome for run in outcome.task_runs} == {"verified"}


def test_what_is_no_agent_is_refused_before_anything_runs(shop):
    with pytest.raises(UsageError, match="got int"):
        prepare(shop, 42, ["update-address"])

    class Silent:
        pass

    with pytest.raises(UsageError, match=r"class .*Silent has no act"):
        prepare(shop, Silent, ["update-address"])


def test_an_agent_object_cannot_be_sent_to_worker_processes(shop):
    planned = prepare(shop, Mover(), ["update-address"])
    with pytest.raises(UsageError, match="runs in this process, not in a ProcessExecutor"):
        run_benchmark(shop, Mover(), planned, executor=ProcessExecutor(2))
