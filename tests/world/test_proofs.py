"""Proofs that passed are kept under $ASSAY_HOME: a later load of the same files proves nothing
again, and a file that fails, or changes, is proved on every load."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from worldkit import copy_shop

from assay.errors import SpecError
from assay.runs import open_benchmark
from assay.world import loadable as loading
from assay.world import proofs
from assay.world.proofs import proof_key

UNSAFE = 'sql = "DELETE FROM orders"\nexpect = 0'
FIRST_CHECK = (
    'sql = "SELECT address FROM orders WHERE id = \'B-2003\'"\nexpect = "18 Mill Lane, York"'
)


@pytest.fixture
def proved(monkeypatch, tmp_path: Path) -> list[str]:
    """A home of its own, nothing proved yet in this process, and the task ids each proof (of
    names, then of queries) was run for."""
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    ran: list[str] = []
    names = loading.unknown_check_names
    queries = loading.check_queries

    def names_proved(task, columns, backend="sqlite"):
        ran.append(f"names {task.id}")
        return names(task, columns, backend)

    def queries_proved(task, backend, file):
        ran.append(f"queries {task.id}")
        return queries(task, backend, file)

    monkeypatch.setattr(loading, "unknown_check_names", names_proved)
    monkeypatch.setattr(loading, "check_queries", queries_proved)
    monkeypatch.setattr(loading, "_proved", set())
    return ran


def new_process(monkeypatch) -> None:
    """Forget the proofs this process holds in memory, as a new process would."""
    monkeypatch.setattr(loading, "_proved", set())


def test_a_later_load_of_the_same_files_proves_nothing_again(
    proved: list[str], monkeypatch, tmp_path: Path
):
    shop = copy_shop(tmp_path / "shop")
    tasks = sorted(open_benchmark(shop).tasks)
    assert sorted(proved) == sorted(
        [f"names {id}" for id in tasks] + [f"queries {id}" for id in tasks]
    )
    proved.clear()
    new_process(monkeypatch)
    assert sorted(open_benchmark(shop).tasks) == tasks
    assert proved == []


def test_an_edited_task_is_proved_again_and_refused(proved: list[str], monkeypatch, tmp_path: Path):
    shop = copy_shop(tmp_path / "shop")
    open_benchmark(shop)
    task = shop / "tasks" / "update-address.toml"
    task.write_text(
        task.read_text().replace(FIRST_CHECK, 'sql = "SELECT nope FROM orders"\nexpect = 0')
    )
    proved.clear()
    new_process(monkeypatch)
    with pytest.raises(SpecError, match=r"update-address\.toml: checks\[0\]\.sql: unknown column"):
        open_benchmark(shop)
    assert proved == ["queries update-address", "names update-address"]


def test_a_proof_that_failed_is_never_kept(proved: list[str], monkeypatch, tmp_path: Path):
    shop = copy_shop(tmp_path / "shop")
    task = shop / "tasks" / "update-address.toml"
    task.write_text(task.read_text().replace(FIRST_CHECK, UNSAFE))
    for _ in range(2):
        new_process(monkeypatch)
        with pytest.raises(SpecError, match=r"checks\[0\]\.sql: SQL "):
            open_benchmark(shop)
    assert proved.count("queries update-address") == 2


def test_a_home_that_cannot_be_written_costs_only_the_proof(
    proved: list[str], monkeypatch, tmp_path: Path
):
    shop = copy_shop(tmp_path / "shop")
    open_benchmark(shop)  # the snapshot is kept; then the proofs' folder cannot be made
    home = tmp_path / "home"
    for kept in (home / "proofs").iterdir():
        kept.unlink()
    (home / "proofs").rmdir()
    (home / "proofs").write_text("a file where the folder would be")
    new_process(monkeypatch)
    proved.clear()
    assert open_benchmark(shop).tasks
    assert "names update-address" in proved


def test_the_key_changes_with_the_proving_code(tmp_path: Path, monkeypatch):
    code = tmp_path / "proving_code.py"
    code.write_text("RULE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = proof_key(["proving_code"], "file digest")
    code.write_text("RULE = 2\n")
    proofs._code_digest.cache_clear()  # a new process reads the code again
    assert proof_key(["proving_code"], "file digest") != before
    assert proof_key(["proving_code"], "other digest") != proof_key(["proving_code"], "file digest")
    assert "proving_code" not in sys.modules  # the code is read, never imported


def test_code_that_cannot_be_found_matches_no_kept_proof():
    assert proof_key(["assay.no_such_module"], "x") != proof_key(["assay.formats.sqltext"], "x")
    assert proof_key(["no_such_package.module"], "x") != proof_key(["assay.formats.sqltext"], "x")
