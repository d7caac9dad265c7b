"""`assay run --agent model:<name>` as a user runs it, against a local OpenAI-compatible stand-in."""

from __future__ import annotations

import json

import pytest
from modelkit import StandIn, solutions_model
from worldkit import SHOP

from assay.runs import open_benchmark


@pytest.fixture(scope="module")
def stand_in():
    with StandIn(solutions_model(open_benchmark(SHOP).tasks.values())) as server:
        yield server


def outcomes(done):
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    return data, {run["task_id"]: run["outcome"] for run in data["task_runs"]}


def test_a_whole_benchmark_driven_by_a_model_matches_the_reference(assay_cli, stand_in):
    _, reference = outcomes(assay_cli("run", str(SHOP), "--agent", "reference", "--json"))
    data, model = outcomes(
        assay_cli(
            "run",
            str(SHOP),
            "--agent",
            "model:stand-in",
            "--base-url",
            stand_in.url,
            "--temperature",
            "0",
            "--seed",
            "7",
            "--model-arg",
            "top_p=0.5",
            "--json",
        )
    )
    assert model == reference
    summary = data["benchmark_run"]["summary"]
    per_run = [run["summary"]["model_calls"] for run in data["task_runs"]]
    assert summary["model_calls"] == sum(per_run) > 0
    assert summary["prompt_tokens"] == sum(r["summary"]["prompt_tokens"] for r in data["task_runs"])
    sent = stand_in.bodies[-1]
    assert (sent["temperature"], sent["seed"], sent["top_p"]) == (0, 7, 0.5)


def test_the_transcript_is_saved_with_the_trajectory(assay_cli, stand_in, tmp_path):
    done = assay_cli(
        "run",
        str(SHOP),
        "--agent",
        "model:stand-in",
        "--base-url",
        stand_in.url,
        "--task",
        "refund-double-charge",
        "--save-trajectories",
        str(tmp_path / "t"),
    )
    assert done.returncode == 0, done.stderr
    assert "model calls" in done.stdout
    (saved,) = (tmp_path / "t").iterdir()
    transcript = json.loads(saved.read_text())["trajectory"]["transcript"]
    assert transcript[0]["role"] == "system" and transcript[-1]["role"] == "assistant"


def test_a_bad_model_arg_is_one_line(assay_cli):
    done = assay_cli("run", str(SHOP), "--agent", "model:x", "--model-arg", "novalue")
    assert done.returncode == 2
    assert "--model-arg: 'novalue' is not KEY=VALUE" in done.stderr
