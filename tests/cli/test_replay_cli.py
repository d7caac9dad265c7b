"""`assay run --agent replay:…` without --task: the trajectories say which tasks they replay."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from worldkit import SHOP

TASKS = ("refund-double-charge", "update-address")


# one process: the task runs are few and a pool's start-up would dwarf them
SERIAL = ("--workers", "1")


def _ran(done) -> dict[tuple[str, int], str]:
    """Each task run's final-state hash, by task and repeat."""
    assert done.code == 0, done.err
    runs = json.loads(done.out)["task_runs"]
    assert all(run["outcome"] == "verified" for run in runs)
    return {(run["task_id"], run["repeat"]): run["final_state_hash"] for run in runs}


def _reference(assay, saved: Path, repeats: int = 1) -> tuple[str, dict[tuple[str, int], str]]:
    chosen = [arg for task in TASKS for arg in ("--task", task)]
    done = assay(
        "run",
        SHOP,
        *SERIAL,
        *chosen,
        "--repeats",
        str(repeats),
        "--save-trajectories",
        saved,
        "--json",
    )
    return json.loads(done.out)["benchmark_run"]["id"], _ran(done)


def test_a_file_replays_its_own_task(assay, tmp_path):
    _, first = _reference(assay, tmp_path / "saved")
    (file,) = (tmp_path / "saved").glob("update-address-*.json")
    again = _ran(assay("run", SHOP, *SERIAL, "--agent", f"replay:{file}", "--json"))
    assert again == {("update-address", 0): first[("update-address", 0)]}


def test_a_directory_replays_each_task_run_of_each_task(assay, tmp_path):
    _, first = _reference(assay, tmp_path / "saved", repeats=2)
    again = _ran(assay("run", SHOP, *SERIAL, "--agent", f"replay:{tmp_path / 'saved'}", "--json"))
    assert again == first
    assert len(again) == 4
    one = _ran(
        assay(
            "run",
            SHOP,
            *SERIAL,
            "--agent",
            f"replay:{tmp_path / 'saved'}",
            "--task",
            TASKS[0],
            "--json",
        )
    )
    assert set(one) == {(TASKS[0], 0), (TASKS[0], 1)}


def test_a_stored_run_replays_every_task_run(assay, tmp_path):
    run_id, first = _reference(assay, tmp_path / "saved")
    done = assay("run", SHOP, *SERIAL, "--agent", f"replay:run:{run_id}", "--json")
    assert _ran(done) == first
    agent = json.loads(done.out)["benchmark_run"]["agent"]
    assert agent.startswith("replay:") and agent.endswith(run_id)


def test_replays_that_do_not_fit_are_one_line(assay, tmp_path):
    saved = tmp_path / "saved"
    _reference(assay, saved)
    (file,) = saved.glob("update-address-*.json")
    uneven = tmp_path / "uneven"
    shutil.copytree(saved, uneven)
    shutil.copy(file, uneven / "update-address-again.json")
    record = json.loads(file.read_text())
    record["repeat"] = 1
    (uneven / "update-address-again.json").write_text(json.dumps(record))
    cases = {
        (f"replay:{file}", "--task", TASKS[0]): f"error: --task: {file} has no trajectory of "
        f"task {TASKS[0]} (it has: update-address)",
        (f"replay:{uneven}",): f"error: --agent: {uneven} holds 1 trajectories of some tasks "
        "and 2 of others",
        (f"replay:{saved}", "--repeats", "2"): "error: --repeats: ",
        ("replay:run:br_nothing",): "error: --agent: no benchmark run 'br_nothing'",
        (f"replay:{tmp_path / 'empty'}",): "error: --agent: cannot read",
    }
    (tmp_path / "empty").mkdir()
    cases[(f"replay:{tmp_path / 'empty'}",)] = "error: --agent: "
    for (agent, *rest), said in cases.items():
        done = assay("run", SHOP, *SERIAL, "--agent", agent, *rest)
        assert done.code == 2, (agent, done.out)
        (line,) = done.err.splitlines()
        assert line.startswith(said), line
