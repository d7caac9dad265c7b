"""The cycle collector is paused while `assay` starts and back on, with the start's objects frozen
out of its passes, for the work that follows: a task run's tools see it on. Inside another program
the command line leaves the collector as it found it."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

WORLD = """
name = "collector"
version = "1"
tools = ["tools.py"]

[database]
schema = "schema.sql"

[roles.worker]
tools = ["note_collector"]
"""

TOOLS = '''
import gc

from assay import tool


@tool(writes=True)
def note_collector(world) -> dict:
    """Note whether the cycle collector is on, and how many objects it keeps out of its passes."""
    on, frozen = gc.isenabled(), gc.get_freeze_count()
    world.db.execute("INSERT INTO collector (enabled, frozen) VALUES (?, ?)", on, frozen)
    return {"enabled": on, "frozen": frozen}
'''

TASK = """
title = "Note the collector"
role = "worker"

[customer]
request = "Note the collector."

[[checks]]
name = "On while the task ran"
sql = "SELECT enabled FROM collector"
expect = 1

[[checks]]
name = "The start frozen out of its passes"
sql = "SELECT frozen > 10000 FROM collector"
expect = 1

[solution]
steps = [{ call = "note_collector", args = {} }, { finish = "Noted." }]
"""


def write_world(root: Path) -> Path:
    (root / "tasks").mkdir(parents=True)
    (root / "world.toml").write_text(WORLD)
    (root / "schema.sql").write_text("CREATE TABLE collector (enabled INTEGER, frozen INTEGER);\n")
    (root / "tools.py").write_text(TOOLS)
    (root / "tasks" / "note.toml").write_text(TASK)
    return root


def test_an_assay_run_grades_with_the_collector_on_and_its_start_frozen(tmp_path):
    world = write_world(tmp_path / "world")
    env = {**os.environ, "ASSAY_HOME": str(tmp_path / "home")}
    command = [sys.executable, "-m", "assay", "run", str(world), "--agent", "reference", "--json"]
    done = subprocess.run(
        [*command, "--store", str(tmp_path / "runs.db")], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    (result,) = json.loads(done.stdout)["task_runs"]
    assert result["outcome"] == "verified", result["checks"]


def test_the_command_line_inside_another_program_leaves_the_collector_as_it_was(assay, tmp_path):
    world = write_world(tmp_path / "world")
    frozen = gc.get_freeze_count()
    ran = assay("run", world, "--agent", "reference", "--json")
    assert ran.code == 0, ran.err
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen
    (result,) = json.loads(ran.out)["task_runs"]
    checks = {check["name"]: check["passed"] for check in result["checks"]}
    assert checks == {"On while the task ran": True, "The start frozen out of its passes": False}
