"""The records store: SQLite by default, PostgreSQL by URL, its schema kept by Alembic."""

from assay.runs.store.location import DEFAULT_FILE, ENVIRONMENT, Location, locate
from assay.runs.store.records import RunRecord, TaskRunState
from assay.runs.store.repository import Store, UnknownRun, open_store

__all__ = [
    "DEFAULT_FILE",
    "ENVIRONMENT",
    "Location",
    "RunRecord",
    "Store",
    "TaskRunState",
    "UnknownRun",
    "locate",
    "open_store",
]
