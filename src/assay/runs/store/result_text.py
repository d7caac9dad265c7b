"""A stored task run's JSON text for `assay run --json`, spliced from the JSON text its parts were
stored as rather than decoded and encoded again: the same text `as_json()` dumps to."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from assay.runs.store.records import CHECK_JSON
from assay.score.result import TaskRunResult

if TYPE_CHECKING:
    from assay.runs.store.records import StoredRow

# The result's keys in the model's order: its stored `result` holds all but the parts kept apart,
# which sit together before `output`, and the trajectory, which comes last.
KEYS = tuple(field.alias or name for name, field in TaskRunResult.model_fields.items())
APART = KEYS.index("axes")
if KEYS[APART : APART + 4] != ("axes", "checks", "summary", "output") or KEYS[-1] != "trajectory":
    raise ImportError("the result's fields moved: result_text splices them where they were")
# json.dumps escapes every quote inside a string, and the keys before `output` hold no object,
# so the first of these in the stored text is the result's own key
OUTPUT = ', "output": '
CHECK_HEAD = tuple(key for key in CHECK_JSON if key != "evidence")
if tuple(CHECK_JSON)[-1] != "evidence":
    raise ImportError("a check run's fields moved: result_text puts evidence last")


def json_text(stored: Any) -> str:
    """A JSON column as text: as read, or encoded again where the driver decoded it."""
    return stored if isinstance(stored, str) else json.dumps(stored)


def result_text(row: StoredRow, checks: list[StoredRow], trajectory: Any) -> str:
    """`json.dumps(result_of(row, …).as_json())`, from a page's row, check rows and trajectory."""
    stored = json_text(row.result)
    cut = stored.index(OUTPUT)
    return (
        f'{stored[:cut]}, "axes": {json_text(row.axes)}, '
        f'"checks": [{", ".join(map(check_text, checks))}], '
        f'"summary": {json_text(row.summary)}{stored[cut:-1]}, '
        f'"trajectory": {json_text(trajectory)}}}'
    )


def check_text(row: StoredRow) -> str:
    head = json.dumps({key: getattr(row, CHECK_JSON[key]) for key in CHECK_HEAD})
    judged = ', "judged": true' if row.judged else ""
    return f'{head[:-1]}, "evidence": {json_text(row.evidence)}{judged}}}'
