"""The shipped command-line agents over container tasks, each against the same oracle outcome.

    python bench/cli_agents.py [--tasks DIR] [--agents reference,mini-swe-agent,claude-code,codex]
                               [--out FILE]

For every task directory under DIR (default `examples/tasks`) it runs the oracle (`--agent
reference`, the task's own solution) and then each CLI agent (`--agent cli:NAME:stand-in`), each
through `assay run TASK --json` in a process of its own, as a user would start it. The model is the
tests' local stand-in server (tests/modelkit.py), speaking whichever API the agent uses, scripted as
a model that knows the solution would answer: its first reply runs the task's `solution/solve.sh`
text through the agent's own shell tool, its second says it is done. So an agent whose outcome
differs from the oracle's lost something between the model and the task's sandbox: its install,
its tool, the endpoint's relay, the instruction it was given.

It prints one JSON object: per task the oracle's outcome and each agent's, whether they agree, and
seconds per task run; and per agent how many tasks agree. aider is left out: it edits files named
in its reply rather than running commands, so a solution script is not something it can play (its
end-to-end test plays a file edit on hello-world).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
ASSAY = str(Path(sys.executable).parent / "assay")
AGENTS = ("reference", "mini-swe-agent", "claude-code", "codex")
RUN_TIMEOUT_S = 900
DONE = "I ran the solution."
MINI_SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


def replies(agent: str, script: str) -> list[dict[str, Any]]:
    """A model's two replies to `agent`: run `script` with the agent's shell tool, then done."""
    if agent == "mini-swe-agent":  # it ends by printing its own word for "submit"
        return [
            {"content": "I run the solution.", "calls": [("bash", {"command": script})]},
            {"content": DONE, "calls": [("bash", {"command": MINI_SUBMIT})]},
        ]
    call = {
        "reference": ("bash", {"command": script}),
        "claude-code": ("Bash", {"command": script, "description": "Run the solution"}),
        "codex": ("exec_command", {"cmd": script}),
    }[agent]
    return [{"content": "I run the solution.", "calls": [call]}, {"content": DONE}]


def assay_run(task: Path, agent_args: list[str], env: dict[str, str]) -> dict[str, Any]:
    """One `assay run TASK --json`: its outcome, reason and seconds."""
    started = time.perf_counter()
    done = subprocess.run(
        [ASSAY, "run", str(task), *agent_args, "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=RUN_TIMEOUT_S,
    )
    seconds = round(time.perf_counter() - started, 1)
    if done.returncode != 0 or not done.stdout.strip():
        return {
            "outcome": f"exit {done.returncode}",
            "why": done.stderr.strip()[-300:],
            "s": seconds,
        }
    (found,) = json.loads(done.stdout)["task_runs"]
    error = (found.get("error") or {}).get("message") if found.get("error") else None
    return {"outcome": found["outcome"], "why": error, "s": seconds}


def main() -> None:
    from modelkit import ScriptedModel, StandIn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=Path, default=ROOT / "examples" / "tasks")
    parser.add_argument("--agents", default=",".join(AGENTS))
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    agents = [name for name in arguments.agents.split(",") if name]
    tasks = sorted(path.parent for path in arguments.tasks.glob("*/task.toml"))
    env = {**os.environ, "COLUMNS": "200"}
    found: dict[str, Any] = {}
    for task in tasks:
        instruction = (task / "instruction.md").read_text()
        script = (task / "solution" / "solve.sh").read_text()
        row: dict[str, Any] = {"oracle": assay_run(task, ["--agent", "reference"], env)}
        for agent in agents:
            with StandIn(ScriptedModel({instruction: replies(agent, script)})) as model:
                url = model.url.removesuffix("/v1") if agent == "claude-code" else model.url
                args = ["--agent", f"cli:{agent}:stand-in", "--base-url", url]
                row[agent] = assay_run(task, args, env)
            row[agent]["agrees"] = row[agent]["outcome"] == row["oracle"]["outcome"]
        found[task.name] = row
        print(json.dumps({task.name: row}), file=sys.stderr)
    summary = {agent: sum(row[agent]["agrees"] for row in found.values()) for agent in agents}
    report = {"tasks": len(found), "agree": summary, "by_task": found}
    text = json.dumps(report, indent=2)
    if arguments.out:
        arguments.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
