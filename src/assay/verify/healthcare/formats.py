"""Reading a file's fields by its format, for `sftp-file-present`: json (`a.b[0].c`), csv
(`rows[0].amount`, `rows[member_id=W1].copay`, `$count(rows)`), hl7 (`PID.5.1`), x12
(`CLM[CLM01=PCN1].02`, `$count(CLM)`, `$valid`) and text (`$text`, `$count(lines)`)."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from typing import Any

from assay.world.services.healthcare.hl7 import paths as hl7_paths
from assay.world.services.healthcare.paths import read_path
from assay.world.services.healthcare.x12 import paths as x12_paths

FORMATS = ("json", "csv", "hl7", "x12", "text")
ROW_PATH = re.compile(r"^rows\[(?P<select>[^\]]+)\](?:\.(?P<column>.+))?$")


class Unreadable(ValueError):
    """The file is not in the format the check names (the check fails; scoring goes on)."""


def parsed(fmt: str | None, data: bytes) -> Any:
    text = data.decode("utf-8", errors="replace")
    if fmt == "json":
        try:
            return json.loads(text)
        except ValueError as error:
            raise Unreadable(f"not JSON: {error}") from None
    if fmt == "csv":
        return list(csv.DictReader(io.StringIO(text)))
    if fmt == "x12":
        try:
            return (x12_paths.parse(text), text)
        except x12_paths.BadX12 as error:
            raise Unreadable(str(error)) from None
    return text


def value(fmt: str | None, document: Any, path: str) -> Any:
    """The value at `path` in a parsed document, or None."""
    read: Callable[[Any, str], Any] = READERS.get(fmt or "text", _text)
    return read(document, path)


def path_problem(fmt: str | None, path: str) -> str | None:
    """Why `path` cannot be read from a file of this format, or None."""
    try:
        if fmt == "hl7":
            hl7_paths.parse_path(path)
        elif fmt == "x12" and path != "$valid":
            x12_paths.check_path(path)
        elif fmt == "csv" and path != "$count(rows)" and ROW_PATH.match(path) is None:
            return (
                f"{path!r} is not a CSV path like rows[0].amount, rows[id=7].amount, $count(rows)"
            )
        elif fmt in (None, "text") and path not in ("$text", "$count(lines)"):
            return f"{path!r}: a text file has $text and $count(lines)"
        elif fmt == "json" and "" in _json_steps(path):
            return f"{path!r} has an empty step"
    except ValueError as error:
        return str(error)
    return None


def _json_steps(path: str) -> list[str]:
    return re.sub(r"\[(\d+)\]", r".\1", path).split(".")


def _json(document: Any, path: str) -> Any:
    return read_path(document, ".".join(_json_steps(path)))


def _csv(rows: list[dict[str, str]], path: str) -> Any:
    if path == "$count(rows)":
        return len(rows)
    found = ROW_PATH.match(path)
    if found is None:
        return None
    select = found["select"]
    if select.isdigit():
        chosen = rows[int(select)] if int(select) < len(rows) else None
    else:
        column, _, wanted = select.partition("=")
        chosen = next((row for row in rows if row.get(column.strip()) == wanted.strip()), None)
    if chosen is None:
        return None
    return chosen if found["column"] is None else chosen.get(found["column"])


def _hl7(text: str, path: str) -> Any:
    return hl7_paths.read(text, path)


def _x12(document: tuple[Any, str], path: str) -> Any:
    if path == "$valid":
        from assay.world.services.healthcare.x12.validate import validate

        return validate(document[1]).valid
    return x12_paths.read(document[0], path)


def _text(text: str, path: str) -> Any:
    if path == "$count(lines)":
        return len(text.splitlines())
    return text if path == "$text" else None


READERS: dict[str, Callable[[Any, str], Any]] = {
    "json": _json,
    "csv": _csv,
    "hl7": _hl7,
    "x12": _x12,
    "text": _text,
}
