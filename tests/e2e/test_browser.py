"""The report file and the viewer in a real headless Chromium: the numbers shown are the store's,
nothing is logged as an error, a report fetches nothing, and trajectories open step by step."""

from __future__ import annotations

import json
import subprocess

import pytest
from apikit import ASSAY
from browserkit import chromium, missing, screenshot, viewer_server, watched_page
from reportkit import expected_fields
from viewkit import record_runs

from assay.report.comparison import load_comparison
from assay.runs.record import load_outcome
from assay.runs.store import open_store

if missing():
    pytest.skip(f"no browser here: {missing()}", allow_module_level=True)

VERIFIED_GREEN = "rgb(46, 125, 50)"


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_runs(tmp_path_factory.mktemp("browser"))


def stored(recorded, run_id):
    with open_store(recorded.store) as store:
        return load_outcome(store, run_id, trajectories=True)


def figures(recorded, run_id) -> dict:
    return stored(recorded, run_id).benchmark_run.model_dump(mode="json")


def assert_figures(page, run_id: str, run: dict) -> None:
    section = page.locator(f'section[data-run="{run_id}"]')
    for name, value in expected_fields(run).items():
        assert section.locator(f'[data-field="{name}"]').inner_text().strip() == value, name


def assert_no_credit_for_doing_nothing(page, run_id: str) -> None:
    """The noop run's axis of rules only reads `rules held N/N`, never a score of 1."""
    section = page.locator(f'section[data-run="{run_id}"]')
    safety = section.locator('[data-field="axis-safety"]').inner_text()
    assert safety.startswith("rules held ")
    held, of = safety.removeprefix("rules held ").split("/")
    assert held == of != "0"
    line = section.locator('[data-field="verdict-line"]').inner_text()
    assert line.endswith(" · 0 rule violated · 0 not scored"), line


