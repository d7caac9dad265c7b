"""Validations kept in a JSON file, keyed by world, version and task file hash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.errors import SpecError
from assay.trust.store import JsonValidationStore, default_store, task_hash


def test_a_saved_validation_comes_back(tmp_path: Path):
    store = JsonValidationStore(tmp_path / "v.json")
    store.save_validation("shop", "1", "a", "h1", False, {"proofs": {}})
    (found,) = store.latest_validations("shop", "1")
    assert {k: found[k] for k in ("task_id", "task_hash", "passed", "record")} == {
        "task_id": "a",
        "task_hash": "h1",
        "passed": False,
        "record": {"proofs": {}},
    }
    assert found["validated_at"].endswith("Z")


def test_the_same_task_file_is_replaced_and_another_is_kept(tmp_path: Path):
    store = JsonValidationStore(tmp_path / "v.json")
    store.save_validation("shop", "1", "a", "h1", False, {})
    store.save_validation("shop", "1", "a", "h1", True, {})
    store.save_validation("shop", "1", "a", "h2", False, {})
    found = {(e["task_hash"], e["passed"]) for e in store.latest_validations("shop", "1")}
    assert found == {("h1", True), ("h2", False)}


def test_validations_are_kept_apart_by_world_and_version(tmp_path: Path):
    store = JsonValidationStore(tmp_path / "v.json")
    store.save_validation("shop", "1", "a", "h", True, {})
    store.save_validation("shop", "2", "a", "h", False, {})
    store.save_validation("bank", "1", "a", "h", False, {})
    assert [e["passed"] for e in store.latest_validations("shop", "1")] == [True]
    assert store.latest_validations("shop", "3") == []


def test_no_file_is_no_validations(tmp_path: Path):
    assert JsonValidationStore(tmp_path / "none.json").latest_validations("shop", "1") == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", r"v\.json: cannot read validations: "),
        ('{"format": "other"}', r"v\.json: format: not a assay-validations-1 file"),
        (
            '{"format": "assay-validations-1", "validations": 3}',
            r"v\.json: validations: not a list",
        ),
    ],
)
def test_a_damaged_file_is_one_clear_error(tmp_path: Path, text: str, message: str):
    path = tmp_path / "v.json"
    path.write_text(text)
    with pytest.raises(SpecError, match=message):
        JsonValidationStore(path).latest_validations("shop", "1")


def test_the_file_is_stable_json(tmp_path: Path):
    path = tmp_path / "v.json"
    JsonValidationStore(path).save_validation("shop", "1", "a", "h", True, {"b": 1, "a": 2})
    data = json.loads(path.read_text())
    assert data["format"] == "assay-validations-1"
    assert list(data["validations"][0]["record"]) == ["a", "b"]


def test_the_default_store_lives_under_assay_home(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    store = default_store()
    assert isinstance(store, JsonValidationStore)
    assert store.path == tmp_path / "home" / "validations.json"


def test_the_task_hash_is_the_sha256_of_the_bytes(tmp_path: Path):
    path = tmp_path / "t.toml"
    path.write_bytes(b"title = 'x'\n")
    assert task_hash(path) == "afcdae3409cd013742998d1461a92b095d70cbf2e535d815893e070ab31b300b"
