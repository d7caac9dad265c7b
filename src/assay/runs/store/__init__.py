"""The records store: SQLite by default, PostgreSQL by URL, its schema kept by Alembic."""

from assay.runs.store.location import ENVIRONMENT, Location, default_file, locate
from assay.runs.store.records import RunRecord, TaskRunState
from assay.runs.store.repository import Store, UnknownRun, open_store

__all__ = [
    "ENVIRONMENT",
    "Location",
    "RunRecord",
    "Store",
    "TaskRunState",
    "UnknownRun",
    "default_file",
    "locate",
    "open_store",
]
