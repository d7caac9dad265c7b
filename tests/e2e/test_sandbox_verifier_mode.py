"""`assay run --verifier-mode separate` in real sandboxes and worker processes: a task that would
be verified in the agent's sandbox is verified in a fresh one, which sees none of what the agent
left outside its declared artifacts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sandboxkit import make_task

from assay.world.container import sandbox_available

pytestmark = pytest.mark.skipif(sandbox_available() is not None, reason="no bubblewrap here")

# The oracle leaves a file outside any artifact; a shared verifier sees it, a separate one cannot.
SEES_TMP = (
    "if test -f /tmp/left-by-agent; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n"
)


@pytest.fixture
def tasks(tmp_path: Path) -> Path:
    folder = tmp_path / "tasks"
    for name in ("first", "second"):
        make_task(folder, name, test_sh=SEES_TMP, solve_sh="touch /tmp/left-by-agent\n")
    return folder


def rewards(done) -> dict[str, float | None]:
    assert done.returncode == 0, done.stderr
    runs = json.loads(done.stdout)["task_runs"]
    return {
        run["task_id"]: next(c for c in run["checks"] if c["assert"] == "script")["evidence"][
            "primary"
        ]
        for run in runs
    }


def test_separate_verifies_every_task_in_a_fresh_sandbox(assay_cli, tasks: Path) -> None:
    shared = assay_cli("run", str(tasks), "--json", "--workers", "2")
    assert rewards(shared) == {"first": 1.0, "second": 1.0}
    separate = assay_cli(
        "run", str(tasks), "--json", "--workers", "2", "--verifier-mode", "separate"
    )
    assert rewards(separate) == {"first": 0.0, "second": 0.0}
    assert json.loads(separate.stdout)["benchmark_run"]["verifier_mode"] == "separate"
