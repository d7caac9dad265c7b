"""One task run as a state machine: start, then one action at a time until it ends.

The in-process loop, the Python SDK and the HTTP API all drive a Session, so an agent sees the same
observations whichever way it connects.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from datetime import date
from datetime import time as clock_time
from decimal import Decimal
from typing import Any
from uuid import UUID

from assay.errors import EnvironmentFailure, ToolError
from assay.formats.task import TaskSpec
from assay.taskrun.actions import AnyAction, Call, Finish, Say, action_json, parse_action
from assay.taskrun.briefings import shared_briefing
from assay.taskrun.faults import FaultPlan
from assay.taskrun.model_customer import customer_for
from assay.taskrun.observation import (
    FAILED_MESSAGE,
    HELD_MESSAGE,
    UNKNOWN_MESSAGE,
    Briefing,
    Event,
    Limits,
    Observation,
    customer_message,
    notice,
)
from assay.taskrun.operations import Operation, OperationLog
from assay.taskrun.rollout import Rollout, RunError, Step, Termination
from assay.taskrun.timelimit import ToolOverrun, ToolTimeLimit
from assay.world.live import LiveWorld, World
from assay.world.offline import offline
from assay.world.tools import InvalidArguments, Tool


class SessionOver(RuntimeError):
    """An action arrived after the task run ended."""


class Session:
    def __init__(self, world: World, task: TaskSpec, *, installed: Any = None):
        """`installed`: a command-line agent the task's sandbox installs (container tasks)."""
        self.world = world
        self.task = task
        self.live: LiveWorld = world.reset()
        self.tools: dict[str, Tool] = world.role_tools(task.role)
        self.tool_list = world.describe_role(task.role)
        self.customer = customer_for(task.customer)
        self.faults = FaultPlan(task.faults)
        self.operations = OperationLog()
        self.turn = 0
        self.rejected_attempts = 0
        self.output = ""
        self.termination: Termination | None = None
        self.error: RunError | None = None
        self.steps: list[Step] = []
        self._seen_write = False
        self._rollout: Rollout | None = None
        self.limits = Limits(
            max_turns=task.max_turns, max_contacts=task.max_contacts, time_limit_s=task.time_limit_s
        )
        self._events: list[Event] = [customer_message(task.customer.request)]
        problem = self.live.begin(
            task, installed
        )  # before the clock starts: building is not the agent's time
        self._deadline = (
            time.monotonic() + task.time_limit_s if task.time_limit_s is not None else None
        )
        if problem is not None:
            self.fail_world(problem)

    @property
    def done(self) -> bool:
        return self.termination is not None

    def observe(self) -> Observation:
        """What the agent sees now: everything since its last action."""
        return Observation(
            task_id=self.task.id,
            role=self.task.role,
            request=self.task.customer.request,
            briefing=self._briefing(),
            turn=self.turn,
            turns_left=max(self.task.max_turns - self.turn, 0),
            tools=self.tool_list,
            events=self._events,
            limits=self.limits,
            done=self.done,
        )

    def _briefing(self) -> Briefing:
        return shared_briefing(self.world, self.task, self.live.now())

    def act(
        self, action: AnyAction | dict[str, Any], *, as_json: dict[str, Any] | None = None
    ) -> Observation:
        """Carry out one action and return the next observation; InvalidAction if it is none.
        `as_json` is the action's `action_json` where the caller has made it already (`drive`)."""
        action = parse_action(action)
        if self.done:
            raise SessionOver(f"task run already ended ({self.termination})")
        if self.timed_out():
            return self.end("timeout")
        self._next_turn(action_json(action) if as_json is None else as_json)
        try:
            events = self._apply(action)
        except EnvironmentFailure as failure:
            return self.fail_world(str(failure))
        if isinstance(action, Finish):
            try:
                following = self.live.advance()  # a task in steps: the next step's instruction
            except EnvironmentFailure as failure:
                return self.fail_world(str(failure))
            if following is None:
                return self.end("finished", events)
            events.append(customer_message(following))
        return self._after_turn(events)

    def reject(self, text: str, message: str) -> Observation:
        """Count something that is not an action (not JSON, not one of call, say or finish) as a
        rejected attempt: the agent sees why, and it takes a turn, so a string of them still ends
        at `max_turns`."""
        if self.done:
            raise SessionOver(f"task run already ended ({self.termination})")
        if self.timed_out():
            return self.end("timeout")
        self._next_turn({"invalid": text})
        self.rejected_attempts += 1
        self.live.record_action("invalid", None, {"text": text}, "REJECTED")
        refused = Event(type="notice", status="REJECTED", code="invalid_action", message=message)
        return self._after_turn([refused])

    def _next_turn(self, action: dict[str, Any]) -> None:
        self.steps.append(Step(turn=self.turn, events=self._events, action=action))
        self.turn += 1
        self.live.turn = self.turn
        self.live.clock.advance()

    def _after_turn(self, events: list[Event]) -> Observation:
        events += [customer_message(text) for text in self.customer.changes_at(f"turn:{self.turn}")]
        if self.turn >= self.task.max_turns:
            return self.end("max_turns", events)
        self._events = events
        return self.observe()

    def end(self, termination: Termination, events: list[Event] | None = None) -> Observation:
        """Stop the task run; nothing the agent does afterwards counts. Ending twice keeps the first."""
        if not self.done:
            self.termination = termination
            if events is not None:
                self._events = events
            self.steps.append(Step(turn=self.turn, events=self._events, action=None))
        return self.observe()

    def fail_agent(self, message: str) -> Observation:
        self.error = RunError(side="agent", message=message)
        self._rollout = None  # an agent can fail after the end (the API's caller): not kept
        return self.end("agent_error")

    def fail_world(self, message: str) -> Observation:
        """The world failed (a tool's bug, an observation too large to hand over): not scored.
        A task run that has already ended keeps its ending."""
        if not self.done:
            self.error = RunError(side="world", message=message)
        return self.end("world_error", [notice(f"the world failed: {message}")])

    def timed_out(self) -> bool:
        return self._deadline is not None and time.monotonic() > self._deadline

    def seconds_left(self) -> float | None:
        return None if self._deadline is None else self._deadline - time.monotonic()

    def rollout(self) -> Rollout:
        """How the task run went; once it has ended nothing changes, so it is built once
        (`drive` returns it, and grading asks again)."""
        if self._rollout is not None:
            return self._rollout
        rollout = Rollout(
            task_id=self.task.id,
            termination=self.termination or "cancelled",
            turns=self.turn,
            contacts=self.customer.contacts,
            rejected_attempts=self.rejected_attempts,
            faults=self.faults.fired,
            output=self.output,
            request=self.customer.request,
            error=self.error,
            tools=self.tool_list,
            steps=self.steps,
        )
        if self.done:
            self._rollout = rollout
        return rollout

    def _apply(self, action: AnyAction) -> list[Event]:
        if isinstance(action, Finish):
            self.output = action.finish
            self.live.record_action("finish", None, {"output": action.finish}, "OK")
            return []
        if isinstance(action, Say):
            reply = self.customer.reply(action.say)
            self.live.record_action("say", None, {"text": action.say}, "OK")
            return [customer_message(reply)]
        assert isinstance(action, Call)
        return self._call(action.call.tool, action.call.args)

    def _call(self, name: str, args: dict[str, Any]) -> list[Event]:
        tool = self.tools.get(name)
        if tool is None:
            if name in self.world.tools:
                return self._reject(
                    name, args, "not_allowed", f"the {self.task.role} role cannot call {name}"
                )
            return self._reject(name, args, "unknown_tool", f"there is no tool named {name!r}")
        try:
            values = tool.validate(args)
        except InvalidArguments as invalid:
            return self._reject(name, args, "invalid_arguments", str(invalid))
        if name == "retry_operation":
            return self._retry(values["operation_id"])
        if not tool.writes:
            return self._carry_out(tool, values, None)
        operation = self.operations.open(name, values)
        if not self._seen_write:
            self._seen_write = True
            changes = self.customer.changes_at("first_write")
            if changes:
                held = self._no_result(name, values, operation, "HELD", HELD_MESSAGE)
                return [held, *(customer_message(text) for text in changes)]
        return self._carry_out(tool, values, operation)

    def _no_result(
        self,
        name: str,
        values: dict[str, Any],
        operation: Operation | None,
        status: str,
        message: str,
    ) -> Event:
        """A call that answers only `message` (held, failed, or of unknown outcome), recorded, and
        its operation marked, with `status`."""
        if operation:
            operation.status = status
        operation_id = operation.id if operation else None
        self.live.record_action("call", name, values, status, operation_id)
        return Event(
            type="tool_result", tool=name, status=status, operation_id=operation_id, message=message
        )

    def _carry_out(
        self, tool: Tool, values: dict[str, Any], operation: Operation | None
    ) -> list[Event]:
        effect = self.faults.next_call(tool.name)
        operation_id = operation.id if operation else None
        if effect == "fail":
            return [self._no_result(tool.name, values, operation, "FAILED", FAILED_MESSAGE)]
        status, payload = self.execute_tool(tool, values)
        if operation:
            operation.happened, operation.outcome = True, (status, payload)
        if effect == "unknown":
            return [self._no_result(tool.name, values, operation, "UNKNOWN", UNKNOWN_MESSAGE)]
        if operation:
            operation.status = status
        self.live.record_action("call", tool.name, values, status, operation_id)
        events = [_result_event(tool.name, status, payload, operation_id)]
        if status == "OK":
            events += [
                customer_message(text) for text in self.customer.changes_at(f"after:{tool.name}")
            ]
        return events

    def execute_tool(self, tool: Tool, values: dict[str, Any]) -> tuple[str, Any]:
        """Run the tool; a ToolError undoes its database writes, anything else is a world failure,
        and so is running past `tool_timeout_s`."""
        limit = ToolTimeLimit(self.world.spec.tool_timeout_s, _interrupter(self.live.db))
        try:
            with self.live.db.savepoint(), limit, offline():
                result = tool.fn(self.live, **values)
            return "OK", _plain(result, tool.name)
        except ToolOverrun as overrun:
            raise EnvironmentFailure(f"tool {tool.name} {overrun} (tool_timeout_s)") from None
        except ToolError as error:
            return "ERROR", (error.code, error.message)
        except EnvironmentFailure:
            raise
        except Exception as error:
            raise EnvironmentFailure(
                f"tool {tool.name} raised {type(error).__name__}: {error}"
            ) from error
        finally:
            self.live.flush()

    def _retry(self, operation_id: str) -> list[Event]:
        operation = self.operations.get(operation_id)
        args = {"operation_id": operation_id}
        if operation is None:
            self.live.record_action("call", "retry_operation", args, "ERROR")
            message = f"no operation {operation_id} in this task run"
            return [_error_event("retry_operation", None, "unknown_operation", message)]
        if operation.happened:
            assert operation.outcome is not None
            status, payload = operation.outcome
            note = "already carried out; this is its original result, not repeated"
            later: list[str] = []
        else:
            status, payload = self.execute_tool(self.world.tools[operation.tool], operation.args)
            operation.happened, operation.outcome, operation.status = (
                True,
                (status, payload),
                status,
            )
            note = "carried out now"
            later = self.customer.changes_at(f"after:{operation.tool}") if status == "OK" else []
        self.live.record_action("call", "retry_operation", args, status, operation_id)
        event = _result_event("retry_operation", status, payload, operation_id)
        if status == "OK":
            event = event.model_copy(update={"message": note})
        return [event, *(customer_message(text) for text in later)]

    def _reject(self, name: str, args: Any, code: str, message: str) -> list[Event]:
        self.rejected_attempts += 1
        self.live.record_action("call", name, args, "REJECTED")
        return [Event(type="tool_result", tool=name, status="REJECTED", code=code, message=message)]


