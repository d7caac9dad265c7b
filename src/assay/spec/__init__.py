"""The files users write, as validated models."""

from assay.spec.check_union import Check
from assay.spec.checks import AnswerCheck, Derived, PythonCheck, SqlCheck
from assay.spec.load import read_task, read_world, task_files
from assay.spec.task import Change, Customer, Fault, Reply, Solution, Step, TaskSpec, WrongSolution
from assay.spec.world import DatabaseSpec, RoleSpec, ServiceSpec, WorldSpec

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
