"""What every part of the records store reads of the Store they make up together."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from assay.runs.store.lite import Statements


class StorePart:
    """A part of the Store (its task runs, validations, builds, keys): the Store gives it the
    SQLAlchemy `engine`, made on first use, and the named `statements` of `assay run`'s path."""

    statements: Statements

    @property
    def engine(self) -> Engine:
        raise NotImplementedError
