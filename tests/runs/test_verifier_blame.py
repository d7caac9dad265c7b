"""A verifier that fails after the agent acted is the agent's failure, through the script check,
grading and the run's figures, with a stand-in for the sandbox phases (real sandboxes are tested
under tests/sandbox)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sandboxkit import make_task
from sandboxrun import exec_action
from trialkit import logs_with, stand_in

from assay.runs import open_benchmark
from assay.runs.aggregate import aggregate
from assay.runs.handle import run_task
from assay.runs.plan import new_id
from assay.score.result import TaskRunResult
from assay.taskrun.agents.scripted import ActionsAgent
from assay.world.container.kind import ContainerKind
from assay.world.container.verification import VerifierRun


@pytest.fixture
def task_dir(tmp_path: Path) -> Path:
    return make_task(
        tmp_path / "tasks", "sabotaged", test_sh="echo 1 > /logs/verifier/reward.txt\n"
    )


def logs(tmp_path: Path, **files: str) -> Path:
    return logs_with(tmp_path / new_id("logs"), **files)


def graded(
    task_dir: Path, monkeypatch: pytest.MonkeyPatch, verified: VerifierRun, acts: bool = True
) -> TaskRunResult:
    """One task run whose agent runs one command (or none), its verifier phase `verified`."""
    stand_in(monkeypatch, {"sabotaged": verified})
    benchmark = open_benchmark(task_dir)
    (task,) = benchmark.tasks.values()
    actions = [exec_action("rm /usr/bin/tar")] if acts else []
    agent = ActionsAgent(actions)
    return run_task(benchmark, task, agent, run_id=new_id("tr"), agent_name="actions")


def script_evidence(result: TaskRunResult) -> dict[str, Any]:
    (check,) = result.checks
    assert check.evidence is not None
    return check.evidence


BLAMED = [
    ("no-reward-file", {}, None, "INDETERMINATE: no reward file"),
    (
        "verifier-timeout",
        {"reward_txt": "1"},
        "verifier timeout",
        "INDETERMINATE: verifier timeout",
    ),
    (
        "scoring-error",
        {"reward_txt": "garbage"},
        None,
        "SCORING_ERROR: reward.txt: 'garbage' is not a number",
    ),
]


@pytest.mark.parametrize(
    ("name", "files", "problem", "message"), BLAMED, ids=[b[0] for b in BLAMED]
)
def test_a_verifier_failing_after_the_agent_acted_is_not_achieved_and_the_agents(
    task_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    files: dict[str, str],
    problem: str | None,
    message: str,
) -> None:
    verified = VerifierRun(logs=logs(tmp_path, **files), problem=problem)
    result = graded(task_dir, monkeypatch, verified)
    assert (result.outcome, result.reward, result.score, result.verdict) == (
        "not_achieved",
        0,
        0.0,
        "fail",
    )
    assert result.error is not None
    assert (result.error.side, result.error.message) == ("agent", message)
    assert result.status == "completed"
    assert result.summary.verifier_failures_blamed_on_agent == 1
    assert {name: axis.score for name, axis in result.axes.items()} == {"reward": 0.0}
    evidence = script_evidence(result)
    assert (evidence["agent_acted"], evidence["failure_side"]) == (True, "agent")
    assert result.checks[0].details == f"{message} (after the agent acted: not achieved)"


def test_the_same_failure_before_the_agent_acted_is_not_scored(
    task_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = graded(
        task_dir, monkeypatch, VerifierRun(logs=logs(tmp_path), problem=None), acts=False
    )
    assert (result.outcome, result.reward, result.score) == ("not_scored", None, None)
    assert result.error is not None and result.error.side == "scoring"
    assert result.status == "failed"
    assert result.summary.verifier_failures_blamed_on_agent == 0
    assert script_evidence(result)["failure_side"] == "scoring"


@pytest.mark.parametrize(
    "problem",
    ["sandbox_failed: the sandbox's pid 1 is gone", "verifier_build_failed: RUN exited 1"],
)
def test_an_assay_side_failure_after_the_agent_acted_stays_not_scored(
    task_dir: Path, monkeypatch: pytest.MonkeyPatch, problem: str
) -> None:
    result = graded(task_dir, monkeypatch, VerifierRun(logs=None, problem=problem))
    assert result.outcome == "not_scored"
    assert result.error is not None
    assert (result.error.side, result.error.message) == ("scoring", f"INDETERMINATE: {problem}")
    assert result.summary.verifier_failures_blamed_on_agent == 0


def test_a_scored_reward_is_untouched_by_the_rule(
    task_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    verified = VerifierRun(logs=logs(tmp_path, reward_txt="1"), problem=None)
    result = graded(task_dir, monkeypatch, verified)
    assert (result.outcome, result.reward, result.error) == ("verified", 1, None)
    assert script_evidence(result)["failure_side"] is None


def test_a_trial_that_does_not_say_whether_the_agent_acted_is_taken_as_not_acted(
    task_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Until a trial reports `agent_acted`, nothing is blamed on the agent."""

    class Silent:
        def __init__(self, verified: VerifierRun):
            self.verified = verified

        def start(self) -> None:
            return None

        def exec_for_agent(self, command: str, timeout_s: float) -> dict[str, Any]:
            return {"stdout": "", "stderr": "", "exit_code": 0}

        def advance(self) -> None:
            return None  # a task of one step

        def verify(self) -> VerifierRun:
            return self.verified

        def close(self) -> None:
            pass

    trial = Silent(VerifierRun(logs=logs(tmp_path), problem=None))
    assert not hasattr(trial, "agent_acted")
    monkeypatch.setattr(ContainerKind, "trial", lambda self, task_id, installed=None: trial)
    benchmark = open_benchmark(task_dir)
    (task,) = benchmark.tasks.values()
    agent = ActionsAgent([exec_action("true")])
    result = run_task(benchmark, task, agent, run_id=new_id("tr"), agent_name="actions")
    assert result.outcome == "not_scored"
    assert script_evidence(result)["agent_acted"] is False


def test_sabotage_no_longer_hides_failures_from_the_score(
    task_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Five task runs, one verified and four whose verifier the agent broke: the score is 0.2, not
    1.0 over the one run left scored, and the count is in the run's summary."""
    passed = graded(task_dir, monkeypatch, VerifierRun(logs(tmp_path, reward_txt="1"), None))
    broken = [graded(task_dir, monkeypatch, VerifierRun(logs(tmp_path), None)) for _ in range(4)]
    figures = aggregate([passed, *broken])
    assert figures.score == pytest.approx(0.2)
    assert figures.mean_reward == pytest.approx(0.2)
    assert (figures.scored, figures.not_scored) == (5, 0)
    assert figures.outcomes["not_achieved"] == 4
    assert figures.pass_at_k["1"] == pytest.approx(0.2)
    assert figures.summary.verifier_failures_blamed_on_agent == 4
    assert figures.axes["reward"].score == pytest.approx(0.2)
