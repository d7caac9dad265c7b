"""Seed data from `.sql`, `.csv` or `.jsonl` files; a CSV or JSONL file fills the table named by its stem."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

from assay.errors import SpecError
from assay.formats.files import read_text, shown


class SeedTarget(Protocol):
    """A database being built: runs a script, inserts rows, and names the errors it raises."""

    errors: tuple[type[Exception], ...]

    def run_script(self, text: str) -> None: ...

    def execute(self, sql: str, *params: Any) -> Any: ...

    def execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    def savepoint(self) -> AbstractContextManager[None]: ...


def load_seed(connection: SeedTarget, path: Path) -> None:
    loaders = {".sql": _load_sql, ".csv": _load_csv, ".jsonl": _load_jsonl}
    loader = loaders.get(path.suffix.lower())
    if loader is None:
        raise SpecError(shown(path), None, "seed files are .sql, .csv or .jsonl")
    if not path.is_file():
        raise SpecError(shown(path), None, "seed file not found")
    try:
        loader(connection, path)
    except connection.errors as error:
        raise SpecError(shown(path), None, f"seed failed: {first_line(error)}") from None


def first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _load_sql(connection: SeedTarget, path: Path) -> None:
    connection.run_script(read_text(path))


def _load_csv(connection: SeedTarget, path: Path) -> None:
    reader = csv.reader(io.StringIO(read_text(path), newline=""))
    try:
        header = next(reader, [])
        rows = _csv_rows(path, reader, header)
    except csv.Error as error:
        raise SpecError(shown(path), f"line {reader.line_num}", f"not CSV: {error}") from None
    _insert(connection, path, path.stem, header, rows)


def _csv_rows(path: Path, reader: Any, header: list[str]) -> list[dict[str, Any]]:
    """Every record as a dict; a record with more or fewer fields than the header is an error."""
    rows = []
    for record in reader:
        if not record:
            continue  # a blank line
        if len(record) != len(header):
            raise SpecError(
                shown(path),
                f"line {reader.line_num}",
                f"{len(record)} fields where the header has {len(header)}",
            )
        rows.append(
            {
                key: (value if value != "" else None)
                for key, value in zip(header, record, strict=True)
            }
        )
    return rows


def _load_jsonl(connection: SeedTarget, path: Path) -> None:
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
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
    connection: SeedTarget,
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
    values = [[_plain(row.get(column)) for column in columns] for row in rows]
    try:
        with connection.savepoint():
            connection.execute_many(statement, values)
        return
    except connection.errors:
        pass  # the batch was undone; insert row by row to name the line that fails
    for number, row_values in enumerate(values, start=2 if path.suffix == ".csv" else 1):
        try:
            connection.execute(statement, *row_values)
        except connection.errors as error:
            raise SpecError(
                shown(path), f"line {number}", f"seed failed: {first_line(error)}"
            ) from None


def _plain(value: Any) -> Any:
    return json.dumps(value) if isinstance(value, dict | list) else value
