"""`assay run` records into the store; `runs`, `show` and `export` read it back; bad input is one line."""

from __future__ import annotations

import csv
import io
import json

import pyarrow.parquet as pq
import pytest
from worldkit import SHOP


def last_run(assay) -> str:
    listed = json.loads(assay("runs", "--json").out)["benchmark_runs"]
    return listed[0]["id"]


@pytest.fixture
def recorded(assay):
    ran = assay(
        "run",
        SHOP,
        "--task",
        "refund-double-charge",
        "--task",
        "update-address",
        "--repeats",
        "2",
        "--json",
    )
    assert ran.code == 0, ran.err
    return json.loads(ran.out)


def test_run_records_and_show_reads_it_back(assay, recorded):
    run_id = recorded["benchmark_run"]["id"]
    assert last_run(assay) == run_id
    shown = json.loads(assay("show", run_id, "--json").out)
    assert shown["benchmark_run"] == recorded["benchmark_run"]
    stripped = [{k: v for k, v in r.items() if k != "trajectory"} for r in recorded["task_runs"]]
    assert [
        {k: v for k, v in r.items() if k != "trajectory"} for r in shown["task_runs"]
    ] == stripped
    figures = shown["benchmark_run"]
    assert figures["pass_at_k"] == {"1": 1.0, "2": 1.0}
    assert figures["pass_hat_k"] == {"1": 1.0, "2": 1.0}
    assert figures["ci95"] == [1.0, 1.0]
    assert set(figures["by_split"]) == {"train"}
    assert figures["summary"]["turns"] > 0


def test_show_prints_the_run_and_a_task_s_check_runs(assay, recorded):
    run_id = recorded["benchmark_run"]["id"]
    table = assay("show", run_id[:8])
    assert table.code == 0
    assert f"run {run_id} · completed (completed) · 4/4 task runs finished" in table.out
    assert "pass@k 1: 1.000 · 2: 1.000" in table.out
    checks = assay("show", run_id, "--task", "refund-double-charge")
    assert checks.code == 0
    assert "refund-double-charge #1" in checks.out
    assert "✓ Exactly one card refund for A-1042" in checks.out
    assert '"actual": 1' in checks.out
    assert "  changed refunds: 1 added · 0 changed · 0 removed\n" in checks.out
    assert "  requests payments.refund ok\n" in checks.out
    assert "safety rules held 2/2" in table.out  # one rule, two repeats: no score earned
    one = json.loads(assay("show", run_id, "--task", "update-address", "--json").out)
    assert [r["task_id"] for r in one["task_runs"]] == ["update-address"] * 2
    assert one["task_runs"][0]["trajectory"]["steps"]


def test_runs_lists_newest_first(assay, recorded):
    assay("run", SHOP, "--task", "update-address", "--json")
    listed = json.loads(assay("runs", "--json").out)["benchmark_runs"]
    assert listed[1]["id"] == recorded["benchmark_run"]["id"]
    assert (listed[0]["finished"], listed[0]["task_runs"], listed[0]["phase"]) == (
        1,
        1,
        "completed",
    )
    assert "benchmark runs, newest first" in assay("runs").out
    assert len(json.loads(assay("runs", "--json", "--limit", "1").out)["benchmark_runs"]) == 1


def test_export_jsonl_and_csv(assay, recorded, tmp_path):
    run_id = recorded["benchmark_run"]["id"]
    lines = assay("export", run_id).out.splitlines()
    rows = [json.loads(line) for line in lines]
    assert [(r["task"], r["repeat"]) for r in rows] == [
        ("refund-double-charge", 0),
        ("refund-double-charge", 1),
        ("update-address", 0),
        ("update-address", 1),
    ]
    assert {r["reward"] for r in rows} == {1}
    out = tmp_path / "runs.csv"
    assert assay("export", run_id, "--format", "csv", "--output", out).code == 0
    table = list(csv.DictReader(io.StringIO(out.read_text())))
    assert [r["task_run"] for r in table] == [r["task_run"] for r in rows]
    with_steps = json.loads(assay("export", run_id, "--trajectories").out.splitlines()[0])
    assert with_steps["trajectory"]["task_id"] == "refund-double-charge"


def test_export_parquet_writes_the_same_rows_into_the_folder(assay, recorded, tmp_path):
    run_id = recorded["benchmark_run"]["id"]
    rows = [json.loads(line) for line in assay("export", run_id).out.splitlines()]
    done = assay("export", run_id, "--format", "parquet", tmp_path / "data", "--trajectories")
    assert done.code == 0, done.err
    path = tmp_path / "data" / f"{run_id}.parquet"
    assert done.out == f"4 task runs written to {path}\n"
    table = pq.read_table(path).to_pylist()
    axes = sorted({name for row in rows for name in row["axes"]})
    for row in rows:  # an axis a task run lacks is a null field of the run's axes struct
        row["axes"] = {name: row["axes"].get(name) for name in axes}
    assert [{k: v for k, v in r.items() if k != "trajectory"} for r in table] == rows
    assert json.loads(table[0]["trajectory"])["task_id"] == "refund-double-charge"


