"""Every write gets an operation id; `retry_operation` uses the log to re-send one safely."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Operation:
    id: str
    tool: str
    args: dict[str, Any]
    status: str
    happened: bool
    outcome: tuple[str, Any] | None = None  # ("OK", result) or ("ERROR", (code, message))


class OperationLog:
    def __init__(self) -> None:
        self._operations: dict[str, Operation] = {}

    def open(self, tool: str, args: dict[str, Any]) -> Operation:
        operation_id = f"op-{len(self._operations) + 1}"
        operation = Operation(operation_id, tool, args, status="PENDING", happened=False)
        self._operations[operation_id] = operation
        return operation

    def get(self, operation_id: str) -> Operation | None:
        return self._operations.get(operation_id)
