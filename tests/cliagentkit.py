"""What the tests of `--agent cli:NAME` share: the hello-world example task, a scripted model that
solves it, and the one task run of a run."""

from __future__ import annotations

import json
from pathlib import Path

from modelkit import ScriptedModel

HELLO = Path(__file__).parents[1] / "examples" / "tasks" / "hello-world"
WRITE_HELLO = "echo 'Hello, world!' > /app/hello.txt"
WROTE_IT = "I wrote /app/hello.txt."


def hello_script(reply_first: dict) -> ScriptedModel:
    """A model that solves hello-world: `reply_first` (which writes the file), then says it did."""
    instruction = (HELLO / "instruction.md").read_text()
    return ScriptedModel({instruction: [reply_first, {"content": WROTE_IT}]})


def run_json(assay_cli, *args: str) -> dict:
    done = assay_cli("run", *args, "--json")
    assert done.returncode == 0, done.stderr
    (run,) = json.loads(done.stdout)["task_runs"]
    return run
