"""What a task run changed: per table the rows added, changed and removed against the starting
state, and the requests the world's services received; small and capped, to store with the run."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from assay.world.database import WorldCopy
from assay.world.reserved import RESERVED_TABLES
from assay.world.starting import StartingState

ROWS_SHOWN = 20  # per table and kind of change
TABLES_SHOWN = 20
REQUESTS_SHOWN = 50
VALUE_CHARS = 300  # a longer text is cut, with the length it had
ROWS_COMPARED = 50_000  # a larger table is named, not compared
# tuples: a union written in the call (`str | int | …`) is built again each time
_PLAIN = (str, int, float, bool, type(None))
_BINARY = (bytes, bytearray, memoryview)


class ChangedRow(BaseModel, defer_build=True):
    """A row kept by its key with some columns changed: each as [before, after]."""

    key: Any
    columns: dict[str, tuple[Any, Any]]


class TableChanges(BaseModel, defer_build=True):
    table: str
    key: str | None  # the column rows are matched by; None where rows are matched whole
    added: list[dict[str, Any]] = []
    changed: list[ChangedRow] = []
    removed: list[dict[str, Any]] = []
    left_out: int = 0  # rows past the cap, of all three kinds
    not_compared: str | None = None  # why the table could not be compared


class ServiceRequest(BaseModel, defer_build=True):
    turn: int
    service: str
    operation: str
    status: str
    payload: Any
    response: Any
    duplicate_of: int | None = None


class StateChanges(BaseModel, defer_build=True):
    tables: list[TableChanges] = []
    tables_left_out: int = 0
    requests: list[ServiceRequest] = []
    requests_left_out: int = 0


def state_changes(
    starting: StartingState, final: WorldCopy, tables: Mapping[str, Sequence[str]]
) -> StateChanges:
    """The changes from the `starting` state to `final` over `tables` (each with its column names;
    the reserved ones become requests). A table whose changed rows a log names is compared over
    those rows alone, any other read whole."""
    compared = {
        table: columns for table, columns in sorted(tables.items()) if table not in RESERVED_TABLES
    }
    keys = {table: _key_columns(columns) for table, columns in compared.items()}
    logged = final.changed_rows(keys)
    found = []
    for table, columns in compared.items():
        if table in logged:
            rows = logged[table]
            key = _key_column(columns) if rows.key_unique else None
            changes = _compared(table, rows.before, rows.after, key)
        else:
            changes = _table_changes(starting, final, table)
        if changes is not None:
            found.append(changes)
    requests, requests_left_out = _requests(starting, final)
    return StateChanges(
        tables=found[:TABLES_SHOWN],
        tables_left_out=max(len(found) - TABLES_SHOWN, 0),
        requests=requests,
        requests_left_out=requests_left_out,
    )


def _table_changes(starting: StartingState, final: WorldCopy, table: str) -> TableChanges | None:
    try:
        size = _count(starting.value(f'SELECT count(*) FROM "{table}"'))
        if size <= ROWS_COMPARED:
            names, found = final.table_rows(table, ROWS_COMPARED + 1)
            if len(found) <= ROWS_COMPARED:
                before = starting.rows(f'SELECT * FROM "{table}"')
                after = [dict(zip(names, row, strict=True)) for row in found]
                return table_changes(table, before, after)
        size = max(size, _count(final.value(f'SELECT count(*) FROM "{table}"')))
        return TableChanges(table=table, key=None, not_compared=f"{size} rows: too many")
    except Exception as failure:  # a diff is a view of the run: a table it cannot read is named
        return TableChanges(table=table, key=None, not_compared=str(failure).splitlines()[0])


def table_changes(
    table: str, before: Sequence[dict[str, Any]], after: Sequence[dict[str, Any]]
) -> TableChanges | None:
    """Rows matched by their `id` column (else their first), or whole where that is not unique;
    None when nothing changed."""
    key = _key_column(list(before[0] if before else after[0] if after else ()))
    if key is None or not (_unique(before, key) and _unique(after, key)):
        key = None
    return _compared(table, before, after, key)


def _compared(
    table: str, before: Sequence[dict[str, Any]], after: Sequence[dict[str, Any]], key: str | None
) -> TableChanges | None:
    """The rows matched by `key` (whole where it is None); None when nothing changed."""
    old = {_identity(row, key): row for row in before}
    new = {_identity(row, key): row for row in after}
    added = [_shown(new[k]) for k in new.keys() - old.keys()]
    removed = [_shown(old[k]) for k in old.keys() - new.keys()]
    changed = [
        ChangedRow(key=k, columns=_changed_columns(old[k], new[k]))
        for k in old.keys() & new.keys()
        if key is not None and old[k] != new[k]
    ]
    if not (added or removed or changed):
        return None
    left_out = sum(max(len(kind) - ROWS_SHOWN, 0) for kind in (added, changed, removed))
    by_key = sorted(changed, key=lambda row: str(row.key))
    return TableChanges(
        table=table,
        key=key,
        added=sorted(added, key=_order)[:ROWS_SHOWN],
        changed=by_key[:ROWS_SHOWN],
        removed=sorted(removed, key=_order)[:ROWS_SHOWN],
        left_out=left_out,
    )


def _requests(starting: StartingState, final: WorldCopy) -> tuple[list[ServiceRequest], int]:
    """The requests the world's services hold; those it started with where none was sent."""
    sql = "SELECT * FROM sandbox_requests ORDER BY id"
    try:
        rows = final.rows(sql) if final.may_have_changed("sandbox_requests") else starting.rows(sql)
    except Exception:  # a world without the reserved tables received no request
        return [], 0
    shown = [
        ServiceRequest(
            turn=row["turn"],
            service=row["service"],
            operation=row["operation"],
            status=row["status"],
            payload=_decoded(row["payload"]),
            response=_decoded(row["response"]),
            duplicate_of=row.get("duplicate_of"),
        )
        for row in rows[:REQUESTS_SHOWN]
    ]
    return shown, max(len(rows) - REQUESTS_SHOWN, 0)


