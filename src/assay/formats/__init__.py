"""The files users write, as validated models."""

from assay.formats.check_union import Check
from assay.formats.checks import AnswerCheck, Derived, PythonCheck, SqlCheck
from assay.formats.load import read_task, read_world, task_files
from assay.formats.task import (
    Change,
    Customer,
    Fault,
    Reply,
    Solution,
    Step,
    TaskSpec,
    WrongSolution,
)
from assay.formats.world import DatabaseSpec, RoleSpec, ServiceSpec, WorldSpec

__all__ = [
    "AnswerCheck",
    "Change",
    "Check",
    "Customer",
    "DatabaseSpec",
    "Derived",
    "Fault",
    "PythonCheck",
    "Reply",
    "RoleSpec",
    "ServiceSpec",
    "Solution",
    "SqlCheck",
    "Step",
    "TaskSpec",
    "WorldSpec",
    "WrongSolution",
    "read_task",
    "read_world",
    "task_files",
]
