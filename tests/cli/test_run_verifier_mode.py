"""`assay run --verifier-mode`: task (each task's own mode) or separate (every task), refused
otherwise with one line naming the option; the chosen mode is stored with the run and shown."""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

import pytest
from sandboxkit import make_task
from trialkit import note_verifier_modes
from worldkit import SHOP

from assay.runs import open_benchmark
from assay.runs.plan import PlannedRun
from assay.runs.pool import ProcessExecutor
from assay.world.container.kind import container_kind


@pytest.fixture
def tasks(tmp_path: Path) -> Path:
    folder = tmp_path / "tasks"
    make_task(folder, "shared-task", test_sh="exit 0\n", solve_sh=":\n")
    return folder


@pytest.fixture
def modes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The verifier mode of the task each task run's trial is made for (no sandbox is started)."""
    return note_verifier_modes(monkeypatch, tmp_path / "logs")


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("shared", "--verifier-mode: shared is refused: it would weaken every task that asks"),
        ("seperate", "--verifier-mode: 'seperate' is not task or separate"),
    ],
)
def test_anything_but_task_or_separate_is_exit_2_naming_the_option(
    assay, tasks: Path, modes: list[str], given: str, said: str
) -> None:
    done = assay("run", tasks, "--verifier-mode", given)
    assert done.code == 2
    assert said in done.err and len(done.err.strip().splitlines()) == 1
    assert modes == []  # refused before anything ran


def test_separate_on_a_database_world_is_exit_2(assay) -> None:
    done = assay("run", SHOP, "--verifier-mode", "separate")
    assert done.code == 2
    assert "--verifier-mode: separate is for container-format tasks" in done.err


def test_a_forced_run_verifies_separately_stores_the_mode_and_shows_it(
    assay, tasks: Path, modes: list[str]
) -> None:
    done = assay("run", tasks, "--workers", "1", "--verifier-mode", "separate", "--json")
    assert done.code == 0, done.err
    run = json.loads(done.out)["benchmark_run"]
    assert run["verifier_mode"] == "separate"
    assert modes == ["separate"]  # the task.toml says nothing, so it would have been shared
    shown = assay("show", run["id"], "--json")
    assert json.loads(shown.out)["benchmark_run"]["verifier_mode"] == "separate"
    table = assay("show", run["id"])
    assert "every task verified separately" in table.out


def test_by_default_each_task_keeps_its_own_mode(assay, tasks: Path, modes: list[str]) -> None:
    done = assay("run", tasks, "--workers", "1", "--json")
    assert done.code == 0, done.err
    assert json.loads(done.out)["benchmark_run"]["verifier_mode"] == "task"
    assert modes == ["shared"]
    assert (
        "verified separately" not in assay("show", json.loads(done.out)["benchmark_run"]["id"]).out
    )


def test_a_resumed_run_keeps_its_mode_and_refuses_another(
    assay, tasks: Path, modes: list[str]
) -> None:
    done = assay("run", tasks, "--workers", "1", "--verifier-mode", "separate", "--json")
    run_id = json.loads(done.out)["benchmark_run"]["id"]
    refused = assay("run", "--resume", run_id, "--verifier-mode", "task")
    assert refused.code == 2
    assert f"--verifier-mode: run {run_id} verifies with separate, not task" in refused.err
    again = assay("run", "--resume", run_id, "--verifier-mode", "separate", "--json")
    assert again.code == 0, again.err
    assert json.loads(again.out)["benchmark_run"]["verifier_mode"] == "separate"


def test_worker_processes_load_the_world_with_the_runs_mode(
    tasks: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pool's workers load the world again: the mode travels in their setup."""
    from assay.runs import pool

    handed: list[pool.WorkerSetup] = []

    class Stop(Exception):
        pass

    @contextmanager
    def no_workers(setup: pool.WorkerSetup, count: int):
        handed.append(setup)
        raise Stop
        yield []

    monkeypatch.setattr(pool, "_workers", no_workers)
    benchmark = open_benchmark(tasks, verifier_mode="separate")
    with pytest.raises(Stop):
        ProcessExecutor(2).execute(
            benchmark, "reference", [PlannedRun("tr_1", "shared-task", 0)], print, print
        )
    assert handed[0].verifier_mode == "separate"
    loaded = open_benchmark(handed[0].world, verifier_mode=handed[0].verifier_mode)
    assert container_kind(loaded.world).tasks["shared-task"].config.verifier_mode() == "separate"
