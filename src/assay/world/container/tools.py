"""The one tool of a container-format task: run a shell command in the task run's sandbox."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from assay.world.tools import Tool

MAX_EXEC_TIMEOUT_S = 86400.0
OUTPUT_LIMIT_BYTES = 64 * 1024  # per stream; the rest is cut and the cut is said


def exec_command(
    world: Any,
    command: Annotated[str, Field(min_length=1, description="A bash command line.")],
    timeout_s: Annotated[
        float,
        Field(gt=0, le=MAX_EXEC_TIMEOUT_S, description="Seconds before the command is killed."),
    ] = 600.0,
) -> dict[str, Any]:
    """Run a shell command in the task's sandbox and return its stdout, stderr and exit code.

    The command runs with bash as the task's agent user, from the task's working directory, with
    the network the task allows. Processes it leaves in the background keep running. Each stream
    is cut at 64 KiB; exit code 124 means the command ran out of time.
    """
    return world.run.exec_for_agent(command, timeout_s)


EXEC = Tool(exec_command, writes=True, name="exec")
