"""A run's page from results in memory: model usage, runs that were not scored, gaps in the grid."""

from __future__ import annotations

import pytest
from reportkit import shown_fields
from worldkit import SHOP

from assay.report.pages import run_page
from assay.report.render import render_report
from assay.runs import BenchmarkRunResult, open_benchmark, prepare, run_benchmark
from assay.runs.aggregate import aggregate
from assay.taskrun.rollout import RunError


@pytest.fixture(scope="module")
def outcome():
    benchmark = open_benchmark(SHOP)
    planned = prepare(benchmark, "reference", ["update-address", "refund-double-charge"], repeats=2)
    return run_benchmark(benchmark, "reference", planned, repeats=2)


def with_results(outcome, results):
    figures = aggregate(results).model_dump()
    run = BenchmarkRunResult(**{**outcome.benchmark_run.model_dump(), **figures})
    return outcome.model_copy(update={"benchmark_run": run, "task_runs": results})


def test_model_usage_is_shown_only_when_a_model_was_called(outcome):
    assert "Model usage" not in render_report([run_page(outcome)])
    results = [
        result.model_copy(
            update={
                "summary": result.summary.model_copy(
                    update={"model_calls": 3, "prompt_tokens": 1200, "completion_tokens": 80}
                )
            }
        )
        for result in outcome.task_runs
    ]
    html = render_report([run_page(with_results(outcome, results))])
    fields = shown_fields(html)[outcome.benchmark_run.id]
    assert "Model usage" in html
    assert (fields["model_calls"], fields["prompt_tokens"], fields["completion_tokens"]) == (
        "12",
        "4800",
        "320",
    )


def test_a_task_run_not_scored_is_listed_with_its_error(outcome):
    first, *rest = outcome.task_runs
    broken = first.model_copy(
        update={
            "outcome": "not_scored",
            "reward": None,
            "score": None,
            "verdict": None,
            "status": "failed",
            "error": RunError(side="agent", message="the agent <exited> with code 3"),
        }
    )
    page = run_page(with_results(outcome, [broken, *rest]))
    assert [(f.result.id, f.check) for f in page.failures] == [(broken.id, None)]
    html = render_report([page])
    assert "not scored: agent failed" in html
    assert "the agent &lt;exited&gt; with code 3" in html
    assert shown_fields(html)[outcome.benchmark_run.id]["outcome-not_scored"] == "1"


def test_the_grid_leaves_a_gap_where_a_task_run_has_not_finished(outcome):
    results = [r for r in outcome.task_runs if (r.task_id, r.repeat) != ("update-address", 1)]
    page = run_page(with_results(outcome, results))
    assert [row.task_id for row in page.grid] == list(dict.fromkeys(r.task_id for r in results))
    cells = {row.task_id: [c and c.repeat for c in row.cells] for row in page.grid}
    assert cells == {"refund-double-charge": [0, 1], "update-address": [0]}
    html = render_report([page])
    assert html.count('<td class="cell missing">') == 1


def test_a_task_run_without_a_trajectory_says_so(outcome):
    results = [outcome.task_runs[0].model_copy(update={"trajectory": None})]
    html = render_report([run_page(with_results(outcome, results))])
    assert "No trajectory was recorded for this task run." in html


def test_a_container_task_run_shows_its_verifier_output_and_reward_file(outcome):
    from assay.verify.check_run import CheckRun

    script = CheckRun(
        name="the task's tests pass",
        type="goal",
        kind="script",
        weight=1.0,
        axis=None,
        passed=False,
        score=0.25,
        details="reward 0.25 < 1",
        evidence={
            "status": "SCORED",
            "rewards": {"reward": 0.25, "speed": 1.0},
            "source": "/logs/verifier/reward.json",
            "exit_code": 1,
            "test_stdout_tail": "test_a PASSED\ntest_b FAILED: wanted 3, got 2",
        },
    )
    first, *rest = outcome.task_runs
    container = first.model_copy(update={"checks": [script]})
    html = render_report([run_page(with_results(outcome, [container, *rest]))])
    section = html[html.index(f'id="{container.id}"') :]
    assert "/logs/verifier/reward.json" in section
    assert "test_b FAILED: wanted 3, got 2" in section
    assert '<td>speed</td><td class="num">1.0</td>' in section
