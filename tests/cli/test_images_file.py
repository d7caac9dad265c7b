"""A task set's images.toml that is wrong stops `assay run` in one line naming file and field."""

from __future__ import annotations

from pathlib import Path

from sandboxkit import make_task


def test_a_bad_images_toml_is_one_line_and_exit_2(assay, tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    make_task(tasks, "one", test_sh="echo 1 > /logs/verifier/reward.txt\n")
    (tasks / "images.toml").write_text('[images."alpine:*"]\nsuite = "buster"\n')
    for target in (tasks, tasks / "one"):  # the whole set, or one task of it
        ran = assay("run", target, "--agent", "noop")
        assert ran.code == 2, ran.err
        (line,) = ran.err.strip().splitlines()
        assert "images.toml: images.alpine:*.suite: " in line and "Traceback" not in ran.err
