"""Small worlds written on the fly, for what worlds/shop does not show."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

WorldMaker = Callable[..., Path]


@pytest.fixture
def make_world(tmp_path: Path) -> WorldMaker:
    """`make_world(schema, seeds={"seed.sql": "..."})` → a world directory."""

    def make(schema: str, seeds: dict[str, str] | None = None, name: str = "tiny") -> Path:
        root = tmp_path / name
        root.mkdir()
        seeds = seeds or {}
        listed = ", ".join(f'"{file}"' for file in seeds)
        (root / "world.toml").write_text(
            f'name = "{name}"\nversion = "1"\n\n[database]\nschema = "schema.sql"\n'
            f"seed = [{listed}]\n"
        )
        (root / "schema.sql").write_text(schema)
        for file, text in seeds.items():
            (root / file).write_text(text)
        return root

    return make
