"""The command-line agents assay ships (`--agent cli:NAME`): each installed into the hello-world
task's sandbox, driven by a scripted model on the stand-in server in its own API's shape, and
graded by the task's own tests. Apart from test_cli_agents.py, whose runs are short, so that the
suite's workers share the long installs out."""

from __future__ import annotations

import pytest
from cliagentkit import HELLO, WRITE_HELLO, WROTE_IT, hello_script, run_json
from modelkit import ScriptedModel, StandIn
from sandboxrun import run_one

from assay.world.container import sandbox_available

pytestmark = [
    pytest.mark.skipif(sandbox_available() is not None, reason="no bubblewrap here"),
    pytest.mark.usefixtures("no_host_key"),
]
MINI_SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


def test_mini_swe_agent_solves_hello_world_with_a_scripted_model(assay_cli):
    said = {"content": "I write the file.", "calls": [("bash", {"command": WRITE_HELLO})]}
    instruction = (HELLO / "instruction.md").read_text()
    submit = {"content": WROTE_IT, "calls": [("bash", {"command": MINI_SUBMIT})]}
    with StandIn(ScriptedModel({instruction: [said, submit]})) as model:
        run = run_json(
            assay_cli, str(HELLO), "--agent", "cli:mini-swe-agent:stand-in", "--base-url", model.url
        )
        bodies = model.bodies

    assert (run["outcome"], run["reward"]) == ("verified", 1), run["error"]
    assert len(bodies) == 2 and bodies[0]["model"] == "stand-in"
    assert instruction in bodies[0]["messages"][1]["content"]
    transcript = run["trajectory"]["transcript"]
    assert transcript["info"]["exit_status"] == "Submitted"
    assert run["summary"]["model_calls"] == 2
    assert run["summary"]["completion_tokens"] == 20


def test_claude_code_solves_hello_world_over_streamed_anthropic_messages(assay_cli):
    bash = {
        "content": "I write the file.",
        "calls": [("Bash", {"command": WRITE_HELLO, "description": "Write the file"})],
    }
    with StandIn(hello_script(bash)) as model:
        base_url = model.url.removesuffix("/v1")  # Anthropic's clients add /v1 themselves
        run = run_json(
            assay_cli, str(HELLO), "--agent", "cli:claude-code:stand-in", "--base-url", base_url
        )
        bodies = model.bodies

    assert (run["outcome"], run["reward"]) == ("verified", 1), run["error"]
    assert all(body["stream"] is True for body in bodies)
    assert bodies[0]["model"] == "stand-in"
    assert any(tool["name"] == "Bash" for tool in bodies[0]["tools"])
    result = run["trajectory"]["transcript"][-1]
    assert (result["type"], result["result"]) == ("result", WROTE_IT)
    summary = run["summary"]
    assert summary["model_calls"] == 2
    assert summary["prompt_tokens"] == result["usage"]["input_tokens"] > 0
    assert summary["completion_tokens"] == 20


def test_the_codex_cli_solves_hello_world_over_streamed_openai_responses(assay_cli):
    shell = {"content": "I write the file.", "calls": [("exec_command", {"cmd": WRITE_HELLO})]}
    with StandIn(hello_script(shell)) as model:
        run = run_json(
            assay_cli, str(HELLO), "--agent", "cli:codex:stand-in", "--base-url", model.url
        )
        bodies = model.bodies

    assert (run["outcome"], run["reward"]) == ("verified", 1), run["error"]
    assert len(bodies) == 2 and all(body["stream"] is True for body in bodies)
    outputs = [item for item in bodies[1]["input"] if item.get("type") == "function_call_output"]
    assert len(outputs) == 1
    transcript = [line for line in run["trajectory"]["transcript"] if isinstance(line, dict)]
    said = [
        line["item"]["text"]
        for line in transcript
        if line.get("item", {}).get("type") == "agent_message"
    ]
    assert said[-1] == WROTE_IT
    (done,) = [line for line in transcript if line.get("type") == "turn.completed"]
    assert run["summary"]["prompt_tokens"] == done["usage"]["input_tokens"] > 0
    assert run["summary"]["completion_tokens"] == 20


def test_aider_solves_hello_world_with_a_scripted_model(monkeypatch):
    # In this process, not through assay_cli: aider's first install takes longer than its limit.
    whole_file = {"content": "I create the file.\n\nhello.txt\n```\nHello, world!\n```\n"}
    instruction = (HELLO / "instruction.md").read_text()
    with StandIn(ScriptedModel({instruction: [whole_file]})) as model:
        monkeypatch.setenv("OPENAI_BASE_URL", model.url)
        result = run_one(HELLO, "cli:aider:stand-in")
        bodies = model.bodies

    assert (result.outcome, result.reward) == ("verified", 1), result.error
    assert len(bodies) == 1 and bodies[0]["model"] == "stand-in"
    transcript = result.trajectory["transcript"]
    assert "I create the file." in transcript and "Applied edit to hello.txt" in transcript