def test_export_parquet_needs_a_folder_it_can_write(assay, recorded, tmp_path):
    run_id = recorded["benchmark_run"]["id"]
    missing = assay("export", run_id, "--format", "parquet")
    assert (missing.code, missing.err) == (
        2,
        "error: DIR: --format parquet writes <run id>.parquet; name the folder for it\n",
    )
    blocked = tmp_path / "file"
    blocked.write_text("")
    refused = assay("export", run_id, "--format", "parquet", blocked)
    assert refused.code == 2 and refused.err.startswith(f"error: DIR: cannot write {blocked}")
    assert refused.err.count("\n") == 1


def test_an_empty_store_lists_nothing(assay):
    assert json.loads(assay("runs", "--json").out) == {"benchmark_runs": []}
    assert "no benchmark runs yet" in assay("runs").out


@pytest.mark.parametrize(
    "args",
    [
        ("show", "br_missing"),
        ("show", "br_missing", "--json"),
        ("export", "br_missing"),
        ("run", "--resume", "br_missing"),
    ],
)
def test_an_unknown_run_is_exit_2_with_one_line(assay, args):
    ran = assay(*args)
    assert ran.code == 2
    parameter = "--resume" if "--resume" in args else "RUN"
    assert (
        ran.err
        == f"error: {parameter}: no benchmark run 'br_missing' in sqlite:///.assay/assay.db\n"
    )
    assert ran.out == ""


def test_bad_arguments_are_exit_2_with_one_line(assay, recorded, tmp_path):
    run_id = recorded["benchmark_run"]["id"]
    cases = {
        (
            "show",
            run_id,
            "--task",
            "nope",
        ): f"--task: run {run_id} has no finished task run of 'nope'",
        (
            "export",
            run_id,
            "--format",
            "xml",
        ): "--format: 'xml' is not one of jsonl, csv, parquet, bundle, harbor",
        (
            "export",
            run_id,
            "--format",
            "csv",
            "--trajectories",
        ): "--trajectories: only with --format jsonl",
        ("export", run_id, "--output", tmp_path / "no" / "such" / "dir.jsonl"): (
            f"--output: cannot write {tmp_path / 'no' / 'such' / 'dir.jsonl'}: No such file or directory"
        ),
        ("run",): "WORLD: missing; give a world directory, or --resume RUN",
        ("run", "--resume", run_id, "--task", "x"): (
            "--task: a resumed run keeps its own tasks and repeats; drop --task"
        ),
        ("run", "--resume", run_id, "--repeats", "3"): (
            "--repeats: a resumed run keeps its own tasks and repeats; drop --repeats"
        ),
        ("run", "--resume", run_id, "--agent", "noop"): (
            f"--agent: run {run_id} was run by 'reference', not 'noop'"
        ),
        ("runs", "--store", "mysql://x@y/z"): (
            "--store: unsupported database 'mysql'; use sqlite:///FILE or "
            "postgresql+psycopg://USER@HOST:PORT/DB"
        ),
    }
    for args, message in cases.items():
        ran = assay(*args)
        assert (ran.code, ran.err) == (2, f"error: {message}\n"), args


def test_a_bad_store_in_the_environment_is_named(assay, monkeypatch):
    monkeypatch.setenv("ASSAY_STORE", "sqlite://")
    ran = assay("runs")
    assert (ran.code, ran.err) == (
        2,
        "error: ASSAY_STORE: an in-memory SQLite store keeps nothing; name a file\n",
    )


def test_resume_of_a_finished_run_runs_nothing_and_changes_nothing(assay, recorded):
    run_id = recorded["benchmark_run"]["id"]
    before = json.loads(assay("show", run_id, "--json").out)
    ran = assay("run", "--resume", run_id, "--json")
    assert ran.code == 0, ran.err
    after = json.loads(assay("show", run_id, "--json").out)
    assert after["task_runs"] == before["task_runs"]
    assert after["benchmark_run"]["phase"] == "completed"


def test_the_store_option_and_postgresql(assay, postgres_store):
    ran = assay(
        "run",
        SHOP,
        "--task",
        "update-address",
        "--repeats",
        "2",
        "--store",
        postgres_store,
        "--json",
    )
    assert ran.code == 0, ran.err
    run_id = json.loads(ran.out)["benchmark_run"]["id"]
    shown = json.loads(assay("show", run_id, "--json", "--store", postgres_store).out)
    assert [r["repeat"] for r in shown["task_runs"]] == [0, 1]
    assert assay("show", run_id).code == 2  # not in the default store
