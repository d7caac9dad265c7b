"""Exported rows: one per task run, the shape a training pipeline reads, as JSON lines, CSV or
Parquet."""

from __future__ import annotations

import csv
import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assay.runs import prepare, run_benchmark
from assay.runs.export import export_rows, write_csv, write_jsonl
from assay.runs.parquet import write_parquet


@pytest.fixture(scope="module")
def results(shop):
    benchmark = shop
    planned = prepare(benchmark, "reference", ["refund-double-charge", "update-address"])
    done = run_benchmark(benchmark, "reference", planned).task_runs
    failed = done[1].model_copy(
        update={"outcome": "not_scored", "reward": None, "score": None, "verdict": None}
    )
    return [done[0], failed]


def test_a_row_per_task_run_with_axes_and_summary(results):
    first, failed = export_rows("br_1", results)
    assert first == {
        "benchmark_run": "br_1",
        "task_run": results[0].id,
        "task": "refund-double-charge",
        "split": "train",
        "repeat": 0,
        "agent": "reference",
        "status": "completed",
        "outcome": "verified",
        "reward": 1,
        "score": 1.0,
        "verdict": "pass",
        "axes": {"communication": 1.0, "correctness": 1.0, "safety": 1.0},
        "summary": {
            "false_completion": False,
            "duplicate_effects": 0,
            "faults": 0,
            "recovered": False,
            "unnecessary_interruptions": 0,
            "rejected_attempts": 0,
            "turns": 3,
            "termination": "finished",
            "judged_checks": 0,
            "verifier_failures_blamed_on_agent": 0,
            "model_calls": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "model_latency_s": 0.0,
        },
    }
    assert (failed["outcome"], failed["reward"], failed["score"]) == ("not_scored", None, None)
    assert "trajectory" not in first
    assert export_rows("br_1", results, trajectories=True)[0]["trajectory"]["steps"]


def test_json_lines_hold_one_object_per_line(results):
    stream = io.StringIO()
    write_jsonl(export_rows("br_1", results), stream)
    lines = stream.getvalue().splitlines()
    assert [json.loads(line)["task_run"] for line in lines] == [r.id for r in results]


def test_csv_flattens_axes_and_summary_and_leaves_nulls_empty(results):
    stream = io.StringIO()
    write_csv(export_rows("br_1", results), stream)
    text = stream.getvalue()
    assert text.splitlines()[0] == (
        "benchmark_run,task_run,task,split,repeat,agent,status,outcome,reward,score,verdict,"
        "axes.__default__,axes.communication,axes.correctness,axes.safety,"
        "summary.false_completion,summary.duplicate_effects,summary.faults,summary.recovered,"
        "summary.unnecessary_interruptions,summary.rejected_attempts,summary.turns,"
        "summary.termination,summary.judged_checks,summary.verifier_failures_blamed_on_agent,"
        "summary.model_calls,summary.prompt_tokens,summary.completion_tokens,"
        "summary.model_latency_s"
    )
    first, failed = csv.DictReader(io.StringIO(text))
    assert (first["reward"], first["axes.safety"], first["axes.__default__"]) == ("1", "1.0", "")
    assert first["summary.false_completion"] == "false"
    assert (failed["reward"], failed["score"], failed["verdict"]) == ("", "", "")
    assert failed["axes.__default__"] == "1.0"


def test_csv_of_no_task_runs_is_just_the_header():
    stream = io.StringIO()
    write_csv([], stream)
    assert stream.getvalue().startswith("benchmark_run,task_run,task,")
    assert stream.getvalue().count("\n") == 1


def test_parquet_keeps_types_and_nulls(results, tmp_path):
    path = tmp_path / "rows.parquet"
    write_parquet(export_rows("br_1", results), path, trajectories=False)
    table = pq.read_table(path)
    schema = table.schema
    assert (schema.field("reward").type, schema.field("score").type) == (pa.int64(), pa.float64())
    assert schema.field("summary").type.field("false_completion").type == pa.bool_()
    assert schema.field("summary").type.field("termination").type == pa.string()
    assert "trajectory" not in schema.names
    first, failed = table.to_pylist()
    assert (first["reward"], first["axes"]["safety"], first["axes"]["__default__"]) == (
        1,
        1.0,
        None,
    )
    assert (failed["reward"], failed["score"], failed["verdict"]) == (None, None, None)
    assert failed["summary"]["turns"] == results[1].summary.turns


def test_parquet_of_no_task_runs_has_the_columns_and_no_rows(tmp_path):
    path = tmp_path / "rows.parquet"
    write_parquet([], path, trajectories=True)
    table = pq.read_table(path)
    assert table.num_rows == 0
    assert table.schema.names[:3] == ["benchmark_run", "task_run", "task"]
    assert table.schema.names[-2:] == ["summary", "trajectory"]  # no axes: Parquet has no {}
