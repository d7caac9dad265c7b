"""The run page's task-run filters (in the URL) and the compare page's drill-down to one task."""

from __future__ import annotations

import re
import warnings

import pytest
from viewkit import TASKS, record_runs

from assay.runs.record import load_outcome
from assay.runs.store import open_store
from assay.view.app import create_viewer

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_runs(tmp_path_factory.mktemp("filters"))


@pytest.fixture(scope="module")
def viewer(recorded):
    with open_store(recorded.store) as store, TestClient(create_viewer(store)) as client:
        yield client


def task_runs_listed(html: str) -> list[str]:
    return re.findall(r'<details class="task-run" id="([^"]+)"', html)


def results(recorded, run_id):
    with open_store(recorded.store) as store:
        return load_outcome(store, run_id).task_runs


def test_each_filter_narrows_the_task_runs_and_the_figures_stay_the_run_s(viewer, recorded):
    every = results(recorded, recorded.reference)
    base = f"/runs/{recorded.reference}"
    assert task_runs_listed(viewer.get(base).text) == [r.id for r in every]
    by_task = viewer.get(f"{base}?task=refund").text
    assert task_runs_listed(by_task) == [r.id for r in every if "refund" in r.task_id]
    assert (
        f"showing {sum('refund' in r.task_id for r in every)} of {len(every)} task runs" in by_task
    )
    dev = [r.id for r in every if r.split == "dev"]
    assert task_runs_listed(viewer.get(f"{base}?split=dev").text) == dev
    assert task_runs_listed(viewer.get(f"{base}?outcome=rule_violated").text) == []
    mentioned = [r.id for r in every if "duplicate charge" in r.output]
    assert (
        mentioned
        and task_runs_listed(viewer.get(f"{base}?text=Duplicate%20Charge").text) == mentioned
    )


def test_a_bad_outcome_is_a_422_page_naming_it(viewer, recorded):
    page = viewer.get(f"/runs/{recorded.reference}?outcome=won")
    assert page.status_code == 422
    assert "outcome: &#39;won&#39; is not one of verified" in page.text


def test_a_compared_task_opens_both_runs_task_runs_side_by_side(viewer, recorded):
    a, b = recorded.reference, recorded.noop
    compare = viewer.get(f"/compare?a={a}&b={b}").text
    link = f"/compare/tasks/{TASKS[0]}?a={a}&amp;b={b}"
    assert f'href="{link}"' in compare
    page = viewer.get(link.replace("&amp;", "&"))
    assert page.status_code == 200
    sides = re.findall(r'<section class="side" data-run="([^"]+)"', page.text)
    assert sides == [a, b]
    shown = re.findall(r'<div class="side-task-run" data-task-run="([^"]+)"', page.text)
    wanted = [r.id for run in (a, b) for r in results(recorded, run) if r.task_id == TASKS[0]]
    assert shown == wanted
    assert 'data-table="refunds"' in page.text  # the reference's refund, beside noop's nothing
    assert "The agent changed no row" in page.text


def test_a_task_in_neither_run_is_a_404(viewer, recorded):
    page = viewer.get(f"/compare/tasks/nope?a={recorded.reference}&b={recorded.noop}")
    assert page.status_code == 404
