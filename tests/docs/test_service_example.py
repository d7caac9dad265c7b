"""The custom Service on the world page works as written: built from its name, options and live
world, answering in `handle`, and every request recorded in `sandbox_requests` as the page says."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from docskit import ROOT

from assay import ServiceError


def example() -> tuple[str, str]:
    """The world.toml table and the Python class of the page's custom Service section."""
    page = (ROOT / "docs" / "worlds.md").read_text()
    section = page[page.index("### A custom `Service`") :]
    table, code = re.findall(r"```(?:toml|python)\n(.*?)```", section, re.S)[:2]
    return table, code


@pytest.fixture
def live(tmp_path, open_world, reset):
    table, code = example()
    root = tmp_path / "shop"
    shutil.copytree(ROOT / "worlds" / "shop", root, ignore=shutil.ignore_patterns("__pycache__"))
    world_toml = (root / "world.toml").read_text()
    at = world_toml.index("[roles.")
    (root / "world.toml").write_text(world_toml[:at] + table + "\n" + world_toml[at:])
    (root / "services.py").write_text(code)
    return reset(open_world(root).world)


def test_the_constructor_arguments(live):
    tickets = live.services["tickets"]
    assert (tickets.name, tickets.options, tickets.world) == ("tickets", {"queue": "support"}, live)


def test_every_request_is_recorded_with_the_fields_the_page_names(live):
    tickets = live.services["tickets"]
    live.turn = 2
    assert tickets.request("open", {"subject": "Late"}) == {"id": "tk_0001", "queue": "support"}
    tickets.request("open", {"subject": "Late"})
    with pytest.raises(ServiceError, match="tickets has no 'close'"):
        tickets.request("close", {})
    live.flush()
    rows = live.db.rows("SELECT * FROM sandbox_requests WHERE service = 'tickets' ORDER BY id")
    assert [row["status"] for row in rows] == ["ok", "ok", "error"]
    assert [row["duplicate_of"] for row in rows] == [None, rows[0]["id"], None]
    assert {row["turn"] for row in rows} == {2}
    assert rows[0]["at"] == live.now().isoformat().replace("+00:00", "Z")
    assert json.loads(rows[0]["payload"]) == {"subject": "Late"}
    assert json.loads(rows[1]["response"]) == {"id": "tk_0002", "queue": "support"}
    assert json.loads(rows[2]["response"]) == {
        "error": {"code": "tickets.unknown_operation", "message": "tickets has no 'close'"}
    }
