"""`--format table|plain|json` on the commands that print tables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from worldkit import LONG_ID, shop_with_a_long_task_id


@pytest.fixture
def long_world(tmp_path: Path) -> Path:
    return shop_with_a_long_task_id(tmp_path / "shop")


def _run_id(assay, world: Path, *tasks: str) -> str:
    chosen = [arg for task in tasks for arg in ("--task", task)]
    done = assay("run", world, "--workers", "1", "--agent", "noop", *chosen, "--json")
    assert done.code == 0, done.err
    return json.loads(done.out)["benchmark_run"]["id"]


def test_plain_rows_split_by_tabs(assay, long_world):
    done = assay(
        "run", long_world, "--workers", "1", "--agent", "noop", "--task", LONG_ID, "--task", "update-address",
        "--format", "plain",
    )  # fmt: skip
    assert done.code == 0, done.err
    header, *rows = done.out.splitlines()
    columns = header.split("\t")
    assert columns == ["task", "outcome", "score", "verdict", "summary", "failed checks"]
    cells = [dict(zip(columns, row.split("\t"), strict=True)) for row in rows]
    assert [(cell["task"], cell["outcome"]) for cell in cells] == [
        (LONG_ID, "not_achieved"),
        ("update-address", "not_achieved"),
    ]
    assert cells[0]["failed checks"].count("✗") == 3  # several failures stay on their row
    assert "benchmark run br_" in done.err  # the run id is not lost, nor mixed with rows


def test_plain_for_runs_validate_and_compare(assay, long_world):
    a = _run_id(assay, long_world, LONG_ID, "update-address")
    b = _run_id(assay, long_world, LONG_ID, "update-address")
    runs = assay("runs", "--format", "plain").out.splitlines()
    assert runs[0].split("\t")[:3] == ["run", "world", "agent"]
    assert {row.split("\t")[0] for row in runs[1:]} >= {a, b}
    compared = assay("compare", a, b, "--format", "plain").out.splitlines()
    assert compared[0].split("\t")[:2] == ["task", "change"]
    assert {row.split("\t")[0] for row in compared[1:]} == {LONG_ID, "update-address"}
    validated = assay("validate", long_world, "--task", LONG_ID, "--format", "plain")
    assert validated.code == 0, validated.err
    header, row = validated.out.splitlines()
    assert header.split("\t")[:3] == ["task", "split", "static"]
    assert row.split("\t")[0] == LONG_ID
    listed = assay("validate", long_world, "--list", "--format", "plain").out
    assert f"{LONG_ID}\t" in listed


def test_format_json_is_the_json_option(assay, long_world):
    a = _run_id(assay, long_world, LONG_ID)
    b = _run_id(assay, long_world, LONG_ID)
    for args in (["show", a], ["runs"], ["compare", a, b], ["show", a, "--task", LONG_ID]):
        as_option = assay(*args, "--json")
        as_format = assay(*args, "--format", "json")
        assert as_option.code == as_format.code == 0, as_format.err
        assert json.loads(as_format.out) == json.loads(as_option.out)


@pytest.mark.parametrize(
    "args",
    [
        ["runs", "--format", "xml"],
        ["runs", "--json", "--format", "plain"],
        ["show", "br_any", "--task", "some-task", "--format", "plain"],
        ["compare", "br_a", "br_b", "--format", "csv"],
    ],
)
def test_a_bad_format_is_one_line(assay, args):
    done = assay(*args)
    assert done.code == 2
    assert done.out == ""
    (line,) = done.err.splitlines()
    assert line.startswith("error: --format:")
