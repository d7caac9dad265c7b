"""The statements of `assay run`'s path and a new store's DDL, compiled for SQLite: read from
`sqlite_statements.json`, which `python -m assay.runs.store.generate` makes from statements.py
and tables.py.

STATEMENTS: name → (SQL, its parameters in order, the literals among them, each parameter's bind
processing, the columns of its rows, each column's result processing); DDL: a new store's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_TABLE = json.loads(Path(__file__).with_name("sqlite_statements.json").read_text(encoding="utf-8"))

HEAD: str = _TABLE["HEAD"]
DDL: tuple[str, ...] = tuple(_TABLE["DDL"])
STATEMENTS: dict[str, tuple[Any, ...]] = {
    name: (sql, tuple(names), literals, tuple(binds), tuple(columns), tuple(results))
    for name, (sql, names, literals, binds, columns, results) in _TABLE["STATEMENTS"].items()
}
del _TABLE
