"""A task's validation is keyed on every file that can change its outcome, not the task file alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.formats.load import read_world
from assay.trust.fingerprint import MISSING, changed_files, fingerprint, world_files


def shop_files(world: Path) -> dict[str, str]:
    return world_files(world, read_world(world))


def test_the_shop_depends_on_its_toml_schema_seeds_tools_and_verifiers(shop_copy: Path):
    assert sorted(shop_files(shop_copy)) == [
        "data/customers.csv",
        "data/shipments.jsonl",
        "schema.sql",
        "seed.sql",
        "tools.py",
        "verifiers.py",
        "world.toml",
    ]


@pytest.mark.parametrize(
    "name",
    [
        "world.toml",
        "schema.sql",
        "seed.sql",
        "data/customers.csv",
        "data/shipments.jsonl",
        "tools.py",
        "verifiers.py",
        "tasks/update-address.toml",
    ],
)
def test_an_edit_to_any_of_them_changes_the_task_hash(shop_copy: Path, name: str):
    task = shop_copy / "tasks" / "update-address.toml"
    before = fingerprint(shop_copy, task, shop_files(shop_copy))
    with (shop_copy / name).open("a", encoding="utf-8") as file:
        file.write("\n")
    after = fingerprint(shop_copy, task, shop_files(shop_copy))
    assert after.digest != before.digest
    assert changed_files(before.files, after.files) == [name]


def test_another_task_file_and_the_baselines_do_not_count(shop_copy: Path):
    task = shop_copy / "tasks" / "update-address.toml"
    before = fingerprint(shop_copy, task, shop_files(shop_copy))
    other = shop_copy / "tasks" / "email-tracking.toml"
    other.write_text(other.read_text() + "\n")
    (shop_copy / "baselines").mkdir(exist_ok=True)
    (shop_copy / "baselines" / "update-address.json").write_text("{}")
    assert fingerprint(shop_copy, task, shop_files(shop_copy)) == before


def test_a_custom_service_file_and_the_python_beside_it_count(shop_copy: Path):
    (shop_copy / "services").mkdir()
    (shop_copy / "services" / "ledger.py").write_text(
        "from assay import Service\nfrom helpers import TAG\n\n\nclass Ledger(Service):\n    kind = TAG\n"
    )
    (shop_copy / "services" / "helpers.py").write_text('TAG = "ledger"\n')
    world = shop_copy / "world.toml"
    world.write_text(
        world.read_text() + '\n[services.ledger]\nkind = "services/ledger.py:Ledger"\n'
    )
    files = shop_files(shop_copy)
    assert {"services/ledger.py", "services/helpers.py"} <= files.keys()
    task = shop_copy / "tasks" / "update-address.toml"
    before = fingerprint(shop_copy, task, files)
    (shop_copy / "services" / "helpers.py").write_text('TAG = "ledger"  # edited\n')
    after = fingerprint(shop_copy, task, shop_files(shop_copy))
    assert changed_files(before.files, after.files) == ["services/helpers.py"]


def test_a_missing_file_is_recorded_as_missing(shop_copy: Path):
    (shop_copy / "verifiers.py").unlink()
    assert shop_files(shop_copy)["verifiers.py"] == MISSING