def _count(value: Any) -> int:
    return int(value or 0)


def _key_column(columns: Sequence[str]) -> str | None:
    return "id" if "id" in columns else columns[0] if columns else None


def _key_columns(columns: Sequence[str]) -> tuple[str, ...]:
    """The columns `_key_of` reads: a FHIR resource is keyed by its type and id together."""
    key = _key_column(columns)
    if key == "id" and "resource_type" in columns:
        return ("resource_type", "id")
    return () if key is None else (key,)


def _unique(rows: Sequence[dict[str, Any]], key: str) -> bool:
    return len({_key_of(row, key) for row in rows}) == len(rows)


def _identity(row: dict[str, Any], key: str | None) -> Any:
    if key is not None:
        return _key_of(row, key)
    return json.dumps(row, sort_keys=True, default=str)


def _key_of(row: dict[str, Any], key: str) -> Any:
    """The row's key; a FHIR resource's id is unique only within its type: `Patient/p1`."""
    if key == "id" and "resource_type" in row:
        return f"{row['resource_type']}/{row['id']}"
    return _hashable(row.get(key))


def _hashable(value: Any) -> Any:
    return value if isinstance(value, _PLAIN) else str(value)


def _changed_columns(old: dict[str, Any], new: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Each changed column as (before, after); a column holding a JSON object (a FHIR resource, a
    payload) by each changed element instead, as `column.element`."""
    changed: dict[str, tuple[Any, Any]] = {}
    for name in dict.fromkeys([*old, *new]):
        before, after = old.get(name), new.get(name)
        if before == after:
            continue
        elements = _object(before), _object(after)
        if elements[0] is not None and elements[1] is not None:
            for element in dict.fromkeys([*elements[0], *elements[1]]):
                was, now = elements[0].get(element), elements[1].get(element)
                if was != now:
                    changed[f"{name}.{element}"] = (_shown_value(was), _shown_value(now))
        else:
            changed[name] = (_value(before), _value(after))
    return changed


def _object(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, str) or not value.startswith("{"):
        return None
    try:
        found = json.loads(value)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def _shown_value(value: Any) -> Any:
    """An element of a JSON object as a page shows it: nested ones as compact text, cut."""
    if isinstance(value, dict | list):
        return _value(json.dumps(value, ensure_ascii=False, sort_keys=True))
    return _value(value)


def _shown(row: dict[str, Any]) -> dict[str, Any]:
    return {name: _value(value) for name, value in row.items()}


def _order(row: dict[str, Any]) -> str:
    return json.dumps(row, sort_keys=True, default=str)


def _value(value: Any) -> Any:
    """A value as a page shows it: bytes by their length, long text cut with its length."""
    if isinstance(value, _BINARY):
        return f"<{len(bytes(value))} bytes>"
    if isinstance(value, str) and len(value) > VALUE_CHARS:
        return f"{value[:VALUE_CHARS]}… ({len(value)} characters)"
    if isinstance(value, _PLAIN):
        return value
    return str(value)


def _decoded(text: str | None) -> Any:
    """A stored payload or response, decoded from JSON where it is JSON; long text cut."""
    if text is None:
        return None
    try:
        return _capped(json.loads(text))
    except (TypeError, ValueError):
        return _value(text)


def _capped(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _capped(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_capped(item) for item in value]
    return _value(value)
