"""`assay report`: stored runs as one self-contained HTML file showing the store's figures."""

from __future__ import annotations

import base64
import hashlib
import json
import re

import pytest
from reportkit import expected_fields, shown_fields
from viewkit import record_runs

from assay.runs.record import load_outcome
from assay.runs.store import open_store


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The reference agent (two repeats), noop, and noop as a scored run, in a store of their own."""
    return record_runs(tmp_path_factory.mktemp("report"))


def stored(runs, run_id: str) -> dict:
    """The run as the store gives it: whole, trajectories and all."""
    with open_store(runs.store) as store:
        return load_outcome(store, run_id, trajectories=True, reveal=True).as_json()


def test_a_report_of_two_runs_shows_their_figures_and_comparison(assay, runs, tmp_path):
    good, bad = stored(runs, runs.reference), stored(runs, runs.noop)
    ran = assay(
        "report", runs.reference, runs.noop[:10], "--out", "both.html", "--store", runs.store
    )
    assert ran.code == 0, ran.err
    assert ran.err.startswith("wrote both.html (")
    html = (tmp_path / "both.html").read_text()
    shown = shown_fields(html)
    for outcome in (good, bad):
        run = outcome["benchmark_run"]
        fields = shown[run["id"]]
        for name, value in expected_fields(run).items():
            assert fields[name] == value, (run["id"], name)
    # the comparison: B − A over the tasks, the paired test's figures as `assay compare` gives them
    compared = json.loads(
        assay("compare", runs.reference, runs.noop, "--json", "--store", runs.store).out
    )
    test = compared["test"]
    top = shown[""]
    assert top["mean_difference"] == f"{test['mean_difference']:+.3f}"
    assert top["p_value"] == f"{test['p_value']:.4f}"
    assert top["compare-verdict"] == "significant regression"
    # the grid: one cell per task run, coloured by its outcome
    for outcome in (good, bad):
        for result in outcome["task_runs"]:
            assert f'data-task-run="{result["id"]}" data-outcome="{result["outcome"]}"' in html
    # every failed check of the noop run, with its details
    for result in bad["task_runs"]:
        for check in result["checks"]:
            if not check["passed"]:
                assert _escaped(check["details"]) in html


def test_the_file_stands_alone(assay, runs, tmp_path):
    assert assay("report", runs.reference, "--out", "one.html", "--store", runs.store).code == 0
    html = (tmp_path / "one.html").read_text()
    (script,) = re.findall(r"<script>(.*?)</script>", html, re.S)  # the filters', and no other
    assert html.count("<script") == 1
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'\">" in html  # the policy admits it alone, by its hash
    assert not re.search(r"""(src|href)=["'](https?:)?//""", html)
    assert not re.search(r"""<link[^>]+href=["'](?!data:)""", html)  # nothing but a blank icon
    assert "default-src 'none'" in html  # a browser may fetch nothing for it
    assert html.count("<svg") == 2  # pass@k over k, scores per axis: drawn by matplotlib
    assert "Created with Matplotlib" in html or "matplotlib" in html.lower()


def test_each_task_run_has_its_trajectory_step_by_step(assay, runs, tmp_path):
    outcome = stored(runs, runs.reference)
    assert assay("report", runs.reference, "--out", "r.html", "--store", runs.store).code == 0
    html = (tmp_path / "r.html").read_text()
    for result in outcome["task_runs"]:
        steps = result["trajectory"]["steps"]
        start = html.index(f'<details class="task-run" id="{result["id"]}"')
        end = html.find('<details class="task-run"', start + 1)
        section = html[start : end if end > 0 else None]
        assert f'data-steps="{len(steps)}"' in section
        first = steps[0]["action"]["call"]
        assert f"call {first['tool']}(" in section


def test_a_scored_run_shows_no_details_or_evidence_unless_revealed(assay, runs, tmp_path):
    outcome = stored(runs, runs.scored)
    failed = [c for r in outcome["task_runs"] for c in r["checks"] if not c["passed"]]
    assert failed
    assert assay("report", runs.scored, "--out", "scored.html", "--store", runs.store).code == 0
    html = (tmp_path / "scored.html").read_text()
    assert "every check's details and evidence are withheld" in html
    for check in failed:
        assert _escaped(check["name"]) in html
        assert _escaped(check["details"]) not in html
    assert '"query"' not in html and "&#34;query&#34;" not in html
    revealed = assay(
        "report", runs.scored, "--reveal", "--out", "revealed.html", "--store", runs.store
    )
    assert revealed.code == 0
    text = (tmp_path / "revealed.html").read_text()
    assert all(_escaped(check["details"]) in text for check in failed)


def test_bad_input_is_one_line(assay, runs, tmp_path):
    missing = assay("report", "br_nope", "--out", "x.html", "--store", runs.store)
    assert missing.code == 2
    assert missing.err.startswith("error: RUN: no benchmark run 'br_nope'")
    assert len(missing.err.strip().splitlines()) == 1
    nowhere = assay("report", runs.noop, "--out", "no/such/dir/r.html", "--store", runs.store)
    assert nowhere.code == 2
    assert nowhere.err.strip() == (
        "error: --out: cannot write no/such/dir/r.html: No such file or directory"
    )
    assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("command", [("report", "br_any"), ("view",)])
def test_without_the_report_extra_it_says_what_to_install(assay, monkeypatch, command):
    import assay.report.requirements as requirements

    monkeypatch.setattr(requirements, "find_spec", lambda name: None if name == "matplotlib" else 1)
    ran = assay(*command)
    assert ran.code == 2
    assert ran.err.strip() == (
        f"error: assay {command[0]} needs matplotlib: pip install 'assay[report]'"
    )


@pytest.mark.parametrize("command", [("report", "br_any"), ("view",), ("compare", "a", "b")])
def test_a_bad_store_is_one_line(assay, command):
    ran = assay(*command, "--store", "mysql://somewhere/db")
    assert ran.code == 2
    assert ran.err.strip() == (
        "error: --store: unsupported database 'mysql'; "
        "use sqlite:///FILE or postgresql+psycopg://USER@HOST:PORT/DB"
    )


def _escaped(text: str) -> str:
    from markupsafe import escape

    return str(escape(text))
