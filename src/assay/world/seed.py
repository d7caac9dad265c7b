"""Seed data from `.sql`, `.csv` or `.jsonl` files; a CSV or JSONL file fills the table named by its stem."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path
from typing import Any

from assay.errors import SpecError
from assay.spec.files import shown


def load_seed(connection: sqlite3.Connection, path: Path) -> None:
    loaders = {".sql": _load_sql, ".csv": _load_csv, ".jsonl": _load_jsonl}
    loader = loaders.get(path.suffix.lower())
    if loader is None:
        raise SpecError(shown(path), None, "seed files are .sql, .csv or .jsonl")
    if not path.is_file():
        raise SpecError(shown(path), None, "seed file not found")
    try:
        loader(connection, path)
    except sqlite3.Error as error:
        raise SpecError(shown(path), None, f"seed failed: {error}") from None


def _load_sql(connection: sqlite3.Connection, path: Path) -> None:
    connection.executescript(path.read_text(encoding="utf-8"))


def _load_csv(connection: sqlite3.Connection, path: Path) -> None:
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        rows = [
            {key: (value if value != "" else None) for key, value in row.items()} for row in reader
        ]
    _insert(connection, path, path.stem, list(reader.fieldnames or []), rows)


def _load_jsonl(connection: sqlite3.Connection, path: Path) -> None:
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise SpecError(shown(path), f"line {number}", f"not JSON: {error.msg}") from None
        if not isinstance(row, dict):
            raise SpecError(shown(path), f"line {number}", "each line is one JSON object")
        rows.append(row)
    columns = sorted({key for row in rows for key in row})
    _insert(connection, path, path.stem, columns, rows)


def _insert(
    connection: sqlite3.Connection,
    path: Path,
    table: str,
    columns: list[str],
    rows: list[dict[str, Any]],
) -> None:
    if not rows:
        return
    quoted = ", ".join(f'"{column}"' for column in columns)
    marks = ", ".join("?" for _ in columns)
    statement = f'INSERT INTO "{table}" ({quoted}) VALUES ({marks})'
    for number, row in enumerate(rows, start=2 if path.suffix == ".csv" else 1):
        values = [_plain(row.get(column)) for column in columns]
        try:
            connection.execute(statement, values)
        except sqlite3.Error as error:
            raise SpecError(shown(path), f"line {number}", f"seed failed: {error}") from None


def _plain(value: Any) -> Any:
    return json.dumps(value) if isinstance(value, dict | list) else value
