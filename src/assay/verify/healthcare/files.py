"""`sftp-file-present` checks: at least one live file matches the glob, read by its format, with
the expected fields (docs/contracts/healthcare.md §4); every matching file is scored and the best
one kept."""

from __future__ import annotations

from typing import Any

from assay.errors import CheckError
from assay.formats.checks import SftpFilePresentCheck
from assay.verify.check_run import CheckRun
from assay.verify.context import VerifyContext
from assay.verify.healthcare.formats import Unreadable, parsed, path_problem, value
from assay.verify.healthcare.items import (
    ItemResult,
    compare_item,
    item_details,
    item_score,
    none_asked_run,
)
from assay.world.guard import QueryFailed, QueryLimit, QueryRefused, QueryTimeout
from assay.world.services.healthcare.globs import glob_problem, matches

ROWS = (
    "SELECT path, content, sha256, origin, updated_turn FROM sandbox_files "
    "WHERE deleted = 0 AND kind = 'file' ORDER BY path"
)


def run_files_check(check: SftpFilePresentCheck, context: VerifyContext) -> CheckRun:
    files = _files(context, check)
    chosen = [row for row in files if matches(check.path, row["path"])]
    evidence: dict[str, Any] = {
        "pattern": check.path,
        "matched_paths": [row["path"] for row in chosen],
    }
    if check.asks_none:
        subject = f"file like {check.path}"
        if check.changed:
            chosen = [row for row in chosen if _changed(row)]
            subject += " written during the task run"
        evidence["matched_paths"] = [row["path"] for row in chosen]
        return none_asked_run(check, len(chosen), subject, evidence)
    if not chosen:
        folder = check.path.split("*")[0].rsplit("/", 1)[0]
        near = [row["path"] for row in files if row["path"].startswith(folder)][:10]
        listed = ", ".join(near) or "none"
        details = f"no file matched {check.path} (files under {folder or '.'}: {listed})"
        evidence.update(path=None, sha256=None, field_results=[])
        return CheckRun.of(check, passed=False, score=0.0, details=details, evidence=evidence)
    scored = [(row, _items(check, row, len(chosen))) for row in chosen]
    best, items = max(
        scored, key=lambda pair: (sum(i.passed for i in pair[1]), pair[0]["updated_turn"])
    )
    score, passed = item_score(items)
    evidence.update(
        path=best["path"],
        sha256=best["sha256"],
        field_results=[item.as_json() for item in items],
    )
    details = item_details(best["path"], items)
    return CheckRun.of(check, passed=passed, score=score, details=details, evidence=evidence)


def compile_files_check(check: SftpFilePresentCheck) -> list[tuple[str, str]]:
    found = []
    problem = glob_problem(check.path)
    if problem:
        found.append(("path", problem))
    for index, item in enumerate(check.fields):
        problem = path_problem(check.format, item.path)
        if problem:
            found.append((f"fields[{index}].path", problem))
    return found


def _files(context: VerifyContext, check: SftpFilePresentCheck) -> list[dict[str, Any]]:
    try:
        names, rows = context.final.fetch(ROWS, {})
    except (QueryRefused, QueryFailed, QueryTimeout, QueryLimit) as error:
        raise CheckError(f"check {check.name!r}: the files could not be read: {error}") from None
    found = [dict(zip(names, row, strict=True)) for row in rows]
    for row in found:
        row["content"] = bytes(row["content"])
    return found


def _items(check: SftpFilePresentCheck, row: dict[str, Any], matched: int) -> list[ItemResult]:
    items = []
    try:
        document = parsed(check.format, row["content"])
    except Unreadable as error:
        document, unreadable = None, str(error)
    for item in check.fields:
        if document is None:
            items.append(ItemResult(item.path, item.expected, f"unreadable: {unreadable}", False))
            continue
        try:
            actual = value(check.format, document, item.path)
        except ValueError as error:
            raise CheckError(f"check {check.name!r}: {error}") from None
        passed = compare_item(actual, item.op, item.expected)
        items.append(ItemResult(item.path, item.expected, actual, passed))
    if check.count is not None:
        items.append(ItemResult("$count", check.count, matched, matched == check.count))
    if check.changed:
        changed = _changed(row)
        items.append(ItemResult("$changed", True, changed, changed))
    return items


def _changed(row: dict[str, Any]) -> bool:
    """Written during the task run (a seed file never touched is not)."""
    return str(row["origin"]) != "seed" or int(row["updated_turn"]) > 0
