"""Task runs as Ray actors: the same results as one process, stops and resumes as with the pool.

One local Ray instance serves the whole module (starting one costs seconds)."""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

import pytest
from comparekit import comparable

from assay.errors import SpecError, UsageError
from assay.runs import SerialExecutor, open_benchmark, prepare, run_benchmark
from assay.runs.cluster import CONCURRENCY_REFUSED, RayExecutor, forwarded_env
from assay.runs.record import continue_run, record_run, resume_plan
from assay.runs.store import open_store
from assay.score.result import TaskRunResult

ray = pytest.importorskip("ray")

ROOT = Path(__file__).resolve().parents[2]
NAP = f"{ROOT / 'tests' / 'e2e' / 'nap_agent.py'}:NapAgent"  # 0.5 s per task run
TASKS = ("refund-double-charge", "email-tracking", "update-address")


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init("local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


pytestmark = pytest.mark.usefixtures("plain_handlers")  # tests/runs/conftest.py


@pytest.fixture(scope="module")
def in_one_process(shop):
    planned = prepare(shop, "reference", repeats=2)
    return comparable(run_benchmark(shop, "reference", planned, repeats=2))


def test_an_actor_takes_one_task_run_at_a_time() -> None:
    with pytest.raises(UsageError) as refused:
        RayExecutor(1, concurrency=4)
    assert str(refused.value) == CONCURRENCY_REFUSED


@pytest.mark.parametrize("executor", [RayExecutor(2), RayExecutor(1)], ids=["2-actors", "1-actor"])
def test_results_are_those_of_one_process_each_started_before_its_result(
    shop, in_one_process, executor
) -> None:
    planned = prepare(shop, "reference", repeats=2)
    told: list[tuple[str, str]] = []
    outcome = run_benchmark(
        shop,
        "reference",
        planned,
        repeats=2,
        executor=executor,
        on_start=lambda run: told.append(("start", run.id)),
        on_result=lambda result: told.append(("result", result.id)),
    )
    assert comparable(outcome) == in_one_process
    assert in_one_process[0]["outcomes"]["verified"] == 30
    assert [r.id for r in outcome.task_runs] == [run.id for run in planned]
    for run in planned:
        assert told.count(("start", run.id)) == told.count(("result", run.id)) == 1
        assert told.index(("start", run.id)) < told.index(("result", run.id))


def test_ctrl_c_from_a_callback_cancels_and_keeps_finished_task_runs(shop) -> None:
    planned = prepare(shop, "reference", repeats=4)
    seen: list[TaskRunResult] = []

    def interrupt(result: TaskRunResult) -> None:
        seen.append(result)
        if len(seen) == 1:
            raise KeyboardInterrupt

    outcome = run_benchmark(
        shop, "reference", planned, repeats=4, executor=RayExecutor(2), on_result=interrupt
    )
    assert outcome.benchmark_run.phase == "cancelled"
    assert 1 <= len(outcome.task_runs) < len(planned)
    assert all(run.outcome == "verified" for run in outcome.task_runs)


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_keeps_only_what_had_begun_and_class_agents_run_in_actors(shop, number) -> None:
    planned = prepare(shop, NAP, TASKS, repeats=2)
    started: list[str] = []
    finished: list[str] = []

    def signal_once(result: TaskRunResult) -> None:
        finished.append(result.id)
        if len(finished) == 1:
            os.kill(os.getpid(), number)

    outcome = run_benchmark(
        shop,
        NAP,
        planned,
        executor=RayExecutor(2),
        on_start=lambda run: started.append(run.id),
        on_result=signal_once,
    )
    assert outcome.benchmark_run.phase == "cancelled"
    # two in flight at the signal (one per actor), both finished; nothing began after it
    assert [run.id for run in outcome.task_runs] == started == [run.id for run in planned[:2]]
    assert all(run.outcome == "not_achieved" for run in outcome.task_runs)


def test_resume_with_ray_runs_only_what_is_missing(shop, tmp_path) -> None:
    planned = prepare(shop, "reference", TASKS, repeats=2)
    seen: list[str] = []

    def interrupt(result: TaskRunResult) -> None:
        seen.append(result.id)
        if len(seen) == 2:
            raise KeyboardInterrupt

    with open_store(str(tmp_path / "records.db")) as store:
        first = record_run(store, shop, "reference", planned, on_result=interrupt)
        run_id = first.benchmark_run.id
        redo = resume_plan(store, shop, store.benchmark_run(run_id))
        assert [run.id for run in redo] == [run.id for run in planned[2:]]
        done = continue_run(store, shop, run_id, "reference", redo, RayExecutor(2))
    assert done.benchmark_run.phase == "completed"
    assert [r.id for r in done.task_runs] == [run.id for run in planned]
    assert done.benchmark_run.outcomes["verified"] == len(planned)


def test_model_options_set_after_ray_started_reach_the_actors(shop, monkeypatch) -> None:
    from modelkit import ScriptedModel, StandIn, solution_replies
    from settingskit import use_model_at

    tasks = [shop.tasks[task_id] for task_id in TASKS]
    scripts = {task.customer.request: solution_replies(task) for task in tasks}
    with StandIn(ScriptedModel(scripts)) as server:
        use_model_at(monkeypatch, server.url)
        planned = prepare(shop, "model:stand-in", TASKS)
        outcome = run_benchmark(shop, "model:stand-in", planned, executor=RayExecutor(2))
        assert server.bodies  # the actors asked this server: the options reached them
    assert [r.outcome for r in outcome.task_runs] == ["verified"] * 3


def test_a_world_an_actor_cannot_load_raises_its_own_error(shop, tmp_path) -> None:
    world = tmp_path / "shop"
    shutil.copytree(ROOT / "worlds" / "shop", world)
    benchmark = open_benchmark(world)
    (world / "world.toml").write_text('name = "shop"\nnot toml at all\n', encoding="utf-8")
    planned = prepare(benchmark, "reference", TASKS[:1])
    with pytest.raises(SpecError) as raised:
        run_benchmark(benchmark, "reference", planned, executor=RayExecutor(1))
    assert "world.toml" in str(raised.value)
    assert any("in the worker process" in note for note in raised.value.__notes__)


def test_a_run_on_postgresql_matches_sqlite(shop, shop_on_postgres) -> None:
    outcomes = []
    for benchmark, executor in ((shop, SerialExecutor()), (shop_on_postgres, RayExecutor(2))):
        planned = prepare(benchmark, "reference", TASKS)
        outcomes.append(run_benchmark(benchmark, "reference", planned, executor=executor))
    hashes = [[r.final_state_hash for r in outcome.task_runs] for outcome in outcomes]
    assert hashes[0] == hashes[1]
    assert [r.outcome for r in outcomes[1].task_runs] == ["verified"] * 3


@pytest.mark.parametrize(
    ("environ", "forwarded"),
    [
        ({"ASSAY_WORLD_DB": "postgresql://x", "OPENAI_API_KEY": "k", "HOME": "/root"}, 2),
        ({"PATH": "/bin", "ASSAYX": "1"}, 0),
    ],
)
def test_the_actors_get_assay_and_model_provider_settings_only(environ, forwarded) -> None:
    chosen = forwarded_env(environ)
    assert len(chosen) == forwarded
    assert all(environ[name] == value for name, value in chosen.items())


def test_the_cli_resumes_a_cancelled_run_with_ray(shop, tmp_path, monkeypatch, capsys) -> None:
    from assay.cli.app import run_app

    url = f"sqlite:///{tmp_path / 'records.db'}"
    planned = prepare(shop, "reference", TASKS, repeats=2)
    seen: list[str] = []

    def interrupt(result: TaskRunResult) -> None:
        seen.append(result.id)
        if len(seen) == 1:
            raise KeyboardInterrupt

    with open_store(url) as store:
        run_id = record_run(store, shop, "reference", planned, on_result=interrupt).benchmark_run.id
    monkeypatch.setattr(
        "sys.argv",
        ["assay", "run", "--resume", run_id, "--executor", "ray", "--store", url, "--json"],
    )
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        run_app()  # Ray is connected in this process already: the run uses it, leaves it open
    assert done.value.code == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["benchmark_run"]["phase"] == "completed"
    assert [run["id"] for run in shown["task_runs"]] == [run.id for run in planned]
    assert shown["benchmark_run"]["outcomes"]["verified"] == len(planned)
    assert ray.is_initialized()
