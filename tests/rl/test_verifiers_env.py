"""A world as a `verifiers` environment (`assay.rl.verifiers`), rolled out by the library's own
loader and episode runner with its plain chat harness, the stand-in model behind it: the model
calls the role's tools over MCP, and the reward is assay's grade.

verifiers pins `mcp==2.0.0` and `openai<3`, which the project's extras do not allow, so it lives
in a test-only venv of its own with assay's core, built once under build/ while pyproject.toml
is unchanged. Its harness runs a PEP 723 chat program through uv (found beside this interpreter),
whose packages uv fetches once into its cache."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from modelkit import ScriptedModel, StandIn, solution_replies
from worldkit import SHOP

ROOT = Path(__file__).resolve().parents[2]
VERIFIERS = "verifiers>=0.4,<0.5"
ROLLOUT = Path(__file__).with_name("verifiers_rollout.py")


@pytest.fixture(scope="module")
def verifiers_python() -> str:
    key = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:12]
    place = ROOT / "build" / f"test-venv-verifiers-{key}"
    python = place / "bin" / "python"
    if not (place / "ready").exists():  # uv (from the sandbox extra): pip took minutes here
        uv = str(Path(sys.executable).parent / "uv")
        made = [uv, "venv", "--quiet", "--clear", "--python", sys._base_executable, place]
        subprocess.run(made, check=True)
        install = [uv, "pip", "install", "--quiet", "--python", python, VERIFIERS, "-e", ROOT]
        subprocess.run(install, check=True, timeout=900)
        (place / "ready").touch()
    return str(python)


def as_tool_calls(replies: list[dict]) -> list[dict]:
    """A reference solution as a model calling the MCP tools (named `assay_<tool>` by the
    harness): a message to the customer is `reply_to_customer`; then a last word, no call."""
    called = []
    for reply in replies:
        if "calls" in reply:
            called.append({"calls": [(f"assay_{name}", args) for name, args in reply["calls"]]})
        else:
            called.append({"calls": [("assay_reply_to_customer", {"text": reply["content"]})]})
    return [*called, {"content": "That is all done."}]


def rollouts(python: str, model: StandIn, tasks: list[str]) -> dict[str, dict]:
    tools = str(Path(sys.executable).parent)  # uv, from the sandbox extra
    env = {
        **os.environ,
        "OPENAI_API_KEY": "none",
        "PATH": f"{tools}:{os.environ['PATH']}",
    }
    ran = subprocess.run(
        [python, ROLLOUT, str(SHOP), model.url, *tasks],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stderr[-4000:]
    return {row["task"]: row for row in map(json.loads, ran.stdout.splitlines())}


def test_the_reference_solution_through_the_library_earns_assays_grade(shop, verifiers_python):
    chosen = ["refund-double-charge", "ask-for-email", "refuse-late-refund"]
    tasks = [shop.tasks[name] for name in chosen]
    scripts = {task.customer.request: as_tool_calls(solution_replies(task)) for task in tasks}
    with StandIn(ScriptedModel(scripts)) as model:
        rows = rollouts(verifiers_python, model, chosen)
    assert set(rows) == set(chosen)
    for row in rows.values():
        assert row["errors"] == [], row
        assert (row["reward"], row["metrics"]["assay_verified"]) == (1.0, 1.0), row
    assert rows["refund-double-charge"]["calls"] == [
        "assay_find_order",
        "assay_refund_payment",
        "assay_finish",
    ]
    assert "assay_reply_to_customer" in rows["ask-for-email"]["calls"]  # a multi-turn task


def test_a_model_that_does_nothing_gets_no_reward_and_a_rule_broken_costs(shop, verifiers_python):
    refund = shop.tasks["refund-double-charge"]
    late = {"calls": [("assay_refund_payment", {"order_id": "D-4002", "amount_cents": 6400})]}
    scripts = {
        refund.customer.request: [{"content": "I cannot help with that."}],
        shop.tasks["refuse-late-refund"].customer.request: [late, {"content": "Refunded."}],
    }
    with StandIn(ScriptedModel(scripts)) as model:
        rows = rollouts(verifiers_python, model, ["refund-double-charge", "refuse-late-refund"])
    idle, broke = rows["refund-double-charge"], rows["refuse-late-refund"]
    assert (idle["reward"], idle["metrics"]["assay_verified"], idle["calls"]) == (0.0, 0.0, [])
    assert broke["reward"] == -1.0, broke
