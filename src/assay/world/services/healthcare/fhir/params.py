"""The search parameters the FHIR server knows: R4's own, per resource type, from the table
`r4_search.json` that `generate.py` writes from the specification's SearchParameter bundle."""

from __future__ import annotations

from functools import cache
from typing import NamedTuple


class SearchParam(NamedTuple):
    type: str  # token | string | reference | date | number | quantity | uri | composite | special
    expression: str  # FHIRPath for this resource type ("" where R4 gives none)
    targets: tuple[str, ...]  # the types a reference parameter may name
    components: tuple[tuple[str, str, str], ...]  # a composite's (name, type, FHIRPath) parts


@cache
def known(resource_type: str) -> dict[str, SearchParam]:
    """Every R4 search parameter of `resource_type`, the common ones (`_id`, `_lastUpdated`,
    `_tag`, `_profile`, `_security`, `_source`, …) first."""
    from assay.world.services.healthcare.fhir import r4_search

    table = {**r4_search.COMMON, **r4_search.PARAMS.get(resource_type, {})}
    return {name: SearchParam(*entry) for name, entry in table.items()}


def searchable_types() -> list[str]:
    """The resource types R4 defines search parameters for."""
    from assay.world.services.healthcare.fhir import r4_search

    return sorted(r4_search.PARAMS)
