"""Every model of assay builds its validator when first used, not when its module is imported: a
model used only inside another is then built once, as part of it (some 40 ms of every command's
start-up). Models declare it where they derive from pydantic's BaseModel; the rest inherit it.
The HTTP API's own request and response models (in `api/` and the served-run layer, `served/`)
are built at once: FastAPI makes its adapters of
them when the app starts, and of a deferred model only on the first request, with a warning for
each parameter that has an alias."""

from __future__ import annotations

import ast
from pathlib import Path

import assay

SOURCE = Path(assay.__file__).parent


def _models_deriving_from_base_model() -> list[tuple[str, ast.ClassDef]]:
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        if path.parent.name in ("api", "served"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                isinstance(base, ast.Name) and base.id == "BaseModel" for base in node.bases
            ):
                found.append((f"{path.relative_to(SOURCE)}:{node.name}", node))
    return found


def test_every_model_deriving_from_base_model_defers_its_build():
    models = _models_deriving_from_base_model()
    assert len(models) > 40  # the search finds them
    eager = [
        name
        for name, node in models
        if not any(
            keyword.arg == "defer_build"
            and isinstance(keyword.value, ast.Constant)
            and keyword.value.value is True
            for keyword in node.keywords
        )
    ]
    assert eager == []
