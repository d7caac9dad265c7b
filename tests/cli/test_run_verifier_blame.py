"""`assay run` shows how many task runs scored 0 because their verifier failed after the agent
acted, in the verdict line, the totals line and --json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sandboxkit import make_task
from trialkit import logs_with, stand_in

from assay.world.container.verification import VerifierRun


@pytest.fixture
def sabotaged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Five tasks whose oracle runs a command: one verifier passes, four write no reward file."""
    tasks = tmp_path / "tasks"
    verified = {}
    for index in range(5):
        name = f"task-{index}"
        make_task(tasks, name, test_sh="exit 0\n", solve_sh="rm -f /usr/bin/tar\n")
        files = {"reward_txt": "1"} if index == 0 else {}
        verified[name] = VerifierRun(
            logs=logs_with(tmp_path / "logs" / name, **files), problem=None
        )
    stand_in(monkeypatch, verified)
    return tasks


def test_the_verdict_and_totals_lines_count_the_verifier_failures(assay, sabotaged: Path) -> None:
    done = assay("run", sabotaged, "--workers", "1")
    assert done.code == 0, done.err
    assert (
        "score 0.200 (partial) · 0 rule violated · 0 not scored"
        " · 4 of 5 not achieved: the verifier failed after the agent acted" in done.out
    )
    assert "verifier failures blamed on the agent 4" in done.out
    assert "not_achieved 4" in done.out
    assert "axes reward 0.200" in done.out  # a sabotaged run's reward is 0, not left out


def test_json_carries_the_count_in_the_summary(assay, sabotaged: Path) -> None:
    done = assay("run", sabotaged, "--workers", "1", "--json")
    assert done.code == 0, done.err
    run = json.loads(done.out)["benchmark_run"]
    assert run["summary"]["verifier_failures_blamed_on_agent"] == 4
    assert (run["score"], run["scored"], run["not_scored"]) == (0.2, 5, 0)
