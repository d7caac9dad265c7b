"""`--keep-artifacts DIR` refused as bad input: one line naming the option, exit 2, nothing run."""

from __future__ import annotations

from pathlib import Path

from sandboxkit import make_task
from worldkit import write_world


def one_line(done) -> str:
    assert done.code == 2, (done.out, done.err)
    lines = done.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.err, done.err
    return lines[0]


def test_a_file_is_not_a_directory(assay, tmp_path: Path):
    make_task(tmp_path / "tasks", "t", test_sh="echo 1 > /logs/verifier/reward.txt\n")
    (tmp_path / "taken").write_text("x")
    done = assay("run", tmp_path / "tasks", "--agent", "noop", "--keep-artifacts", "taken")
    assert one_line(done) == "error: --keep-artifacts: taken is not a directory"


def test_a_folder_that_cannot_be_made(assay, tmp_path: Path):
    make_task(tmp_path / "tasks", "t", test_sh="echo 1 > /logs/verifier/reward.txt\n")
    (tmp_path / "taken").write_text("x")
    done = assay("run", tmp_path / "tasks", "--keep-artifacts", "taken/below")
    assert one_line(done).startswith("error: --keep-artifacts: taken/below cannot be made: ")


def test_a_database_world_has_no_trial_folders(assay, tmp_path: Path):
    write_world(tmp_path / "world")
    done = assay("run", tmp_path / "world", "--keep-artifacts", tmp_path / "kept")
    assert one_line(done) == (
        "error: --keep-artifacts: only container-format tasks leave trial folders"
    )


def test_a_scored_run_keeps_no_verifier_output(assay, tmp_path: Path):
    reward_1 = "echo 1 > /logs/verifier/reward.txt\n"
    make_task(tmp_path / "tasks", "t", test_sh=reward_1, solve_sh=":\n")
    done = assay("run", tmp_path / "tasks", "--scored", "--keep-artifacts", tmp_path / "kept")
    assert one_line(done).startswith("error: --keep-artifacts: a scored run")
    assert not any((tmp_path / "kept").iterdir())
