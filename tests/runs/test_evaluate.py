"""`assay.evaluate`: one call runs a world with an agent, stores the run with its configuration and
returns a typed result; a bad setting is a UsageError naming it."""

from __future__ import annotations

import subprocess
import sys

import pytest
from worldkit import SHOP

import assay
from assay.errors import UsageError
from assay.runs.store import open_store


@pytest.fixture
def store(tmp_path, monkeypatch) -> str:
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    return f"sqlite:///{tmp_path / 'runs.db'}"


def test_evaluate_runs_the_shop_with_the_reference_agent(store):
    result = assay.evaluate(SHOP, agent="reference", store=store, splits=["train", "dev"])
    assert isinstance(result, assay.RunResult)
    assert result.phase == "completed" and result.score == 1.0 and result.verdict == "pass"
    assert result.outcomes["verified"] == len(result.task_runs) > 1
    assert {run.outcome for run in result.task_runs} == {"verified"}
    assert result.config == assay.RunConfig(splits=("train", "dev"))
    with open_store(store) as records:
        stored = records.benchmark_run(result.run_id)
    assert stored.config["run"] == result.config.model_dump(mode="json")
    assert stored.task_runs == len(result.task_runs)


def test_evaluate_takes_the_models_settings_by_name(store):
    result = assay.evaluate(SHOP, store=store, tasks=["update-address"], temperature=0.0, seed=7)
    assert (result.config.model.temperature, result.config.model.seed) == (0.0, 7)
    assert [run.task_id for run in result.task_runs] == ["update-address"]


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        ({"temperatur": 1}, "evaluate(temperatur=…): unknown setting"),
        ({"repeats": 0}, "evaluate(repeats=…): Input should be greater than or equal to 1"),
        ({"seed": "x"}, "evaluate(seed=…): Input should be a valid integer"),
    ],
)
def test_a_bad_setting_is_a_usage_error_naming_it(store, settings, said):
    with pytest.raises(UsageError) as raised:
        assay.evaluate(SHOP, store=store, **settings)
    assert str(raised.value).startswith(said)


def test_importing_assay_does_not_import_the_runner():
    code = "import sys, assay; print('assay.evaluation' in sys.modules, 'pydantic' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]
