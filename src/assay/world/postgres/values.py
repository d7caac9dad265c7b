"""Values as SQLite would return them: integers and floats for numbers, text for JSON and dates.

Checks and the final-state hash then see the same Python values on either backend.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.adapt import AdaptersMap, Loader
from psycopg.types.string import TextLoader

TEXT_TYPES = ("json", "jsonb", "date", "time", "timetz", "timestamp", "timestamptz", "interval")


class NumberLoader(Loader):
    """`numeric` as int when it has no fraction part (as SQLite's integers), else float."""

    def load(self, data: Any) -> int | float:
        text = bytes(data).decode()
        try:
            return int(text)
        except ValueError:
            return float(text)


class FlagLoader(Loader):
    """`boolean` as 1 or 0: SQLite has no booleans."""

    def load(self, data: Any) -> int:
        return 1 if bytes(data) == b"t" else 0


def sqlite_values() -> AdaptersMap:
    """The adapters every world connection uses."""
    adapters = AdaptersMap(psycopg.adapters)
    adapters.register_loader("numeric", NumberLoader)
    adapters.register_loader("bool", FlagLoader)
    for name in TEXT_TYPES:
        adapters.register_loader(name, TextLoader)
    return adapters
