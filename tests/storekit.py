"""The records store read from the outside, as a test of a finished command sees it."""

from __future__ import annotations

from sqlalchemy import create_engine, text


def query(url: str, sql: str) -> list[tuple]:
    """The rows `sql` returns from the store at `url`, on a connection of its own."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text(sql))]
    finally:
        engine.dispose()
