"""`--agent cli:NAME`: a command-line agent installed into a container task's sandbox, run with the
instruction against the stand-in model server, graded by the task's own tests; and its bad input."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cliagentkit import HELLO, WRITE_HELLO, WROTE_IT, hello_script, run_json
from modelkit import ScriptedModel, StandIn
from sandboxkit import make_task

from assay.world.container import sandbox_available

pytestmark = [
    pytest.mark.skipif(sandbox_available() is not None, reason="no bubblewrap here"),
    pytest.mark.usefixtures("no_host_key"),
]


def recipe(tmp_path: Path, install: str = "true", run: str = "true", **more: str) -> Path:
    """A user's recipe file in `tmp_path`."""
    lines = [
        'api = "openai-chat"',
        'model = "any"',
        f"install = {json.dumps(install)}",
        f"run = {json.dumps(run)}",
    ]
    lines += [f"{key} = {json.dumps(value)}" for key, value in more.items()]
    path = tmp_path / "agent.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def writes_file_task(
    tmp_path: Path, timeout_s: int = 30, test: str | None = None, environment: str = ""
) -> Path:
    """A task verified when /app/done exists (or as `test` says), its [environment] `environment`."""
    toml = f"[agent]\ntimeout_sec = {timeout_s}\n\n[verifier]\ntimeout_sec = 30\n\n[environment]\n{environment}\n"
    test = test or "[ -e /app/done ]"
    test = f"mkdir -p /logs/verifier\nif {test}; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n"
    return make_task(
        tmp_path,
        "done-file",
        test_sh=test,
        toml=toml,
        dockerfile="FROM debian:bookworm-slim\nWORKDIR /app\n",
    )


def test_the_reference_agent_solves_hello_world_with_a_scripted_model(assay_cli):
    bash = {"calls": [("bash", {"command": WRITE_HELLO})]}
    with StandIn(hello_script(bash)) as model:
        run = run_json(
            assay_cli, str(HELLO), "--agent", "cli:reference:stand-in", "--base-url", model.url
        )
        bodies = model.bodies

    assert (run["outcome"], run["reward"]) == ("verified", 1)
    assert [body["model"] for body in bodies] == ["stand-in", "stand-in"]
    assert bodies[0]["tools"][0]["function"]["name"] == "bash"
    # the model saw what its command did: exit code 0
    assert bodies[1]["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_1_0",
        "content": "exit code 0\n",
    }
    transcript = run["trajectory"]["transcript"]
    assert transcript[0]["model"] == "stand-in"
    assert transcript[-1]["reply"]["choices"][0]["message"]["content"] == WROTE_IT
    summary = run["summary"]
    assert summary["model_calls"] == 2
    served = sum(step["reply"]["usage"]["prompt_tokens"] for step in transcript[1:])
    assert summary["prompt_tokens"] == served > 0
    assert summary["completion_tokens"] == 20


