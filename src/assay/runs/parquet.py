"""A benchmark run's exported rows as one Parquet file, the columnar form dataset tooling reads
(pandas, polars, DuckDB, Hugging Face `datasets`); needs the `parquet` extra (pyarrow)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from assay.score.summary import Summary

SUFFIX = ".parquet"
_TEXT = pa.string()
_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("benchmark_run", _TEXT),
    ("task_run", _TEXT),
    ("task", _TEXT),
    ("split", _TEXT),
    ("repeat", pa.int64()),
    ("agent", _TEXT),
    ("status", _TEXT),
    ("outcome", _TEXT),
    ("reward", pa.int64()),
    ("score", pa.float64()),
    ("verdict", _TEXT),
)
_SUMMARY_TYPES: dict[object, Any] = {bool: pa.bool_(), int: pa.int64(), float: pa.float64()}


def row_schema(rows: Sequence[dict[str, Any]], *, trajectories: bool) -> pa.Schema:
    """The columns of `export_rows`: `axes` a struct of every axis seen in the run (null where a
    task run has none; no column when no task run has one, as Parquet has no empty struct),
    `summary` a struct of the summary's fields, `trajectory` JSON text."""
    axes = sorted({name for row in rows for name in row["axes"]})
    fields = [pa.field(name, kind) for name, kind in _COLUMNS]
    if axes:
        fields.append(pa.field("axes", pa.struct([pa.field(name, pa.float64()) for name in axes])))
    fields.append(pa.field("summary", pa.struct(_summary_fields())))
    if trajectories:
        fields.append(pa.field("trajectory", _TEXT))
    return pa.schema(fields)


def _summary_fields() -> list[pa.Field]:
    return [
        pa.field(name, _SUMMARY_TYPES.get(info.annotation, _TEXT))
        for name, info in Summary.model_fields.items()
    ]


def write_parquet(rows: Sequence[dict[str, Any]], path: Path, *, trajectories: bool) -> None:
    """Write `rows` (from `export_rows`) to `path`, one Parquet row per task run."""
    schema = row_schema(rows, trajectories=trajectories)
    if trajectories:
        rows = [{**row, "trajectory": json.dumps(row["trajectory"])} for row in rows]
    table = pa.Table.from_pylist(list(rows), schema=schema)
    pq.write_table(table, path)
