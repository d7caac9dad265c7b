"""Task files parsed once are kept under $ASSAY_HOME: a later load of the same bytes does not parse
their TOML again, a file that changed is read afresh, and what is kept is validated every time."""

from __future__ import annotations

from pathlib import Path

import pytest
from worldkit import copy_shop

from assay.errors import SpecError
from assay.world import parsed as parsing
from assay.world.load import load_world

TASK = "update-address"


@pytest.fixture
def parses(monkeypatch, tmp_path: Path) -> list[str]:
    """A home of its own, and the name of each task file whose TOML was parsed."""
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    parsed: list[str] = []
    read_toml = parsing.read_toml

    def counted(path: Path, data: bytes | None = None):
        parsed.append(path.stem)
        return read_toml(path, data)

    monkeypatch.setattr(parsing, "read_toml", counted)
    return parsed


def test_a_later_load_of_the_same_files_parses_none_again(parses: list[str], tmp_path: Path):
    shop = copy_shop(tmp_path / "shop")
    first = load_world(shop)
    assert sorted(parses) == sorted(first.tasks)
    parses.clear()
    again = load_world(shop)
    assert parses == []
    assert again.tasks == first.tasks


def test_a_task_file_that_changed_is_read_again(parses: list[str], tmp_path: Path):
    shop = copy_shop(tmp_path / "shop")
    load_world(shop)
    file = shop / "tasks" / f"{TASK}.toml"
    file.write_text(file.read_text().replace("Change the delivery", "Correct the delivery"))
    parses.clear()
    world = load_world(shop)
    assert parses == [TASK]
    assert world.tasks[TASK].title.startswith("Correct the delivery")


def test_a_kept_parse_is_validated_as_a_file_is(parses: list[str], tmp_path: Path):
    shop = copy_shop(tmp_path / "shop")
    load_world(shop)
    file = shop / "tasks" / f"{TASK}.toml"
    kept = parsing.ParsedFiles(shop)
    kept.data(file, file.read_bytes())["max_turns"] = "many"  # what validation must refuse
    kept.changed = True
    kept.save()
    with pytest.raises(SpecError, match="max_turns"):
        load_world(shop)


def test_a_task_with_a_toml_date_is_parsed_every_time(parses: list[str], tmp_path: Path):
    shop = copy_shop(tmp_path / "shop")
    file = shop / "tasks" / f"{TASK}.toml"
    file.write_text(
        file.read_text().replace('role = "support"', 'role = "support"\nnoted = 2026-01-02')
    )
    kept = parsing.ParsedFiles(shop)
    assert kept.data(file, file.read_bytes())["noted"].isoformat() == "2026-01-02"
    assert file.name not in kept.kept


def test_a_home_that_cannot_be_written_still_loads(parses: list[str], monkeypatch, tmp_path: Path):
    home = tmp_path / "home"
    home.write_text("a file where the home should be")
    monkeypatch.setenv("ASSAY_HOME", str(home))
    shop = copy_shop(tmp_path / "shop")
    assert TASK in load_world(shop).tasks
    parses.clear()
    load_world(shop)
    assert TASK in parses


def test_the_parse_of_a_deleted_task_file_is_dropped(parses: list[str], tmp_path: Path):
    shop = copy_shop(tmp_path / "shop")
    load_world(shop)
    (shop / "tasks" / f"{TASK}.toml").unlink()
    other = shop / "tasks" / "ask-for-email.toml"
    other.write_text(other.read_text().replace('title = "', 'title = "Now: '))
    load_world(shop)
    assert f"{TASK}.toml" not in parsing.ParsedFiles(shop).kept
