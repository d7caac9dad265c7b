"""The clearinghouse's world data: payers, members and claims, each a CSV named in world.toml
(docs/contracts/healthcare.md §7.1: ISO dates, `active` true/false, dollars as decimals, coinsurance
in percent)."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path
from typing import Any

from assay.errors import SpecError
from assay.formats.files import shown

COLUMNS = {
    "payers": ("payer_id", "name"),
    "members": (
        "member_id",
        "payer_id",
        "last",
        "first",
        "dob",
        "active",
        "plan",
        "copay",
        "deductible",
        "coinsurance",
    ),
    "claims": ("claim_id", "member_id", "status_category", "status_code", "paid"),
}
MONEY = {"members": ("copay", "deductible", "coinsurance"), "claims": ("paid",)}


@dataclass(frozen=True)
class Book:
    payers: dict[str, dict[str, str]]
    members: dict[str, dict[str, str]]
    claims: dict[str, dict[str, str]]


def load_book(root: Path, name: str, options: dict[str, Any], file: str) -> Book:
    tables = {}
    for table, columns in COLUMNS.items():
        if table not in options:
            raise SpecError(file, f"services.{name}.{table}", f"name the {table} CSV")
        tables[table] = _table(root / str(options[table]), table, columns)
    return Book(tables["payers"], tables["members"], tables["claims"])


@lru_cache(maxsize=32)
def _cached(path: Path, stamp: float, name: str) -> dict[str, dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    columns = COLUMNS[name]
    found: dict[str, dict[str, str]] = {}
    for number, row in enumerate(rows, start=2):
        missing = [column for column in columns if not (row.get(column) or "").strip()]
        missing = [column for column in missing if column not in MONEY.get(name, ())]
        if missing:
            raise SpecError(shown(path), f"line {number}", f"missing {', '.join(missing)}")
        for column in MONEY.get(name, ()):
            try:
                Decimal(row.get(column) or "0")
            except InvalidOperation:
                raise SpecError(shown(path), f"line {number}.{column}", "not an amount") from None
        if name == "members" and row["active"] not in ("true", "false"):
            raise SpecError(shown(path), f"line {number}.active", "must be true or false")
        found[row[columns[0]]] = {key: (value or "").strip() for key, value in row.items()}
    return found


def _table(path: Path, name: str, columns: tuple[str, ...]) -> dict[str, dict[str, str]]:
    if not path.is_file():
        raise SpecError(shown(path), None, f"the {name} CSV is not there")
    return _cached(path, path.stat().st_mtime, name)
