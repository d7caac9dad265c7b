"""Baselines freeze every scripted solution's check runs; a change in grading logic shows up."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from worldkit import SHOP, copy_shop

from assay.errors import SpecError
from assay.trust.baseline import check_baselines, record_baselines

TASK = "goodwill-credit"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A shop copy with the baseline of one task recorded; tests copy it again before changing it."""
    world = copy_shop(tmp_path_factory.mktemp("recorded") / "shop")
    record_baselines(world, [TASK])
    return world


def changed_copy(recorded: Path, tmp_path: Path) -> Path:
    world = tmp_path / "shop"
    shutil.copytree(recorded, world)
    return world


def test_the_committed_baselines_of_the_example_world_hold():
    report = check_baselines(SHOP)
    assert report.changes == []
    assert len(report.tasks) == len(list((SHOP / "tasks").glob("*.toml")))


def test_a_baseline_holds_every_scripted_run_and_nothing_that_changes(recorded: Path):
    data = json.loads((recorded / "baselines" / f"{TASK}.json").read_text())
    assert data["format"] == "assay-baseline-1"
    assert data["task"] == TASK
    assert list(data["runs"]) == [
        "noop",
        "reference",
        "wrong:credits the wrong customer",
        "wrong:forgets the confirmation email",
    ]
    reference = data["runs"]["reference"]
    assert sorted(reference) == [
        "checks",
        "error",
        "final_state_hash",
        "outcome",
        "passed",
        "reward",
        "score",
        "summary",
        "verdict",
    ]
    assert reference["outcome"] == "verified"
    text = (recorded / "baselines" / f"{TASK}.json").read_text()
    assert "tr_" not in text and "started_at" not in text and "duration" not in text


def test_recording_again_writes_the_same_bytes(recorded: Path, tmp_path: Path):
    world = changed_copy(recorded, tmp_path)
    before = (world / "baselines" / f"{TASK}.json").read_bytes()
    record_baselines(world, [TASK])
    assert (world / "baselines" / f"{TASK}.json").read_bytes() == before


def test_unchanged_grading_checks_clean(recorded: Path):
    report = check_baselines(recorded, [TASK])
    assert report.unchanged
    assert report.tasks == [TASK]


def test_a_change_in_a_verifiers_logic_shows_up_check_by_check(recorded: Path, tmp_path: Path):
    world = changed_copy(recorded, tmp_path)
    verifiers = world / "verifiers.py"
    # Every derivation still agrees with the data; only the rule for a confirmation email changed.
    verifiers.write_text(verifiers.read_text().replace("len(mails) >= 1", "len(mails) >= 0"))
    report = check_baselines(world, [TASK])
    changes = [(c.run, c.change) for c in report.changes]
    name = "A $10 credit for the late delivery, confirmed by email"
    assert (
        "wrong:forgets the confirmation email",
        'outcome: "not_achieved" → "verified"',
    ) in changes
    assert (
        "wrong:forgets the confirmation email",
        f"check {name!r}: passed: false → true",
    ) in changes
    assert "reference" not in {run for run, _ in changes}  # the known-good run still agrees


def test_a_changed_check_in_the_task_file_shows_up(recorded: Path, tmp_path: Path):
    world = changed_copy(recorded, tmp_path)
    task = world / "tasks" / f"{TASK}.toml"
    task.write_text(
        task.read_text().replace(
            'name = "Nothing was refunded to the card"', 'name = "No card refund"'
        )
    )
    changes = [c.change for c in check_baselines(world, [TASK]).changes if c.run == "reference"]
    assert changes == [
        "check 'Nothing was refunded to the card' is gone",
        "check 'No card refund' is new",
    ]


def test_a_missing_baseline_and_a_removed_wrong_solution_are_changes(
    recorded: Path, tmp_path: Path
):
    world = changed_copy(recorded, tmp_path)
    task = world / "tasks" / f"{TASK}.toml"
    text = task.read_text()
    task.write_text(text[: text.index('[[wrong]]\nname = "forgets')])
    report = check_baselines(world, [TASK, "update-address"])
    assert [(c.task_id, c.run, c.change) for c in report.changes] == [
        (TASK, "wrong:forgets the confirmation email", "recorded, but the task no longer has it"),
        ("update-address", None, "no baseline recorded"),
    ]


def test_a_baseline_of_a_task_that_is_gone_is_a_change_and_recording_all_removes_it(
    recorded: Path, tmp_path: Path
):
    world = changed_copy(recorded, tmp_path)
    (world / "baselines" / "retired-task.json").write_text("{}")
    for task in (world / "tasks").glob("*.toml"):
        if task.stem != TASK:
            task.unlink()
    report = check_baselines(world)
    assert [(c.task_id, c.change) for c in report.changes] == [
        ("retired-task", "baseline of a task that is gone")
    ]
    record_baselines(world)
    assert sorted(p.name for p in (world / "baselines").iterdir()) == [f"{TASK}.json"]


def test_a_damaged_baseline_is_one_clear_error(recorded: Path, tmp_path: Path):
    world = changed_copy(recorded, tmp_path)
    (world / "baselines" / f"{TASK}.json").write_text('{"format": "assay-baseline-1"}')
    with pytest.raises(SpecError, match=rf"baselines/{TASK}\.json: runs: required"):
        check_baselines(world, [TASK])
