"""A live world: database reset from a snapshot, services that record every request, tools, clock."""

from assay.world.clock import Clock
from assay.world.database import Database, SqliteCopy, SqliteDatabase
from assay.world.live import LiveWorld, World
from assay.world.load import load_world
from assay.world.services import Email, Payments, Recorder, Service
from assay.world.tools import Tool, tool

__all__ = [
    "Clock",
    "Database",
    "Email",
    "LiveWorld",
    "Payments",
    "Recorder",
    "Service",
    "SqliteCopy",
    "SqliteDatabase",
    "Tool",
    "World",
    "load_world",
    "tool",
]