def test_the_agents_key_reaches_it_but_no_recorded_action(assay_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-of-the-user")
    path = recipe(tmp_path, run='echo "key=$OPENAI_API_KEY url=$OPENAI_BASE_URL" > /app/done')
    task = writes_file_task(tmp_path)
    with StandIn(ScriptedModel({})) as model:
        run = run_json(assay_cli, str(task), "--agent", f"cli:{path}", "--base-url", model.url)

    assert run["outcome"] == "verified"
    steps = json.dumps(run["trajectory"]["steps"])
    assert "sk-secret-of-the-user" not in steps
    assert "$OPENAI_API_KEY" in steps


def test_an_unknown_cli_agent_is_one_line_naming_the_shipped_ones(assay_cli):
    done = assay_cli("run", str(HELLO), "--agent", "cli:nosuch")

    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0
    assert "unknown CLI agent 'nosuch'" in done.stderr and "reference" in done.stderr


def test_a_recipe_with_a_misspelled_field_names_its_file_and_field(assay_cli, tmp_path):
    path = recipe(tmp_path, instal="pip install x")

    done = assay_cli("run", str(HELLO), "--agent", f"cli:{path}")

    assert done.returncode == 2
    assert f"{path}: instal:" in done.stderr and "Traceback" not in done.stderr


def test_a_failing_install_is_not_scored_with_the_installs_own_words(assay_cli, tmp_path):
    path = recipe(tmp_path, install="echo 'E: Unable to locate package nosuch' >&2; exit 100")

    run = run_json(assay_cli, str(HELLO), "--agent", f"cli:{path}")

    assert run["outcome"] == "not_scored"
    message = run["error"]["message"]
    assert "agent_install_failed: agent: the install exited 100" in message
    assert "Unable to locate package nosuch" in message


def test_an_agent_that_never_exits_is_stopped_at_the_tasks_timeout(assay_cli, tmp_path):
    path = recipe(tmp_path, run="touch /app/started; sleep infinity")
    task = writes_file_task(tmp_path, timeout_s=3)

    run = run_json(assay_cli, str(task), "--agent", f"cli:{path}")

    assert run["outcome"] == "not_achieved"
    assert run["summary"]["termination"] == "timeout"
    assert run["duration_s"] < 60
    result = run["trajectory"]["steps"][1]["events"][0]["result"]
    assert result["exit_code"] == 124


def test_an_agent_that_floods_its_output_keeps_its_cap_and_runs_to_its_end(assay_cli, tmp_path):
    flood = "head -c 50000000 /dev/zero | tr '\\0' x; echo; touch /app/done"
    path = recipe(tmp_path, run=flood)
    task = writes_file_task(tmp_path)

    done = assay_cli("run", str(task), "--agent", f"cli:{path}", "--json")

    assert done.returncode == 0, done.stderr
    (run,) = json.loads(done.stdout)["task_runs"]
    assert run["outcome"] == "verified"  # the agent went on past the cap and finished its work
    transcript = run["trajectory"]["transcript"]
    assert len(transcript) == 4 << 20
    assert len(done.stdout) < 12 << 20


def test_a_cli_agent_on_a_world_that_is_not_container_tasks_is_refused(assay_cli):
    shop = Path(__file__).parents[2] / "worlds" / "shop"
    if not shop.is_dir():
        pytest.skip("no shop world")
    done = assay_cli("run", str(shop), "--agent", "cli:reference:m")

    assert done.returncode == 2
    assert "CLI agents run container-format tasks only" in done.stderr


def test_an_agent_that_exits_itself_is_seen_with_its_own_exit_code(assay_cli, tmp_path):
    path = recipe(tmp_path, run="touch /app/done; echo said it; exit 3")
    task = writes_file_task(tmp_path)

    run = run_json(assay_cli, str(task), "--agent", f"cli:{path}")

    assert run["outcome"] == "verified"
    result = run["trajectory"]["steps"][1]["events"][0]["result"]
    assert (result["exit_code"], result["stdout"]) == (3, "said it\n")


# Asks the endpoint the agent was given for a completion, and saves the URL it used.
ASK_MODEL = """python3 - <<'PY'
import json, os, urllib.request
url = os.environ["OPENAI_BASE_URL"]
open("/app/url", "w").write(url)
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
asked = urllib.request.Request(url + "/chat/completions", body, {"Content-Type": "application/json"})
with urllib.request.urlopen(asked, timeout=10) as reply:
    open("/app/done", "w").write(json.load(reply)["choices"][0]["message"]["content"])
PY"""
# Passes when the URL the agent used reaches nothing any more.
NOT_REACHED = (
    "! python3 -c 'import urllib.request; "
    'urllib.request.urlopen(open("/app/url").read() + "/models", timeout=5)\' 2>/dev/null'
)


def test_a_no_network_task_reaches_its_local_endpoint_through_the_relay_and_its_verifier_not(
    assay_cli, tmp_path
):
    path = recipe(tmp_path, run=ASK_MODEL)
    test = f'[ "$(cat /app/done)" = hello ] && {NOT_REACHED}'
    task = writes_file_task(tmp_path, test=test, environment='network_mode = "no-network"')
    with StandIn(ScriptedModel({"hi": [{"content": "hello"}]})) as model:
        run = run_json(assay_cli, str(task), "--agent", f"cli:{path}", "--base-url", model.url)
        asked = len(model.bodies)

    assert run["outcome"] == "verified", run["trajectory"]["steps"][1]
    assert asked == 1


# Asks the proxy for a tunnel to each host named, and prints the status of each answer.
TUNNELS = """python3 - models.example.org other.example.org <<'PY'
import http.client, os, sys, urllib.parse
proxy = urllib.parse.urlsplit(os.environ["HTTPS_PROXY"])
for host in sys.argv[1:]:
    tunnel = http.client.HTTPConnection(proxy.hostname, proxy.port, timeout=30)
    tunnel.request("CONNECT", f"{host}:443")
    print(host, tunnel.getresponse().status)
PY
touch /app/done"""


def test_an_https_endpoint_joins_the_agent_phases_allowlist_of_a_no_network_task(
    assay_cli, tmp_path
):
    path = recipe(tmp_path, run=TUNNELS)
    task = writes_file_task(tmp_path, environment='network_mode = "no-network"')

    run = run_json(
        assay_cli,
        str(task),
        "--agent",
        f"cli:{path}",
        "--base-url",
        "https://models.example.org/v1",
    )

    assert run["outcome"] == "verified"
    printed = run["trajectory"]["steps"][1]["events"][0]["result"]["stdout"].split("\n")
    # the endpoint's host is admitted (it does not resolve here: 502), any other refused (403)
    assert "other.example.org 403" in printed
    assert any(line.startswith("models.example.org ") for line in printed)
    assert "models.example.org 403" not in printed


def test_a_cli_agent_runs_again_for_each_step_with_that_steps_instruction(assay_cli, tmp_path):
    """A multi-step task: after the agent finishes a step, it runs again with the next one."""
    path = recipe(tmp_path, run='echo "$ASSAY_INSTRUCTION" >> /app/seen')
    task = tmp_path / "steps"
    seen_first = '[ "$(sed -n 1p /app/seen)" = "Say one." ]'
    seen_both = seen_first + ' && [ "$(sed -n 2p /app/seen)" = "Say two." ]'
    files = {
        "task.toml": '[agent]\ntimeout_sec = 30\n[[steps]]\nname = "one"\n[[steps]]\nname = "two"\n',
        "environment/Dockerfile": "FROM debian:bookworm-slim\nWORKDIR /app\n",
        "steps/one/instruction.md": "Say one.",
        "steps/two/instruction.md": "Say two.",
        "steps/one/tests/test.sh": f"if {seen_first}; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n",
        "steps/two/tests/test.sh": f"if {seen_both}; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n",
    }
    for relative, text in files.items():
        (task / relative).parent.mkdir(parents=True, exist_ok=True)
        (task / relative).write_text(text)
        if relative.endswith(".sh"):
            os.chmod(task / relative, 0o755)

    run = run_json(assay_cli, str(task), "--agent", f"cli:{path}")

    assert run["outcome"] == "verified", run.get("error")
    steps = [step["rewards"] for step in run["checks"][0]["evidence"]["steps"]]
    assert steps == [{"reward": 1.0}, {"reward": 1.0}]
