"""The web viewer over HTTP: the runs list and its filters, a run, a task run, two runs compared;
alone (no key) and mounted by the API at /view (the operator key only)."""

from __future__ import annotations

import warnings

import pytest
from apikit import OPERATOR, OPERATOR_KEY, bearer, create
from markupsafe import escape
from reportkit import expected_fields, shown_fields
from viewkit import record_runs
from worldkit import SHOP

from assay.report.comparison import load_comparison
from assay.runs.record import load_outcome
from assay.runs.store import open_store
from assay.view.app import create_viewer

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's test client warns about its httpx transport
    from fastapi.testclient import TestClient


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_runs(tmp_path_factory.mktemp("view"))


@pytest.fixture(scope="module")
def viewer(recorded):
    with open_store(recorded.store) as store, TestClient(create_viewer(store)) as client:
        yield client


def stored(recorded, run_id, **options):
    with open_store(recorded.store) as store:
        return load_outcome(store, run_id, trajectories=True, **options)


def listed(page: str) -> list[str]:
    return [line.split('"')[1] for line in page.split("<tr data-run=")[1:]]


def test_the_runs_list_filters_by_world_agent_and_day(viewer, recorded):
    every = viewer.get("/")
    assert every.status_code == 200
    assert every.headers["content-type"].startswith("text/html")
    assert listed(every.text) == [recorded.scored, recorded.noop, recorded.reference]
    assert listed(viewer.get("/?agent=noop").text) == [recorded.scored, recorded.noop]
    assert listed(viewer.get("/?world=shop&agent=reference").text) == [recorded.reference]
    assert listed(viewer.get("/?world=clinic").text) == []
    day = stored(recorded, recorded.noop).benchmark_run.started_at[:10]
    assert len(listed(viewer.get(f"/?since={day}&until={day}").text)) == 3
    assert listed(viewer.get("/?until=2000-01-01").text) == []
    assert listed(viewer.get("/?since=2999-01-01").text) == []
    assert listed(viewer.get("/?limit=1").text) == [recorded.scored]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("since=yesterday", "since: &#39;yesterday&#39; is not a day (YYYY-MM-DD)"),
        ("until=2026-13-01", "until: &#39;2026-13-01&#39; is not a day (YYYY-MM-DD)"),
        ("limit=0", "limit: &#39;0&#39; is not a whole number from 1 to 500"),
    ],
)
def test_a_bad_filter_is_a_422_page_with_one_line(viewer, query, message):
    response = viewer.get(f"/?{query}")
    assert response.status_code == 422
    assert f'<p class="error" data-field="error">{message}</p>' in response.text


def test_a_run_page_shows_the_store_s_figures_and_links_each_task_run(viewer, recorded):
    outcome = stored(recorded, recorded.reference)
    page = viewer.get(f"/runs/{recorded.reference[:9]}")
    assert page.status_code == 200
    figures = outcome.benchmark_run.model_dump(mode="json")
    shown = shown_fields(page.text)[recorded.reference]
    for name, value in expected_fields(figures).items():
        assert shown[name] == value, name
    for result in outcome.task_runs:
        link = f"/runs/{recorded.reference}/task-runs/{result.id}"
        assert f'href="{link}"' in page.text
    assert 'href="/assets/report.css"' in page.text
    assert viewer.get("/assets/report.css").headers["content-type"].startswith("text/css")


def test_a_task_run_page_shows_each_step_and_the_check_evidence(viewer, recorded):
    outcome = stored(recorded, recorded.noop, reveal=True)
    result = next(r for r in outcome.task_runs if not r.passed)
    page = viewer.get(f"/runs/{recorded.noop}/task-runs/{result.id}")
    assert page.status_code == 200
    steps = result.trajectory["steps"]
    assert f'data-steps="{len(steps)}"' in page.text
    assert page.text.count('<details class="step"') == len(steps)
    for step in steps:
        for event in step["events"]:
            if event.get("text"):
                assert str(escape(event["text"])) in page.text
    for check in result.checks:
        assert str(escape(check.name)) in page.text
        if not check.passed:
            assert str(escape(check.details)) in page.text
            assert "&#34;actual&#34;" in page.text or '"actual"' in page.text


