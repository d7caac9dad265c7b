"""`assay baseline record|check` on a copy of the example world."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from trustkit import assay_here as assay
from worldkit import SHOP, copy_shop


def test_check_is_clean_then_a_logic_change_shows_and_record_accepts_it(tmp_path: Path):
    world = tmp_path / "shop"
    shutil.copytree(SHOP, world)  # with the committed baselines
    clean = assay("baseline", "check", world, cwd=tmp_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    tasks = len(list((world / "tasks").glob("*.toml")))
    assert clean.stdout.strip() == f"{tasks} baselines unchanged (shop@1)"

    verifiers = world / "verifiers.py"
    verifiers.write_text(verifiers.read_text().replace("== 1000", "== 500"))
    changed = assay("baseline", "check", world, cwd=tmp_path)
    assert changed.returncode == 1
    lines = changed.stdout.splitlines()
    assert lines[0] == "goodwill-credit"
    name = "A $10 credit for the late delivery, confirmed by email"
    assert f"  ✗ reference · check '{name}': passed: true → false" in lines
    assert '  ✗ reference · outcome: "verified" → "not_achieved"' in lines
    assert lines[-1].endswith("in 1 tasks (shop@1); `assay baseline record` accepts them")

    report = json.loads(assay("baseline", "check", world, "--json", cwd=tmp_path).stdout)
    assert report["unchanged"] is False
    assert {change["task_id"] for change in report["changes"]} == {"goodwill-credit"}

    recorded = assay("baseline", "record", world, "--task", "goodwill-credit", cwd=tmp_path)
    assert recorded.returncode == 0
    assert recorded.stdout.strip().endswith("baselines/goodwill-credit.json")
    assert assay("baseline", "check", world, cwd=tmp_path).returncode == 0


def test_record_writes_one_file_per_task(tmp_path: Path):
    world = copy_shop(tmp_path / "shop")
    done = assay("baseline", "record", world, "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = json.loads(done.stdout)["written"]
    assert sorted(Path(path).stem for path in written) == sorted(
        path.stem for path in (world / "tasks").glob("*.toml")
    )


def test_a_missing_world_is_bad_input(tmp_path: Path):
    done = assay("baseline", "check", tmp_path / "nowhere", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "error: nowhere: not a directory\n"
