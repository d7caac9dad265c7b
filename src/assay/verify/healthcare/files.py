"""`sftp-file-present` checks: at least one live file matches the glob, read by its format, with
the expected fields (docs/contracts/healthcare.md §4); every matching file is scored and the best
one kept."""

from __future__ import annotations

from typing import Any

from assay.formats.checks import SftpFilePresentCheck
from assay.verify.check_run import CheckRun
from assay.verify.context import VerifyContext
from assay.verify.healthcare import items
from assay.verify.healthcare.formats import Unreadable, parsed, path_problem, value
from assay.verify.healthcare.rows import fetch_rows
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
        return items.none_asked_run(check, len(chosen), subject, evidence)
    if not chosen:
        folder = check.path.split("*")[0].rsplit("/", 1)[0]
        near = [row["path"] for row in files if row["path"].startswith(folder)][:10]
        listed = ", ".join(near) or "none"
        details = f"no file matched {check.path} (files under {folder or '.'}: {listed})"
        return items.unmatched_run(check, details, {**evidence, "path": None, "sha256": None})
    best, results = items.best_scored(
        chosen, lambda row: _items(check, row, len(chosen)), "updated_turn"
    )
    evidence.update(path=best["path"], sha256=best["sha256"])
    return items.scored_run(check, best["path"], results, evidence)


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
    found = fetch_rows(context, check, ROWS, "the files")
    for row in found:
        row["content"] = bytes(row["content"])
    return found


def _items(
    check: SftpFilePresentCheck, row: dict[str, Any], matched: int
) -> list[items.ItemResult]:
    try:
        document = parsed(check.format, row["content"])
    except Unreadable as error:
        unreadable = f"unreadable: {error}"
        results = [
            items.ItemResult(item.path, item.expected, unreadable, False) for item in check.fields
        ]
    else:
        results = items.field_items(
            check, check.fields, lambda path: value(check.format, document, path), (ValueError,)
        )
    return results + items.tally_items(check, matched, _changed(row) if check.changed else None)


def _changed(row: dict[str, Any]) -> bool:
    """Written during the task run (a seed file never touched is not)."""
    return str(row["origin"]) != "seed" or int(row["updated_turn"]) > 0