def test_a_scored_run_shows_no_details_or_evidence(viewer, recorded):
    outcome = stored(recorded, recorded.scored, reveal=True)
    result = next(r for r in outcome.task_runs if not r.passed)
    failed = [check for check in result.checks if not check.passed]
    for path in (f"/runs/{recorded.scored}", f"/runs/{recorded.scored}/task-runs/{result.id}"):
        page = viewer.get(path).text
        assert "hidden: scored run" in page
        assert all(str(escape(check.details)) not in page for check in failed)


def test_the_compare_page_shows_the_paired_test(viewer, recorded):
    page = viewer.get(f"/compare?a={recorded.reference}&b={recorded.noop}")
    assert page.status_code == 200
    with open_store(recorded.store) as store:
        compared = load_comparison(store, recorded.reference, recorded.noop)
    test = compared.comparison.test
    shown = shown_fields(page.text)[""]
    assert shown["mean_difference"] == f"{test.mean_difference:+.3f}"
    assert shown["p_value"] == f"{test.p_value:.4f}"
    assert shown["compare-verdict"] == "significant regression"
    regressions = [t.task_id for t in compared.comparison.tasks]
    assert [line.split('"')[1] for line in page.text.split("<tr data-task=")[1:]] == regressions
    picker = viewer.get(f"/compare?a={recorded.noop}")
    assert picker.status_code == 200
    assert f'<option value="{recorded.noop}" selected>' in picker.text


def test_unknown_runs_are_404_pages(viewer, recorded):
    missing = viewer.get("/runs/br_nope")
    assert missing.status_code == 404
    assert "RUN: no benchmark run &#39;br_nope&#39;" in missing.text
    no_task_run = viewer.get(f"/runs/{recorded.noop}/task-runs/tr_nope")
    assert no_task_run.status_code == 404
    assert f"run {recorded.noop} has no finished task run &#39;tr_nope&#39;" in no_task_run.text
    compared = viewer.get(f"/compare?a={recorded.noop}&b=br_nope")
    assert compared.status_code == 404
    assert "RUN_B: no benchmark run" in compared.text


def test_the_api_mounts_the_viewer_for_the_operator_key_alone(recorded):
    from assay.api import open_api

    app, _ = open_api([SHOP], store=recorded.store, operator_key=OPERATOR_KEY)
    with TestClient(app) as api:
        assert api.get("/view/").status_code == 401
        assert api.get(f"/view/runs/{recorded.noop}").json()["error"]["code"] == "unauthorized"
        token = create(api)["bearer_token"]
        assert api.get("/view/", headers=bearer(token)).status_code == 403
        page = api.get("/view/", headers=OPERATOR)
        assert page.status_code == 200
        assert f'href="/view/runs/{recorded.noop}"' in page.text
        assert 'href="/view/assets/report.css"' in page.text
        run = api.get(f"/view/runs/{recorded.noop}", headers=OPERATOR)
        assert run.status_code == 200
        assert f'href="/view/runs/{recorded.noop}/task-runs/' in run.text
        assert not any(
            path.startswith("/view") for path in api.get("/openapi.json").json()["paths"]
        )


def test_without_the_report_extra_the_api_says_what_to_install(recorded, monkeypatch):
    import assay.report.requirements as requirements
    from assay.api import open_api

    monkeypatch.setattr(requirements, "find_spec", lambda name: None if name == "jinja2" else 1)
    app, _ = open_api([SHOP], store=recorded.store, operator_key=OPERATOR_KEY)
    with TestClient(app) as api:
        response = api.get("/view/runs/anything", headers=OPERATOR)
    assert response.status_code == 501
    assert response.json()["error"] == {
        "code": "viewer_unavailable",
        "message": "the web viewer needs jinja2 and matplotlib: pip install 'assay[report]'",
    }