def test_the_report_opens_offline_and_shows_the_store_s_numbers(browser, recorded, tmp_path):
    out = tmp_path / "report.html"
    ran = subprocess.run(
        [ASSAY, "report", recorded.reference, recorded.noop, "--store", recorded.store],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    url = out.as_uri()
    with watched_page(browser, allowed=lambda u: u == url, offline=True) as watched:
        page = watched.page
        page.goto(url)
        for run_id in (recorded.reference, recorded.noop):
            assert_figures(page, run_id, figures(recorded, run_id))
        assert_no_credit_for_doing_nothing(page, recorded.noop)
        with open_store(recorded.store) as store:
            compared = load_comparison(store, recorded.reference, recorded.noop)
        test = compared.comparison.test
        comparison = page.locator("section.comparison")
        assert comparison.locator('[data-field="p_value"]').inner_text() == f"{test.p_value:.4f}"
        shown_difference = comparison.locator('[data-field="mean_difference"]').inner_text()
        assert shown_difference == f"{test.mean_difference:+.3f}"
        assert page.locator("section.run svg").count() == 4  # pass@k and axes, per run

        outcome = stored(recorded, recorded.reference)
        cells = page.locator(f'section[data-run="{recorded.reference}"] td.cell')
        assert cells.count() == len(outcome.task_runs)
        colour = cells.first.evaluate("cell => getComputedStyle(cell).backgroundColor")
        assert colour == VERIFIED_GREEN

        result = outcome.task_runs[0]
        steps = result.trajectory["steps"]
        task_run = page.locator(f'details.task-run[id="{result.id}"]')
        step_summaries = task_run.locator("details.step > summary")
        assert not step_summaries.first.is_visible()
        task_run.locator("> summary").click()
        assert step_summaries.count() == len(steps)
        assert all(step_summaries.nth(i).is_visible() for i in range(len(steps)))
        assert step_summaries.first.inner_text().startswith("turn 0 · call ")
        first_event = steps[0]["events"][0]["text"]
        event = task_run.locator("details.step").first.locator(".event").first
        assert not event.is_visible()
        step_summaries.first.click()
        assert event.is_visible()
        assert first_event in event.inner_text()
        screenshot(page, "report")
        assert watched.errors == []
        assert watched.requests == []  # nothing fetched but the file itself


def test_the_report_filters_its_task_runs_and_keeps_them_in_the_link(browser, recorded, tmp_path):
    out = tmp_path / "report.html"
    ran = subprocess.run(
        [ASSAY, "report", recorded.reference, "--store", recorded.store, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    url = out.as_uri()
    every = stored(recorded, recorded.reference).task_runs
    with watched_page(browser, allowed=lambda u: u.split("#")[0] == url, offline=True) as watched:
        page = watched.page
        page.goto(url)
        section = page.locator(f'section[data-run="{recorded.reference}"]')
        task_runs = section.locator("details.task-run")
        assert task_runs.count() == len(every)

        def shown() -> list[str]:
            visible = section.locator("details.task-run:visible")
            return [visible.nth(i).get_attribute("id") for i in range(visible.count())]

        form = page.locator("form.report-filters")
        assert len(shown()) == len(every)
        form.get_by_label("outcome").select_option("not_achieved")
        assert shown() == []  # the reference achieved every task
        assert section.locator("td.cell.filtered-out").count() == len(every)
        form.get_by_label("outcome").select_option("")
        form.get_by_label("task").fill("refund-double")
        kept = [r.id for r in every if r.task_id == "refund-double-charge"]
        assert shown() == kept
        said = page.locator('[data-field="filtered"]').inner_text()
        assert said.startswith(f"showing {len(kept)} of {len(every)} task runs")
        assert page.url.endswith("#task=refund-double")
        form.get_by_label("task").fill("")
        form.get_by_label("text").fill("address")  # in a title, an output or a check
        by_text = shown()
        assert by_text and len(by_text) < len(every)
        form.get_by_label("rule broken").fill("any")  # the reference broke none
        assert shown() == []
        form.get_by_label("rule broken").fill("")
        found = next(r for r in every if r.id in by_text)
        split, axis = found.split, max(found.axes)
        form.get_by_label("split").select_option(split)
        form.get_by_label("axis").select_option(axis)
        expected = [r.id for r in every if r.split == split and axis in r.axes and r.id in by_text]
        assert found.id in expected and shown() == expected
        link = page.url
        screenshot(page, "report-filtered")
        page.goto("about:blank")
        page.goto(link)  # the link alone gives the same list and the same form
        assert form.get_by_label("text").input_value() == "address"
        assert shown() == expected
        page.goto(f"{url}#{every[0].id}")  # a task run's anchor leaves the filters alone
        assert form.get_by_label("text").input_value() == "address"
        controls = form.locator("input, select")
        for i in range(controls.count()):  # labelled, and reached from the keyboard
            label = controls.nth(i).evaluate("node => node.labels[0].innerText")
            assert label.strip(), controls.nth(i).get_attribute("name")
        form.get_by_label("outcome").focus()
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.name") == "split"
        # the inlined style sheet is not escaped: its quoted font names hold
        font = page.evaluate("getComputedStyle(document.body).fontFamily")
        assert '"Segoe UI"' in font, font
        assert watched.errors == []


def test_the_report_runs_no_script_but_its_own(browser, recorded, tmp_path):
    """An inline script anywhere else in the page (a stored task's text, say) is refused by the
    page's Content-Security-Policy, which admits the filters' script by its hash alone."""
    out = tmp_path / "report.html"
    ran = subprocess.run(
        [ASSAY, "report", recorded.reference, "--store", recorded.store, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    html = out.read_text()
    out.write_text(html.replace("</main>", "<script>document.title = 'ran'</script></main>", 1))
    url = out.as_uri()
    with watched_page(browser, allowed=lambda u: u.split("#")[0] == url, offline=True) as watched:
        page = watched.page
        page.goto(url)
        assert page.title() != "ran"
        page.locator("form.report-filters").get_by_label("task").fill("nothing-like-it")
        assert page.locator("details.task-run:visible").count() == 0  # its own script runs


@pytest.fixture(scope="module")
def viewer(recorded):
    with viewer_server(recorded.store) as base:
        yield base


@pytest.fixture
def watched(browser, viewer):
    with watched_page(browser, allowed=lambda url: url.startswith(viewer)) as page:
        yield page
    assert page.errors == []
    assert page.requests == []


def test_the_viewer_lists_and_filters_runs(watched, viewer, recorded):
    page = watched.page
    page.goto(viewer + "/")
    rows = page.locator("table.runs tr[data-run]")
    listed = [rows.nth(i).get_attribute("data-run") for i in range(rows.count())]
    assert listed == [recorded.scored, recorded.noop, recorded.reference]
    screenshot(page, "viewer-runs")
    page.fill('input[name="agent"]', "reference")
    page.click("form.filters button")
    page.wait_for_url("**/?*agent=reference*")
    assert page.locator("table.runs tr[data-run]").count() == 1


def test_the_viewer_s_run_page_shows_the_store_s_numbers(watched, viewer, recorded):
    page = watched.page
    page.goto(viewer + "/")
    page.click(f'a[href="/runs/{recorded.reference}"]')
    page.wait_for_url(f"**/runs/{recorded.reference}")
    assert_figures(page, recorded.reference, figures(recorded, recorded.reference))
    screenshot(page, "viewer-run")
    page.goto(f"{viewer}/runs/{recorded.noop}")
    assert_figures(page, recorded.noop, figures(recorded, recorded.noop))
    assert_no_credit_for_doing_nothing(page, recorded.noop)


def test_the_viewer_s_task_run_page_shows_steps_and_evidence(watched, viewer, recorded):
    page = watched.page
    outcome = stored(recorded, recorded.noop)
    result = next(r for r in outcome.task_runs if not r.passed)
    page.goto(f"{viewer}/runs/{recorded.noop}")
    page.click(f'td.cell[data-task-run="{result.id}"] a')
    page.wait_for_url(f"**/task-runs/{result.id}")
    assert page.locator("details.step").count() == len(result.trajectory["steps"])
    first = result.trajectory["steps"][0]["events"][0]["text"]
    event = page.locator("details.step .event").first
    assert event.is_visible()  # steps are open on a task run's own page
    assert first in event.inner_text()
    failed = next(check for check in result.checks if not check.passed)
    row = page.locator("tr.check.failed").first
    assert failed.details in row.inner_text()
    assert json.loads(row.locator("pre").inner_text()) == failed.evidence
    screenshot(page, "viewer-task-run")


def test_the_viewer_s_task_run_page_shows_what_the_agent_said_and_changed(
    watched, viewer, recorded
):
    page = watched.page
    outcome = stored(recorded, recorded.reference)
    result = next(r for r in outcome.task_runs if r.task_id == "refund-double-charge")
    page.goto(f"{viewer}/runs/{recorded.reference}/task-runs/{result.id}")
    turns = page.locator("ol.conversation > li")
    kinds = [turns.nth(i).get_attribute("data-kind") for i in range(turns.count())]
    assert kinds[0] == "customer" and "call" in kinds and "result" in kinds
    first_call = page.locator('ol.conversation > li[data-kind="call"]').first
    assert first_call.inner_text().startswith("call find_order")
    assert '"order_id": "A-1042"' in first_call.inner_text()
    added = page.locator('div.table-changes[data-table="refunds"] tr[data-change="added"]')
    assert added.count() == 1
    assert "ch_1042b" in added.inner_text()
    request = page.locator("table.requests tr.request")
    assert request.count() == 1
    assert request.inner_text().split("\t")[1:3] == ["payments", "refund"]
    screenshot(page, "viewer-task-run-effects")

    changed = next(r for r in outcome.task_runs if r.task_id == "update-address")
    page.goto(f"{viewer}/runs/{recorded.reference}/task-runs/{changed.id}")
    row = page.locator('div.table-changes[data-table="orders"] tr[data-change="changed"]')
    assert row.locator("del").inner_text() == '"4 Mill Lane, York"'
    assert row.locator("ins").inner_text() == '"18 Mill Lane, York"'
    assert "address" in row.locator("code").inner_text()


def test_a_filter_on_the_run_page_narrows_the_task_runs_and_stays_in_the_link(
    watched, viewer, recorded
):
    page = watched.page
    every = stored(recorded, recorded.reference).task_runs
    page.goto(f"{viewer}/runs/{recorded.reference}")
    listed = page.locator("details.task-run")
    assert listed.count() == len(every)
    page.fill('form.task-run-filters input[name="task"]', "refund-double")
    page.click("form.task-run-filters button")
    page.wait_for_url("**task=refund-double*")
    kept = [r for r in every if r.task_id == "refund-double-charge"]
    assert listed.count() == len(kept)
    assert (
        page.locator('[data-field="filtered"]').inner_text().startswith(f"showing {len(kept)} of")
    )
    screenshot(page, "viewer-run-filtered")
    page.goto(page.url)  # the link alone gives the same list
    assert listed.count() == len(kept)
    controls = page.locator("form.task-run-filters input, form.task-run-filters select")
    for i in range(controls.count()):  # every control has a label a screen reader reads
        label = controls.nth(i).evaluate(
            "node => node.labels.length ? node.labels[0].innerText : ''"
        )
        assert label.strip(), controls.nth(i).get_attribute("name")


def test_a_compared_task_opens_both_task_runs_side_by_side(watched, viewer, recorded):
    page = watched.page
    page.goto(f"{viewer}/compare?a={recorded.reference}&b={recorded.noop}")
    page.click('tr[data-task="refund-double-charge"] a')
    page.wait_for_url("**/compare/tasks/refund-double-charge?*")
    sides = page.locator("section.side")
    assert [sides.nth(i).get_attribute("data-run") for i in range(2)] == [
        recorded.reference,
        recorded.noop,
    ]
    assert (
        sides.nth(0)
        .locator('div.table-changes[data-table="refunds"] tr[data-change="added"]')
        .count()
        >= 1
    )
    assert "changed no row" in sides.nth(1).inner_text()
    screenshot(page, "viewer-compare-task")


UNLABELLED = """() => [...document.querySelectorAll("input, select, textarea, button")]
    .filter(node => !(node.labels && node.labels.length) && !node.getAttribute("aria-label")
        && !(node.tagName === "BUTTON" && node.innerText.trim()))
    .map(node => node.outerHTML)"""


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/runs/{reference}",
        "/runs/{reference}?outcome=verified",
        "/compare",
        "/compare?a={reference}&b={noop}",
        "/compare/tasks/update-address?a={reference}&b={noop}",
    ],
)
def test_every_control_of_a_page_is_labelled_and_reached_by_tab(watched, viewer, recorded, path):
    page = watched.page
    page.goto(viewer + path.format(reference=recorded.reference, noop=recorded.noop))
    assert page.evaluate(UNLABELLED) == []
    controls = page.locator("input:visible, select:visible, button:visible").count()
    if controls:
        page.keyboard.press("Tab")
        reached = page.evaluate("document.activeElement.tagName")
        assert reached in ("A", "INPUT", "SELECT", "BUTTON")


def test_the_viewer_compares_two_runs_picked_from_the_list(watched, viewer, recorded):
    page = watched.page
    page.goto(viewer + "/")
    page.check(f'input[name="a"][value="{recorded.reference}"]')
    page.check(f'input[name="b"][value="{recorded.noop}"]')
    page.click("text=Compare B with A")
    page.wait_for_url("**/compare?*")
    with open_store(recorded.store) as store:
        compared = load_comparison(store, recorded.reference, recorded.noop)
    shown = page.locator('[data-field="p_value"]').inner_text()
    assert shown == f"{compared.comparison.test.p_value:.4f}"
    verdict = page.locator('[data-field="compare-verdict"]').inner_text()
    assert verdict == "significant regression"
    screenshot(page, "viewer-compare")
