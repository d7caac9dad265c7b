"""`assay init NAME`: a new world that validates and passes with the reference agent as written."""

from __future__ import annotations

import json


def test_a_new_world_validates_and_passes(assay, tmp_path):
    done = assay("init", "desk")
    assert done.code == 0, done.err
    assert "Created desk" in done.out
    world = tmp_path / "desk"
    assert (world / "world.toml").read_text().count('name = "desk"') == 1
    validated = assay("validate", world, "--json")
    assert validated.code == 0, validated.out
    (task,) = json.loads(validated.out)["tasks"]
    assert task["task_id"] == "close-ticket" and task["passed"]
    ran = assay("run", world, "--agent", "reference", "--workers", "1", "--json")
    assert ran.code == 0, ran.err
    (result,) = json.loads(ran.out)["task_runs"]
    assert result["outcome"] == "verified"
    noop = assay("run", world, "--agent", "noop", "--workers", "1", "--fail-under", "1")
    assert noop.code == 1  # the checks judge: doing nothing fails


def test_an_empty_directory_is_filled(assay, tmp_path):
    (tmp_path / "empty").mkdir()
    assert assay("init", "empty").code == 0
    assert (tmp_path / "empty" / "tasks" / "close-ticket.toml").is_file()


def test_what_is_there_is_never_overwritten(assay, tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    (tmp_path / "file").write_text("mine")
    cases = {
        "full": "error: NAME: full is a directory that is not empty; give a new directory",
        "file": "error: NAME: file is a file; give a new directory",
        "no world!": "error: NAME: 'no world!' is not a world name",
    }
    for name, said in cases.items():
        done = assay("init", name)
        assert done.code == 2
        (line,) = done.err.splitlines()
        assert line.startswith(said), line
    assert sorted(p.name for p in (tmp_path / "full").iterdir()) == ["notes.txt"]
    assert (tmp_path / "file").read_text() == "mine"
