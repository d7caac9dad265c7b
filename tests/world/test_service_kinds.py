"""A service kind brings its own tools, reserved tables and seed files, on both backends."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from worldkit import DESK_WORLD, SHOP, write_world

from assay.errors import SpecError
from assay.trust.fingerprint import world_files
from assay.world.services import SERVICE_KINDS, service_class
from assay.world.snapshot import snapshot_key

KIND = '''
import json
from pathlib import Path

from assay import Service, tool
from assay.errors import SpecError
from assay.world.services.lookup import service_for


def _shelve(world, title: str, service: str | None = None) -> dict:
    """Put a book on the shelf."""
    return service_for(world, "shelf", service).request("shelve", {"title": title})


def _books(world, service: str | None = None) -> list:
    """Every book on the shelf."""
    return world.db.rows("SELECT title, turn FROM sandbox_shelf ORDER BY id")


class Shelf(Service):
    kind = "shelf"
    tables = {"sqlite": "CREATE TABLE IF NOT EXISTS sandbox_shelf (id INTEGER PRIMARY KEY, title TEXT NOT NULL, turn INTEGER NOT NULL);"}

    @classmethod
    def seed_files(cls, root, options):
        return [root / options["seed"]]

    @classmethod
    def seed(cls, db, root, name, options, file):
        path = root / options["seed"]
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if not line.strip():
                raise SpecError(path.name, f"line {number}", "an empty title")
            db.execute("INSERT INTO sandbox_shelf (title, turn) VALUES (?, 0)", line)

    def handle(self, operation, payload):
        self.world.db.execute(
            "INSERT INTO sandbox_shelf (title, turn) VALUES (?, ?)", payload["title"], self.world.turn
        )
        return {"shelved": payload["title"]}


from assay.world.tools import Tool

Shelf.tools = (Tool(_shelve, writes=True, name="shelve"), Tool(_books, name="books"))
'''

WORLD = DESK_WORLD.replace(
    "[services]\n", '[services]\nshelf = { kind = "shelf.py:Shelf", seed = "books.txt" }\n'
).replace('"retry_operation"]', '"retry_operation", "shelve", "books"]')


@pytest.fixture
def shelf_world(tmp_path: Path) -> Path:
    root = write_world(tmp_path / "desk", world_toml=WORLD)
    (root / "shelf.py").write_text(KIND, encoding="utf-8")
    (root / "books.txt").write_text("Emma\nDubliners\n", encoding="utf-8")
    return root


def test_the_kinds_tools_tables_and_seed_reach_every_task_run(shelf_world, open_world, reset):
    world = open_world(shelf_world).world
    assert {"shelve", "books"} <= world.tools.keys()
    live = reset(world)
    assert [row["title"] for row in world.tools["books"].fn(live)] == ["Emma", "Dubliners"]
    live.turn = 1
    assert world.tools["shelve"].fn(live, "Ulysses") == {"shelved": "Ulysses"}
    live.flush()
    assert live.db.value("SELECT count(*) FROM sandbox_shelf") == 3
    assert live.db.value("SELECT count(*) FROM sandbox_requests WHERE service = 'shelf'") == 1
    again = reset(world)  # a reset gives back the seeded shelf, nothing the last task run added
    assert again.db.value("SELECT count(*) FROM sandbox_shelf") == 2
    assert live.db.state_hash() != again.db.state_hash()


def test_a_bad_seed_names_its_file_and_line(shelf_world, open_world):
    (shelf_world / "books.txt").write_text("Emma\n\nDubliners\n", encoding="utf-8")
    with pytest.raises(SpecError, match=r"books.txt: line 2: an empty title"):
        open_world(shelf_world)


def test_the_seed_files_are_in_the_snapshot_key_and_the_fingerprint(shelf_world):
    from assay.formats.load import read_world

    spec = read_world(shelf_world)
    before = snapshot_key(shelf_world, spec)
    assert "books.txt" in world_files(shelf_world, spec)
    (shelf_world / "books.txt").write_text("Emma\n", encoding="utf-8")
    assert snapshot_key(shelf_world, spec) != before


@pytest.mark.parametrize("kind", SERVICE_KINDS.builtins)
def test_each_built_in_kind_names_its_class(kind):
    assert service_class(kind, Path(".")).kind == kind


def test_a_world_without_healthcare_services_loads_none_of_them():
    """They are imported when a world names one, so `assay run` of another world starts faster."""
    code = (
        "import sys; from assay.runs import open_benchmark; "
        f"open_benchmark({str(SHOP)!r}); "
        "print(sorted(m for m in sys.modules if '.healthcare' in m))"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert shown.stdout.strip() == "[]", shown.stderr
