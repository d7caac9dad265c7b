"""`assay run` of one task imports only what that run needs: no sqlglot once the world's proofs
are kept, no Rich for --json, no container-format loading for a database world."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from assay.runs import benchmark as loading
from assay.runs import open_benchmark

SHOP = Path(__file__).resolve().parents[2] / "worlds" / "shop"
NOT_NEEDED = ("sqlglot", "rich", "assay.world.sandbox", "assay.trust.validate", "alembic")


def test_a_json_run_of_a_proved_world_imports_nothing_it_does_not_need(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(loading, "_proved", set())
    open_benchmark(SHOP).close()  # proves the world and keeps the proofs, as a first run would
    script = (
        "import sys\n"
        "from assay.cli.app import run_app\n"
        f"sys.argv = ['assay', 'run', {str(SHOP)!r}, '--task', 'update-address', '--json',"
        f" '--store', {str(tmp_path / 'runs.db')!r}]\n"
        "try:\n"
        "    run_app()\n"
        "except SystemExit as done:\n"
        "    assert not done.code, done.code\n"
        f"print(sorted(name for name in {NOT_NEEDED!r} if name in sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=os.environ, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert '"outcome": "verified"' in done.stdout
    assert done.stderr.splitlines()[-1] == "[]"
