"""`assay build`: a model drafts tasks, every draft is proved as `assay validate` proves a task, a
failing draft goes back once for repair, and only drafts that pass every proof are published."""

from __future__ import annotations

import tempfile
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from assay.errors import UsageError
from assay.formats.files import shown
from assay.formats.load import TASKS_DIR
from assay.provider import ModelOptions
from assay.runs.plan import new_id
from assay.runs.stamps import now
from assay.settings import in_force
from assay.trust.drafting.conversation import Drafting
from assay.trust.drafting.drafts import DraftResult, Scratch
from assay.trust.drafting.prompt import build_messages, prompt_hash
from assay.trust.store import ValidationStore
from assay.world.live import World
from assay.world.load import load_world_tolerant

Split = Literal["train", "dev", "holdout"]


class Published(BaseModel, defer_build=True):
    task_id: str
    file: str
    draft: int  # the number of the draft (or repair) it came from


class Rejected(BaseModel, defer_build=True):
    """A draft kept out, and why: its own reasons, and its repair's when one was tried."""

    draft: int
    task_id: str | None
    repaired: bool  # a repair was asked for and it failed too
    reasons: list[str]  # why it stays out: the repair's last reasons, else the draft's own
    draft_reasons: list[str] = []  # why the draft itself failed, which the repair was asked to fix


class BuildRecord(BaseModel, defer_build=True):
    id: str
    world: str
    version: str
    model: str
    prompt_hash: str
    split: Split
    count: int
    brief: str | None
    created_at: str
    drafts: list[DraftResult]
    published: list[Published]
    rejected: list[Rejected]
    usage: dict[str, Any]


def build_tasks(
    path: str | Path,
    model: str,
    *,
    count: int = 3,
    split: Split = "train",
    brief: str | None = None,
    options: ModelOptions | None = None,
    store: Any = None,
) -> BuildRecord:
    """Draft, prove, repair once, publish what passed; the record is kept in `store` if given."""
    world, _ = load_world_tolerant(path)
    if world.kind.sandboxed:
        raise UsageError(
            f"WORLD: {shown(world.root)} is a container-format dataset; build drafts "
            "tasks of database worlds"
        )
    messages = build_messages(world, count, split, brief)
    drafting = Drafting(model, messages, options or in_force().model)
    known = {task_id: task.customer.request for task_id, task in world.tasks.items()}
    with tempfile.TemporaryDirectory(prefix="assay-build-") as scratch_dir:
        scratch = Scratch(world.root, Path(scratch_dir))
        results = _first_drafts(drafting, scratch, split, known, count)
        for failed in [draft for draft in results if draft.kind == "draft" and not draft.passed]:
            results.append(_repair(drafting, scratch, split, known, failed, len(results) + 1))
    record = BuildRecord(
        id=new_id("bd"),
        world=world.name,
        version=world.version,
        model=model,
        prompt_hash=prompt_hash(messages),
        split=split,
        count=count,
        brief=brief,
        created_at=now(),
        drafts=results,
        published=publish(world, results, store),
        rejected=_rejected(results),
        usage=vars(drafting.usage),
    )
    if store is not None:
        store.save_build(record.model_dump(mode="json"))
    return record


def _first_drafts(
    drafting: Drafting, scratch: Scratch, split: str, known: dict[str, str], count: int
) -> list[DraftResult]:
    """The model's drafts (asked once more when it sent fewer than `count`), each examined."""
    texts = drafting.ask()
    if len(texts) < count:
        missing = count - len(texts)
        drafting.tell(f"You submitted {len(texts)} of {count} tasks: submit the other {missing}.")
        texts += drafting.ask()
    examined = [
        _examined(scratch, DraftResult(number=number, toml=text), split, known)
        for number, text in enumerate(texts[:count], 1)
    ]
    beyond = f"sent past the --count of {count}: not examined"
    extra = [
        DraftResult(number=number, kind="extra", toml=text, reasons=[beyond])
        for number, text in enumerate(texts[count:], count + 1)
    ]
    return examined + extra


def _repair(
    drafting: Drafting,
    scratch: Scratch,
    split: str,
    known: dict[str, str],
    failed: DraftResult,
    number: int,
) -> DraftResult:
    """The failed draft sent back once, with why; the model's first submit_task is its repair."""
    drafting.tell(repair_request(failed))
    texts = drafting.ask()
    repair = DraftResult(number=number, kind="repair", repair_of=failed.number, toml="")
    if not texts:
        return repair.model_copy(
            update={"task_id": failed.task_id, "reasons": ["the model sent no repair"]}
        )
    return _examined(scratch, repair.model_copy(update={"toml": texts[0]}), split, known)


def repair_request(failed: DraftResult) -> str:
    name = f" ({failed.task_id})" if failed.task_id else ""
    reasons = "\n".join(f"- {reason}" for reason in failed.reasons)
    return (
        f"Draft {failed.number}{name} was not published. Why:\n{reasons}\n\n"
        "Repair it: call submit_task once with the whole corrected task file."
    )


def _examined(
    scratch: Scratch, draft: DraftResult, split: str, known: dict[str, str]
) -> DraftResult:
    """The draft proved; one that passed joins the tasks later drafts must not repeat."""
    result = scratch.examine(draft, split, known)
    if result.passed and result.task_id is not None:
        known[result.task_id] = _request_of(result.toml)
    return result


def _request_of(text: str) -> str:
    request = tomllib.loads(text).get("customer", {}).get("request")
    return request if isinstance(request, str) else ""


def _rejected(results: list[DraftResult]) -> list[Rejected]:
    """Each draft that was not published, whether or not its repair was tried: the last reasons."""
    repairs = {result.repair_of: result for result in results if result.kind == "repair"}
    rejected = []
    for draft in results:
        if draft.kind == "repair" or draft.passed:
            continue
        repair = repairs.get(draft.number)
        if repair is not None and repair.passed:
            continue
        last = repair or draft
        rejected.append(
            Rejected(
                draft=draft.number,
                task_id=draft.task_id or last.task_id,
                repaired=repair is not None,
                reasons=last.reasons,
                draft_reasons=draft.reasons,
            )
        )
    return rejected


def publish(
    world: World, results: list[DraftResult], store: ValidationStore | None
) -> list[Published]:
    """Write each passing draft to tasks/ exactly as it was proved, never over an existing file,
    and keep its validation so the task stands validated."""
    published = []
    for result in results:
        if not result.passed or result.task_id is None:
            continue
        file = _new_file(world.root / TASKS_DIR, result.task_id)
        with file.open("x", encoding="utf-8") as out:
            out.write(result.toml)
        published.append(Published(task_id=file.stem, file=shown(file), draft=result.number))
        if store is not None and result.validation is not None and file.stem == result.task_id:
            validation = {**result.validation, "file": shown(file)}
            store.save_validation(
                world.name, world.version, file.stem, validation["task_hash"], True, validation
            )
    return published


def _new_file(folder: Path, name: str) -> Path:
    file, suffix = folder / f"{name}.toml", 2
    while file.exists():
        file, suffix = folder / f"{name}-{suffix}.toml", suffix + 1
    return file
