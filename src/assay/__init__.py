"""assay: grade AI agents by the state they leave behind.

The public face. Names load on first use so that `assay --help` starts fast.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "tool": "assay.world.tools",
    "Tool": "assay.world.tools",
    "Service": "assay.world.services.base",
    "ToolError": "assay.errors",
    "ServiceError": "assay.errors",
    "SpecError": "assay.errors",
    "CheckError": "assay.errors",
    "CheckBase": "assay.formats.checks",
    "CheckRun": "assay.verify.check_run",
    "EnvironmentFailure": "assay.errors",
    "AgentFailure": "assay.errors",
    "UsageError": "assay.errors",
    "verifier": "assay.verify.python",
    "check": "assay.verify.python",
    "optional": "assay.verify.python",
    "numbers_in": "assay.verify.answer",
    "states_number": "assay.verify.answer",
    "Call": "assay.taskrun.actions",
    "Say": "assay.taskrun.actions",
    "Finish": "assay.taskrun.actions",
    "call": "assay.taskrun.actions",
    "say": "assay.taskrun.actions",
    "finish": "assay.taskrun.actions",
    "Observation": "assay.taskrun.observation",
    "Agent": "assay.taskrun.agents.base",
    "open": "assay.sdk",
    "TaskRun": "assay.sdk",
    "open_benchmark": "assay.runs.benchmark",
    "run_benchmark": "assay.runs.run",
    "TaskRunResult": "assay.score.result",
    "evaluate": "assay.evaluation",
    "RunResult": "assay.evaluation",
    "RunConfig": "assay.runs.config",
}

__all__ = [
    "Agent",
    "AgentFailure",
    "Call",
    "CheckBase",
    "CheckError",
    "CheckRun",
    "EnvironmentFailure",
    "Finish",
    "Observation",
    "RunConfig",
    "RunResult",
    "Say",
    "Service",
    "ServiceError",
    "SpecError",
    "TaskRun",
    "TaskRunResult",
    "Tool",
    "ToolError",
    "UsageError",
    "call",
    "check",
    "evaluate",
    "finish",
    "numbers_in",
    "open",
    "open_benchmark",
    "optional",
    "run_benchmark",
    "say",
    "states_number",
    "tool",
    "verifier",
]

if TYPE_CHECKING:
    from assay.errors import (
        AgentFailure,
        CheckError,
        EnvironmentFailure,
        ServiceError,
        SpecError,
        ToolError,
        UsageError,
    )
    from assay.evaluation import RunResult, evaluate
    from assay.formats.checks import CheckBase
    from assay.runs.benchmark import open_benchmark
    from assay.runs.config import RunConfig
    from assay.runs.run import run_benchmark
    from assay.score.result import TaskRunResult
    from assay.sdk import TaskRun, open
    from assay.taskrun.actions import Call, Finish, Say, call, finish, say
    from assay.taskrun.agents.base import Agent
    from assay.taskrun.observation import Observation
    from assay.verify.answer import numbers_in, states_number
    from assay.verify.check_run import CheckRun
    from assay.verify.python import check, optional, verifier
    from assay.world.services.base import Service
    from assay.world.tools import Tool, tool


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'assay' has no attribute {name!r}")
    value = getattr(import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value
