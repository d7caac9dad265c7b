"""Judge checks: opt-in, marked `judged` everywhere, and a judge that cannot be asked is not scored."""

from __future__ import annotations

import json
import sys

import pytest
from modelkit import StandIn
from settingskit import use_model_at, use_settings
from worldkit import write_world

from assay.cli.app import run_app
from assay.runs import open_benchmark
from assay.runs.handle import run_task
from assay.runs.plan import new_id
from assay.taskrun.agents.scripted import ActionsAgent
from assay.trust.validate import validate_world

TASK = """
title = "Greet"
role = "desk"

[customer]
request = "Say hello."

[[checks]]
name = "A note was added"
sql = "SELECT count(*) FROM notes"
expect = 3

[[checks]]
name = "The answer is polite"
assert = "judge"
rubric = "The answer greets the customer politely."
queries = { notes = "SELECT text FROM notes ORDER BY id" }

[solution]
steps = [{ call = "add_note", args = { text = "hello" } }, { finish = "Hello there!" }]
"""

ONLY_JUDGE = """
title = "Greet"
role = "desk"

[customer]
request = "Say hello."

[[checks]]
name = "The answer is polite"
assert = "judge"
rubric = "The answer greets the customer politely."
model = "judge-1"
"""


def verdict(passed=True, score=1.0):
    text = json.dumps({"passed": passed, "score": score, "reasoning": "It says hello."})
    return lambda body: {"content": f"Here is my verdict: {text}"}


@pytest.fixture
def desk(tmp_path):
    return write_world(tmp_path / "desk", tasks={"greet": TASK, "only-judge": ONLY_JUDGE})


def graded(desk, stand_in, monkeypatch, task="greet"):
    use_model_at(monkeypatch, stand_in.url)
    use_settings(monkeypatch, judge_model="judge-1")
    benchmark = open_benchmark(desk)
    spec = benchmark.tasks[task]
    actions = [
        {"call": {"tool": "add_note", "args": {"text": "hello"}}},
        {"finish": "Hello there!"},
    ]
    return run_task(benchmark, spec, ActionsAgent(actions), run_id=new_id("tr"))


def test_a_judge_reads_the_output_and_the_queries_and_is_marked(desk, monkeypatch):
    with StandIn(verdict()) as stand_in:
        result = graded(desk, stand_in, monkeypatch)
    assert result.outcome == "verified"
    judge = result.checks[1]
    assert (judge.judged, judge.passed, judge.score) == (True, True, 1.0)
    assert judge.as_json()["judged"] is True and "judged" not in result.checks[0].as_json()
    assert judge.details == "judged by judge-1: It says hello."
    assert judge.evidence["queries"] == {
        "notes": [{"text": "first"}, {"text": "second"}, {"text": "hello"}]
    }
    assert result.summary.judged_checks == 1
    prompt = stand_in.bodies[0]["messages"][1]["content"]
    assert "The answer greets the customer politely." in prompt and "Hello there!" in prompt
    assert result.redacted().checks[1].as_json()["judged"] is True  # scored mode keeps the mark


def test_a_failing_verdict_fails_the_check(desk, monkeypatch):
    with StandIn(verdict(passed=False, score=0.2)) as stand_in:
        result = graded(desk, stand_in, monkeypatch)
    assert result.outcome == "not_achieved"
    assert result.checks[1].score == 0.2


def test_a_judge_provider_that_fails_makes_the_run_not_scored(desk, monkeypatch):
    with StandIn(verdict()) as stand_in:
        stand_in.fail(5, 503)
        result = graded(desk, stand_in, monkeypatch)
    assert result.outcome == "not_scored"
    assert result.error.side == "scoring"
    assert "the judge's provider failed" in result.error.message


def test_a_reply_that_is_no_verdict_makes_the_run_not_scored(desk, monkeypatch):
    with StandIn(lambda body: {"content": "I think it is fine."}) as stand_in:
        result = graded(desk, stand_in, monkeypatch)
    assert result.outcome == "not_scored"
    assert "the judge did not give a verdict" in result.error.message


def test_validate_warns_when_only_a_judge_decides(desk, monkeypatch):
    with StandIn(verdict(passed=False, score=0.0)) as stand_in:
        use_model_at(monkeypatch, stand_in.url)
        (task,) = validate_world(desk, ["only-judge"]).tasks
    assert task.proofs["static"].warnings == [
        "every goal is a judge check: a model alone decides whether the task is done"
    ]


def test_assay_run_json_marks_the_judged_check_run_read_back_from_the_store(
    desk, monkeypatch, capsys, tmp_path
):
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    with StandIn(verdict()) as stand_in:
        for scored in ([], ["--scored"]):
            argv = ["assay", "run", str(desk), "--task", "greet", "--judge-model", "judge-1"]
            argv += ["--base-url", stand_in.url, "--model-retries", "0"]
            monkeypatch.setattr(sys, "argv", [*argv, "--json", *scored])
            with pytest.raises(SystemExit) as done:
                run_app()
            assert not done.value.code
            [task_run] = json.loads(capsys.readouterr().out)["task_runs"]
            assert task_run["outcome"] == "verified", task_run["error"]
            assert [check.get("judged") for check in task_run["checks"]] == [None, True]


def test_the_judges_model_calls_and_tokens_are_in_the_run_usage(desk, monkeypatch):
    with StandIn(verdict()) as stand_in:
        result = graded(desk, stand_in, monkeypatch)
    assert result.summary.model_calls == 1
    assert result.summary.prompt_tokens == stand_in.served_tokens[0] > 0
    assert result.summary.completion_tokens == stand_in.served_tokens[1]


def test_a_model_agents_usage_adds_to_the_judges(desk, monkeypatch):
    """The agent's usage used to replace the summary's counts; now every model is counted."""
    from assay.provider import ModelOptions
    from assay.taskrun.agents.model import ModelAgent

    def answer(body):
        if body.get("tools"):  # the agent
            return {"calls": [("finish", {"output": "Hello there!"})]}
        return verdict()(body)

    with StandIn(answer) as stand_in:
        use_settings(monkeypatch, judge_model="judge-1")
        options = ModelOptions(base_url=stand_in.url, retries=0)
        use_model_at(monkeypatch, stand_in.url)
        benchmark = open_benchmark(desk)
        agent = ModelAgent("agent-1", options)
        result = run_task(benchmark, benchmark.tasks["only-judge"], agent, run_id=new_id("tr"))
    assert result.outcome == "verified", result.error
    assert [body["model"] for body in stand_in.bodies] == ["agent-1", "judge-1"]
    assert result.summary.model_calls == 2
    assert result.summary.prompt_tokens == stand_in.served_tokens[0]


def test_without_the_sdk_a_judge_check_names_itself_and_the_extra(desk, monkeypatch):
    """It named `--agent model:…`, an option the run never used."""
    with StandIn(verdict()) as stand_in:
        monkeypatch.setitem(sys.modules, "openai", None)  # as if the package were not installed
        result = graded(desk, stand_in, monkeypatch)
    assert result.outcome == "not_scored"
    assert result.error.message == (
        "check 'The answer is polite': a judge check: the openai package is missing; "
        "pip install 'assay[model]'"
    )
