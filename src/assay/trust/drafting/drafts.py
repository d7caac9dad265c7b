"""One draft, examined: parsed with tomlkit, named, compared with the tasks that exist, then proved
exactly as `assay validate` proves a task, in a scratch copy of the world."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any, Literal

import tomlkit
from pydantic import BaseModel
from tomlkit.exceptions import TOMLKitError

from assay.errors import SpecError, UsageError
from assay.formats.load import TASKS_DIR
from assay.trust.findings import TaskValidation
from assay.trust.validate import validate_world

IGNORED = shutil.ignore_patterns(".assay", "__pycache__", "*.pyc", ".git")


class DraftResult(BaseModel, defer_build=True):
    """What became of one draft (`kind` draft), of its one repair (`kind` repair), or of a draft
    past the number asked for (`kind` extra: recorded, never examined)."""

    number: int
    kind: Literal["draft", "repair", "extra"] = "draft"
    repair_of: int | None = None
    task_id: str | None = None
    toml: str
    passed: bool = False
    reasons: list[str] = []
    validation: dict[str, Any] | None = None  # the TaskValidation, as `assay validate --json`


class Scratch:
    """A copy of the world where drafts are proved; drafts that pass stay, so later drafts are
    compared with them too."""

    def __init__(self, root: Path, into: Path):
        self.root = into / root.name
        shutil.copytree(root, self.root, ignore=IGNORED)
        self.taken = {path.stem for path in (root / TASKS_DIR).glob("*.toml")}

    def examine(self, draft: DraftResult, split: str, known: dict[str, str]) -> DraftResult:
        """The draft proved (or why it cannot be); `known`: request text by task id, of every
        task that exists or has passed in this build."""
        try:
            document = tomlkit.parse(draft.toml)
        except TOMLKitError as error:
            return draft.model_copy(update={"reasons": [f"not valid TOML: {error}"]})
        document["split"] = split
        task_id = self.name_for(document)
        text = tomlkit.dumps(document)
        draft = draft.model_copy(update={"task_id": task_id, "toml": text})
        same = duplicate_of(document, known)
        if same is not None:
            return draft.model_copy(
                update={"reasons": [f"a duplicate of task {same!r}: the same customer request"]}
            )
        file = self.root / TASKS_DIR / f"{task_id}.toml"
        file.write_text(text)
        validation = self._validate(task_id)
        if isinstance(validation, str):
            file.unlink()
            return draft.model_copy(update={"reasons": [validation]})
        reasons = [f"{proof}: {reason}" for proof, reason in validation.failures()]
        if validation.passed:
            self.taken.add(task_id)
        else:
            file.unlink()
        return draft.model_copy(
            update={
                "passed": validation.passed,
                "reasons": reasons,
                "validation": validation.model_dump(mode="json"),
            }
        )

    def _validate(self, task_id: str) -> TaskValidation | str:
        try:
            return validate_world(self.root, [task_id]).tasks[0]
        except (SpecError, UsageError) as error:
            return str(error)

    def name_for(self, document: Any) -> str:
        """A file name from the title, never one a task already has."""
        title = document.get("title") if isinstance(document.get("title"), str) else ""
        base = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60].strip("-") or "task"
        name, suffix = base, 2
        while name in self.taken:
            name, suffix = f"{base}-{suffix}", suffix + 1
        return name


def duplicate_of(document: Any, known: dict[str, str]) -> str | None:
    """The id of a task with the same customer request, if one exists."""
    customer = document.get("customer")
    request = customer.get("request") if isinstance(customer, dict) else None
    if not isinstance(request, str):
        return None
    wanted = _normal(request)
    return next((task_id for task_id, text in known.items() if _normal(text) == wanted), None)


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())
