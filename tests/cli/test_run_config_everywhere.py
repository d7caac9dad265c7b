"""A benchmark run made over HTTP, by the SDK or by an RL pool stores its configuration too: what
it chose and the settings in force, beside assay's version and the world's digest; `assay show`
prints it as it does an `assay run`'s."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from apikit import OPERATOR_KEY, create
from worldkit import SHOP

from assay import __version__ as ASSAY_VERSION
from assay.sdk import open as open_task_run
from assay.settings import RunSettings, using
from assay.world.digest import files_digest as world_digest

TASK = "update-address"


def shown_config(assay_cli, run_id: str) -> dict:
    """The stored configuration `assay show --json` gives, after checking `assay show` prints it."""
    out = assay_cli("show", run_id).out
    assert f"# configuration · assay {ASSAY_VERSION} · world {world_digest(SHOP)}" in out
    return json.loads(assay_cli("show", run_id, "--json").out)["benchmark_run"]["config"]


def test_a_run_created_over_http_stores_its_configuration(assay):
    from assay.api import open_api

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    app, _ = open_api([SHOP], store=".assay/assay.db", operator_key=OPERATOR_KEY)
    with TestClient(app) as client, using(RunSettings(judge_model="judge-1")):
        run = create(client, tasks=[TASK], repeats=2, agent="my-agent")
    config = shown_config(assay, run["benchmark_run_id"])
    stored = config["run"]
    assert (stored["agent"], stored["tasks"], stored["repeats"]) == ("my-agent", [TASK], 2)
    assert (stored["scored"], stored["verifier_mode"]) == (False, "task")
    assert stored["judge_model"] == "judge-1"  # the settings in force in the server
    out = assay("show", run["benchmark_run_id"]).out.splitlines()
    assert 'agent = "my-agent"' in out and 'judge_model = "judge-1"' in out


def test_an_sdk_task_run_kept_in_a_store_stores_its_configuration(assay):
    with using(RunSettings(pass_threshold=0.5)), open_task_run(SHOP, TASK, store=True) as run:
        run.finish("done")
    config = shown_config(assay, run.benchmark_run_id)
    stored = config["run"]
    assert (stored["agent"], stored["tasks"], stored["pass_threshold"]) == ("sdk", [TASK], 0.5)
    listed = assay("show", run.benchmark_run_id, "--json").out
    assert json.loads(listed)["task_runs"][0]["id"] == run.id


def test_an_sdk_task_run_not_kept_stores_nothing(assay):
    with open_task_run(SHOP, TASK) as run:
        run.finish("done")
    assert not hasattr(run, "benchmark_run_id")
    assert not (Path(".assay") / "assay.db").exists()


def test_an_rl_pool_kept_in_a_store_stores_its_configuration(assay):
    from assay.rl.pool import TaskPool

    pool = TaskPool.open(SHOP, TASK, store=True, agent="trainer")
    assert pool.recorder is not None
    run_id = pool.recorder.run_id
    episode = pool.start(pool.pick(lambda n: 0))
    episode.act({"finish": "done"})
    pool.close()
    stored = shown_config(assay, run_id)["run"]
    assert (stored["agent"], stored["tasks"], stored["include_withdrawn"]) == (
        "trainer",
        [TASK],
        False,
    )
