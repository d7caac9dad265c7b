"""`--concurrency N`: a slow model agent's task runs overlap in one process, with the same results.
(How much sooner they finish is measured in bench/agents_concurrency.py, not asserted here.)"""

from __future__ import annotations

import json

import pytest
from modelkit import ScriptedModel, StandIn, solution_replies
from worldkit import SHOP

from assay.runs import open_benchmark


@pytest.fixture(scope="module")
def slow_model():
    shop = open_benchmark(SHOP)
    scripts = {t.customer.request: solution_replies(t) for t in shop.tasks.values() if t.solution}
    with StandIn(ScriptedModel(scripts), latency_s=0.05) as server:
        yield server


TASKS = ["refund-double-charge", "update-address", "ask-for-email", "email-tracking"]


def model_run(assay_cli, server, concurrency, max_connections=8, workers=1, gather=0):
    chosen = [arg for task in TASKS for arg in ("--task", task)]
    server.most_in_flight = 0
    server.gather(gather)
    done = assay_cli(
        *("run", str(SHOP), "--agent", "model:slow", "--base-url", server.url, *chosen),
        *("--repeats", "2", "--concurrency", str(concurrency), "--workers", str(workers)),
        *("--max-connections", str(max_connections), "--json"),
    )
    assert done.returncode == 0, done.stderr
    runs = json.loads(done.stdout)["task_runs"]
    found = sorted((r["task_id"], r["repeat"], r["outcome"], r["final_state_hash"]) for r in runs)
    return server.most_in_flight, found


@pytest.fixture(scope="module")
def one_at_a_time(slow_model, module_assay_cli):
    """The same task runs one at a time: how many model requests overlapped, and the results."""
    return model_run(module_assay_cli, slow_model, 1)


def test_eight_at_once_overlap_and_give_identical_results(assay_cli, slow_model, one_at_a_time):
    most_in_flight, serial = one_at_a_time
    at_once, overlapped = model_run(assay_cli, slow_model, 8, gather=8)
    assert overlapped == serial
    assert most_in_flight == 1
    assert at_once == 8  # 8 task runs: all of them waiting on the model together


def test_max_connections_caps_the_model_requests_in_flight(assay_cli, slow_model):
    at_once, _ = model_run(assay_cli, slow_model, 8, max_connections=3, gather=3)
    assert at_once == 3


def test_each_worker_keeps_its_own_task_runs_in_flight(assay_cli, slow_model, one_at_a_time):
    _, serial = one_at_a_time
    at_once, spread = model_run(assay_cli, slow_model, 4, workers=2, gather=8)
    assert spread == serial
    assert at_once == 8  # two processes, four task runs waiting on the model in each


def test_a_class_agent_refuses_concurrency(assay_cli):
    done = assay_cli("run", str(SHOP), "--agent", "mod:Agent", "--concurrency", "4")
    assert done.returncode == 2
    assert "--concurrency: a Python class agent acts in one process; use --workers" in done.stderr
