"""`assay run`'s configuration: built from the flags and `--config run.toml` (a flag wins), stored
with the run beside assay's version and the world's digest, printed by `assay show`, compared by
`assay compare`, held to by `--resume`; no setting travels through the environment."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from modelkit import StandIn, solutions_model
from worldkit import SHOP

from assay import __version__ as ASSAY_VERSION
from assay import settings
from assay.world.digest import files_digest as world_digest

TASK = "update-address"


def made(assay_cli, *args: str) -> dict:
    """The stored run `assay run … --json` made, as its JSON says."""
    done = assay_cli("run", SHOP, "--task", TASK, "--json", *args)
    assert done.code == 0, done.err
    return json.loads(done.out)["benchmark_run"]


def test_the_configuration_is_stored_with_the_version_and_the_worlds_digest(assay):
    run = made(assay, "--temperature", "0.2", "--seed", "7", "--judge-model", "judge-1")
    shown = json.loads(assay("show", run["id"], "--json").out)["benchmark_run"]["config"]
    assert shown == run["config"]
    assert shown["assay_version"] == ASSAY_VERSION
    assert shown["world_digest"] == world_digest(SHOP)
    stored = shown["run"]
    assert stored["agent"] == "reference" and stored["tasks"] == [TASK]
    assert (stored["model"]["temperature"], stored["model"]["seed"]) == (0.2, 7)
    assert stored["judge_model"] == "judge-1"


def test_show_prints_the_configuration_as_a_run_toml(assay):
    run = made(assay, "--temperature", "0.2", "--repeats", "2")
    out = assay("show", run["id"]).out
    digest = world_digest(SHOP)
    assert f"# configuration · assay {ASSAY_VERSION} · world {digest}" in out
    for line in ('agent = "reference"', f'tasks = ["{TASK}"]', "repeats = 2"):
        assert line in out.splitlines()
    assert "model.temperature = 0.2" in out.splitlines()
    assert "judge_model" not in out  # unset settings are left out


def test_what_show_prints_is_a_config_file_that_makes_the_same_run(assay, tmp_path):
    run = made(assay, "--temperature", "0.2", "--seed", "3")
    printed = assay("show", run["id"]).out.split("# configuration", 1)[1].split("\n", 1)[1]
    (tmp_path / "again.toml").write_text(printed, encoding="utf-8")
    again = assay("run", SHOP, "--config", tmp_path / "again.toml", "--json")
    assert again.code == 0, again.err
    assert json.loads(again.out)["benchmark_run"]["config"]["run"] == run["config"]["run"]


def test_a_run_stored_without_a_configuration_says_so(assay):
    run = made(assay)
    with sqlite3.connect(".assay/assay.db") as connection:
        connection.execute("UPDATE benchmark_runs SET config = NULL")
    assert "# configuration: not stored" in assay("show", run["id"]).out


def test_compare_warns_once_per_setting_that_differs(assay):
    a = made(assay, "--temperature", "0.2")
    b = made(assay, "--temperature", "0.7", "--repeats", "2")
    done = assay("compare", a["id"], b["id"])
    assert done.code == 0
    assert done.err.splitlines() == [
        "warning: the runs differ in model.temperature: 0.2 (A) vs 0.7 (B)",
        "warning: the runs differ in repeats: 1 (A) vs 2 (B)",
    ]
    listed = json.loads(assay("compare", a["id"], b["id"], "--json").out)["config_differences"]
    assert listed == [
        {"setting": "model.temperature", "a": 0.2, "b": 0.7},
        {"setting": "repeats", "a": 1, "b": 2},
    ]


def test_compare_of_runs_made_alike_warns_of_nothing(assay):
    a, b = made(assay, "--seed", "1"), made(assay, "--seed", "1")
    done = assay("compare", a["id"], b["id"])
    assert done.code == 0 and done.err == ""


def test_compare_names_a_world_whose_files_changed(assay, tmp_path):
    import shutil

    world = tmp_path / "shop"
    shutil.copytree(SHOP, world)
    first = assay("run", world, "--task", TASK, "--json")
    (world / "README.extra").write_text("changed\n", encoding="utf-8")
    second = assay("run", world, "--task", TASK, "--json")
    a, b = (json.loads(done.out)["benchmark_run"]["id"] for done in (first, second))
    [line] = assay("compare", a, b).err.splitlines()
    assert line.startswith("warning: the runs differ in world_digest: ")


def cancelled(assay_cli, *args: str) -> str:
    """A stored run of two task runs, the second left as if the run had been stopped."""
    run = made(assay_cli, "--repeats", "2", *args)
    with sqlite3.connect(".assay/assay.db") as connection:
        connection.execute("UPDATE task_runs SET phase = 'started' WHERE position = 1")
    return run["id"]


def test_resume_refuses_other_settings_naming_each(assay):
    run_id = cancelled(assay, "--temperature", "0.2")
    done = assay("run", "--resume", run_id, "--temperature", "0.5", "--seed", "4")
    assert done.code == 2
    assert done.err.splitlines() == [
        f"error: --resume: run {run_id} was made with other settings: model.temperature, "
        "model.seed; a resumed run keeps its own"
    ]


def test_resume_keeps_the_runs_settings_and_may_run_elsewhere(assay):
    run_id = cancelled(assay, "--temperature", "0.2")
    done = assay("run", "--resume", run_id, "--workers", "1", "--temperature", "0.2", "--json")
    assert done.code == 0, done.err
    resumed = json.loads(done.out)["benchmark_run"]
    assert [r["outcome"] for r in json.loads(done.out)["task_runs"]] == ["verified"] * 2
    assert resumed["config"]["run"]["model"]["temperature"] == 0.2
    assert resumed["config"]["run"]["workers"] is None  # the run's own configuration stays


def test_a_config_file_sets_the_run_and_a_flag_wins(assay, tmp_path):
    (tmp_path / "run.toml").write_text(
        f'tasks = ["{TASK}"]\nrepeats = 2\n[model]\ntemperature = 0.4\nseed = 9\n',
        encoding="utf-8",
    )
    done = assay("run", SHOP, "--config", "run.toml", "--repeats", "3", "--seed", "1", "--json")
    assert done.code == 0, done.err
    stored = json.loads(done.out)["benchmark_run"]["config"]["run"]
    assert (stored["tasks"], stored["repeats"]) == ([TASK], 3)
    assert (stored["model"]["temperature"], stored["model"]["seed"]) == (0.4, 1)
    assert len(json.loads(done.out)["task_runs"]) == 3


def test_a_bad_config_file_is_one_line_naming_the_file_and_the_setting(assay, tmp_path):
    cases = {
        "temperatur = 1\n": "error: bad.toml: temperatur: unknown key",
        "[model]\nseed = 'x'\n": "error: bad.toml: model.seed: Input should be a valid integer",
        "repeats = 0\n": "error: bad.toml: repeats: Input should be greater than or equal to 1",
        "customer = 'gpt'\n": "error: bad.toml: customer: 'gpt' is not model:<name>",
        "executor = 'dask'\n": "error: bad.toml: executor: 'dask' is neither pool nor ray",
        "repeats = [\n": "error: bad.toml: not valid TOML",
    }
    for text, said in cases.items():
        (tmp_path / "bad.toml").write_text(text, encoding="utf-8")
        done = assay("run", SHOP, "--config", "bad.toml")
        assert done.code == 2, text
        assert done.err.startswith(said) and len(done.err.strip().splitlines()) == 1, done.err


def test_a_bad_flag_is_one_line_naming_the_flag(assay):
    done = assay("run", SHOP, "--customer", "gpt-4")
    assert done.code == 2
    assert done.err.strip() == "error: --customer: 'gpt-4' is not model:<name>"


def test_no_setting_is_left_in_the_environment_or_in_force(assay):
    before = dict(os.environ)
    made(assay, "--judge-model", "judge-1", "--temperature", "0.2", "--pass-threshold", "0.5")
    assert dict(os.environ) == before
    assert settings.in_force() == settings.RunSettings()


def test_worker_processes_get_the_runs_model_options(assay, shop):
    """The options reach each worker with its setup: the workers ask the endpoint given."""
    tasks = [TASK, "refund-double-charge"]
    with StandIn(solutions_model(shop.tasks[task] for task in tasks)) as stand_in:
        chosen = [arg for task in tasks for arg in ("--task", task)]
        done = assay(
            "run",
            SHOP,
            *chosen,
            *("--agent", "model:stand-in", "--base-url", stand_in.url, "--model-retries", "0"),
            *("--workers", "2", "--json"),
        )
    assert done.code == 0, done.err
    assert [r["outcome"] for r in json.loads(done.out)["task_runs"]] == ["verified"] * 2
    assert {body["model"] for body in stand_in.bodies} == {"stand-in"}


def test_settings_used_are_in_force_only_while_they_are_used():
    chosen = settings.RunSettings(judge_model="judge-1")
    with settings.using(chosen):
        assert settings.in_force().judge_model == "judge-1"
    assert settings.in_force().judge_model is None


def test_the_worlds_digest_follows_its_files(tmp_path: Path):
    (tmp_path / "a.txt").write_text("one", encoding="utf-8")
    first = world_digest(tmp_path)
    for made_by_running in ("__pycache__/x.pyc", ".assay/assay.db", ".DS_Store"):
        (tmp_path / made_by_running).parent.mkdir(exist_ok=True)
        (tmp_path / made_by_running).write_bytes(b"made by running")
    assert world_digest(tmp_path) == first
    (tmp_path / "a.txt").write_text("two", encoding="utf-8")
    assert world_digest(tmp_path) != first


def test_a_bundle_carries_the_configuration(assay, tmp_path):
    run = made(assay, "--seed", "5")
    bundle = tmp_path / "run.bundle.json.gz"
    assert assay("export", run["id"], "--format", "bundle", "-o", bundle).code == 0
    shown = json.loads(assay("show", bundle, "--json").out)["benchmark_run"]["config"]
    assert shown == run["config"]


def test_a_store_made_before_configurations_were_stored_is_migrated(assay, tmp_path):
    """A run stored at revision 0006 reads back with no configuration, and resumes as its row
    says; the next run stores its own."""
    from alembic import command
    from alembic.config import Config

    from assay.runs.store.location import connect, locate
    from assay.runs.store.migrate import MIGRATIONS

    old = made(assay)
    location = locate("sqlite:///.assay/assay.db")
    engine = connect(location)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0006")
    engine.dispose()
    with sqlite3.connect(".assay/assay.db") as connection:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(benchmark_runs)")]
    assert "config" not in columns
    assert "# configuration: not stored" in assay("show", old["id"]).out  # migrated back up
    assert made(assay)["config"] is not None


def test_resume_of_a_run_made_by_a_newer_assay_is_one_line(assay):
    run_id = cancelled(assay)
    with sqlite3.connect(".assay/assay.db") as connection:
        (text,) = connection.execute("SELECT config FROM benchmark_runs").fetchone()
        newer = json.loads(text)
        newer["run"]["sampler"] = "nucleus"
        newer["assay_version"] = "9.0"
        connection.execute("UPDATE benchmark_runs SET config = ?", (json.dumps(newer),))
    done = assay("run", "--resume", run_id)
    assert done.code == 2
    assert done.err.splitlines() == [
        f"error: --resume: run {run_id} was made by assay 9.0, with a setting this version "
        "cannot read (run.sampler)"
    ]