def _result_event(tool: str, status: str, payload: Any, operation_id: str | None) -> Event:
    if status == "OK":
        return Event(
            type="tool_result", tool=tool, status="OK", operation_id=operation_id, result=payload
        )
    code, message = payload
    return _error_event(tool, operation_id, code, message)


def _error_event(tool: str, operation_id: str | None, code: str, message: str) -> Event:
    return Event(
        type="tool_result",
        tool=tool,
        status="ERROR",
        operation_id=operation_id,
        code=code,
        message=message,
    )


def _interrupter(db: object) -> Callable[[], object] | None:
    """A SQLite statement is stopped from another thread; PostgreSQL's driver cancels its own."""
    connection = getattr(db, "connection", None)
    return connection.interrupt if isinstance(connection, sqlite3.Connection) else None


def _plain(result: Any, tool: str) -> Any:
    """The result as JSON would carry it; a tool that returns something else is a world bug."""
    try:
        return json.loads(_RESULT_JSON.encode(result))
    except (TypeError, ValueError) as error:
        raise EnvironmentFailure(
            f"tool {tool} returned a value that is not JSON: {error}"
        ) from None


def _as_text(value: Any) -> str:
    """Dates, decimals and ids travel as text; anything else has no faithful JSON form."""
    if isinstance(value, date | clock_time):
        return value.isoformat()
    if isinstance(value, Decimal | UUID):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


_RESULT_JSON = json.JSONEncoder(default=_as_text)  # json.dumps would build this at every call
