"""Running `assay run` against the attackers of tests/e2e/attack_agents.py, each told where
its targets are."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ASSAY = str(Path(sys.executable).with_name("assay"))
ATTACKS = Path(__file__).parent / "e2e" / "attack_agents.py"


def attacker(tmp_path: Path, targets: dict) -> Path:
    """A copy of the attackers that knows `targets` (as the strongest attacker would)."""
    agent = tmp_path / "attacker.py"
    agent.write_text(ATTACKS.read_text() + f"\nTARGETS = {json.dumps(targets)}\n")
    return agent


def assay(*args, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    home = {"ASSAY_HOME": str(cwd / "home")}
    return subprocess.run(
        [ASSAY, *map(str, args)],
        cwd=cwd,
        env={**os.environ, **home, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


def run_json(*args, cwd: Path, env: dict | None = None) -> list[dict]:
    ran = assay("run", *args, "--json", cwd=cwd, env=env)
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)["task_runs"]
