"""`assay export RUN --format bundle` writes one file that show, report and view open without the
store, and that `assay import` loads into another store as it was."""

from __future__ import annotations

import gzip
import json
import warnings

import pytest
from viewkit import record_runs

from assay.runs.bundle import opened
from assay.runs.store import open_store
from assay.view.app import create_viewer

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_runs(tmp_path_factory.mktemp("bundle"))


def shown(assay, *args: str) -> dict:
    done = assay("show", *args, "--json")
    assert done.code == 0, done.err
    return json.loads(done.out)


def test_a_bundle_shows_what_the_store_shows_without_the_store(assay, recorded, tmp_path):
    bundle = tmp_path / "run.bundle.json.gz"
    done = assay(
        "export", recorded.reference, "--format", "bundle", "-o", bundle, "--store", recorded.store
    )
    assert done.code == 0, done.err
    assert f"run {recorded.reference}" in done.err
    from_store = shown(assay, recorded.reference, "--store", recorded.store)
    assert shown(assay, bundle) == from_store
    task = from_store["task_runs"][0]["task_id"]
    full = shown(assay, bundle, "--task", task)
    assert full["task_runs"][0]["trajectory"]["steps"]
    assert full == shown(assay, recorded.reference, "--task", task, "--store", recorded.store)
    assert assay("report", bundle, "--out", tmp_path / "r.html").code == 0
    assert f'data-run="{recorded.reference}"' in (tmp_path / "r.html").read_text()


def test_import_loads_the_run_into_a_store_once(assay, recorded, tmp_path):
    bundle = tmp_path / "noop.bundle.json.gz"
    assay("export", recorded.noop, "--format", "bundle", "-o", bundle, "--store", recorded.store)
    other = f"sqlite:///{tmp_path / 'other.db'}"
    done = assay("import", bundle, "--store", other)
    assert done.code == 0, done.err
    assert done.out.strip() == f"imported run {recorded.noop} into {other}"
    assert shown(assay, recorded.noop, "--store", other) == shown(
        assay, recorded.noop, "--store", recorded.store
    )
    again = assay("import", bundle, "--store", other)
    assert again.code == 2
    assert f"run {recorded.noop} is already in" in again.err


def test_a_file_that_is_not_a_bundle_is_one_line_and_exit_2(assay, tmp_path):
    gzipped = tmp_path / "other.json.gz"
    with gzip.open(gzipped, "wt") as out:
        json.dump({"format": "something else"}, out)
    done = assay("import", gzipped)
    assert done.code == 2
    assert (
        done.err.strip()
        == f"error: {gzipped}: not a bundle written by `assay export --format bundle`"
    )
    assert assay("show", gzipped).code == 2


def test_the_viewer_serves_a_bundle_as_it_serves_the_store(assay, recorded, tmp_path):
    bundle = tmp_path / "ref.bundle.json.gz"
    assay(
        "export", recorded.reference, "--format", "bundle", "-o", bundle, "--store", recorded.store
    )
    with opened([str(bundle)], None) as (where, ids), open_store(where) as store:
        assert ids == [recorded.reference]
        with TestClient(create_viewer(store)) as client:
            page = client.get(f"/runs/{recorded.reference}")
    assert page.status_code == 200
    assert 'data-table="refunds"' in page.text  # the state changes came with the bundle
