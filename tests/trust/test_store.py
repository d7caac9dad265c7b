"""Validations are kept in the records store, keyed by world, version and the hash of their files."""

from __future__ import annotations

import hashlib
from pathlib import Path

from assay.runs.store import Store, open_store
from assay.trust.fingerprint import fingerprint
from assay.trust.store import default_store


def test_a_saved_validation_comes_back(tmp_path: Path):
    with open_store(str(tmp_path / "v.db")) as store:
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
    with open_store(str(tmp_path / "v.db")) as store:
        store.save_validation("shop", "1", "a", "h1", False, {})
        store.save_validation("shop", "1", "a", "h1", True, {})
        store.save_validation("shop", "1", "a", "h2", False, {})
        found = {(e["task_hash"], e["passed"]) for e in store.latest_validations("shop", "1")}
    assert found == {("h1", True), ("h2", False)}


def test_validations_are_kept_apart_by_world_and_version(tmp_path: Path):
    with open_store(str(tmp_path / "v.db")) as store:
        store.save_validation("shop", "1", "a", "h", True, {})
        store.save_validation("shop", "2", "a", "h", False, {})
        store.save_validation("bank", "1", "a", "h", False, {})
        assert [e["passed"] for e in store.latest_validations("shop", "1")] == [True]
        assert store.latest_validations("shop", "3") == []


def test_the_default_is_the_records_store(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ASSAY_STORE", raising=False)
    store = default_store()
    assert isinstance(store, Store)
    store.save_validation("shop", "1", "a", "h1", False, {"proofs": {}})
    assert (tmp_path / "home" / "assay.db").is_file()
    (found,) = default_store().latest_validations("shop", "1")
    assert (found["task_id"], found["task_hash"], found["passed"]) == ("a", "h1", False)
    assert default_store(str(tmp_path / "other.db")).latest_validations("shop", "1") == []


def test_the_task_hash_covers_the_task_file_and_every_world_file(tmp_path: Path):
    """The key was the task file's bytes alone; it is now a digest over every file named."""
    path = tmp_path / "tasks" / "t.toml"
    path.parent.mkdir()
    path.write_bytes(b"title = 'x'\n")
    found = fingerprint(tmp_path, path, {"tools.py": "ab"})
    assert found.files == {
        "tasks/t.toml": "afcdae3409cd013742998d1461a92b095d70cbf2e535d815893e070ab31b300b",
        "tools.py": "ab",
    }
    assert (
        found.digest
        == hashlib.sha256(
            b"tasks/t.toml\0afcdae3409cd013742998d1461a92b095d70cbf2e535d815893e070ab31b300b\n"
            b"tools.py\0ab\n"
        ).hexdigest()
    )
    assert fingerprint(tmp_path, path, {"tools.py": "cd"}).digest != found.digest
