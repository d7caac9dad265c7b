"""The kinds of failure a user must tell apart, each carrying where and why."""

from __future__ import annotations


def one_line(text: str) -> str:
    """A message quoting what a user wrote stays one line: line breaks in it are shown as escapes."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


class AssayError(Exception):
    """Base of every error assay raises on purpose."""


class SpecError(AssayError):
    """A file a user wrote is wrong: names the file and the field."""

    def __init__(self, file: str, field: str | None, message: str):
        self.file = file
        self.field = field
        self.message = one_line(message)
        where = f"{file}: {field}" if field else file
        super().__init__(f"{where}: {self.message}")

    def __reduce__(self):  # so that one raised in a worker process reaches the caller whole
        return (type(self), (self.file, self.field, self.message), self.__dict__)


class ToolError(AssayError):
    """A business error a tool reports to the agent (not found, refused, ...)."""

    def __init__(self, code: str, message: str):
        self.code = code
        self.message = message
        super().__init__(f"{code}: {message}")


class ServiceError(ToolError):
    """An emulated outside service refused a request; the refusal is recorded."""


class EnvironmentFailure(AssayError):
    """The world failed (a tool bug, a service crash, a snapshot that cannot be built)."""


class AgentFailure(AssayError):
    """The agent failed (it raised, or its model provider could not be reached)."""


class CheckError(AssayError):
    """Scoring itself failed: a verifier raised, returned no required check, or a query broke."""


class UsageError(AssayError):
    """A bad argument on the command line or in an API call; names the parameter."""


class WorkerFailure(AssayError):
    """A worker process (or Ray actor) ended without sending back the task run it was given."""
