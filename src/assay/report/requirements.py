"""The libraries reports and the viewer draw with, shipped as the `report` extra."""

from __future__ import annotations

from importlib.util import find_spec

from assay.errors import UsageError

LIBRARIES = ("jinja2", "matplotlib")


def missing() -> list[str]:
    return [name for name in LIBRARIES if find_spec(name) is None]


def require_report_libraries(command: str) -> None:
    """UsageError naming the extra when jinja2 or matplotlib is not installed."""
    absent = missing()
    if absent:
        raise UsageError(f"{command} needs {' and '.join(absent)}: pip install 'assay[report]'")
