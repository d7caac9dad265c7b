"""The search parameters' FHIRPath expressions as functions of a resource: fhirpathpy with the R4
model, or, for the plain paths most parameters are (`Observation.subject`, `(Observation.value as
Quantity)`, `Patient.telecom.where(system='phone')`), a direct walk that gives the same values."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

Evaluator = Callable[..., list[Any]]
HEAD = re.compile(r"[A-Za-z]\w*(?![\w(])")
STEP = re.compile(r"\.([a-z]\w*)(?![\w(])")
CAST = re.compile(r" as (\w+)$|\.as\((\w+)\)")
FIELD_IS = re.compile(r"^(\w+)='([^']*)'$")
REFERENCE_TYPE = re.compile(r"^reference\.matches\('\^\(\.\*/\)\?(\w+)/\[\^/\]\+.*'\)$")


@cache
def evaluator(expression: str) -> Evaluator:
    """`expression` compiled: call it with a resource (and `item_of`, the resource a composite
    item belongs to, for `%resource`) to get its values."""
    plan = _plan(expression)
    if plan is not None:
        return lambda resource, item_of=None: _walk(plan, resource)
    return _fhirpathpy(expression)


def _fhirpathpy(expression: str) -> Evaluator:
    from fhirpathpy import compile as compile_path  # only worlds with a FHIR server load it
    from fhirpathpy.models import models

    compiled = compile_path(expression, models["r4"])

    def run(resource: dict[str, Any], item_of: dict[str, Any] | None = None) -> list[Any]:
        return compiled(resource, {"resource": item_of or resource})

    return run


def split_terms(expression: str) -> list[str]:
    """The top-level `|` alternatives of a FHIRPath expression (not inside parentheses or quotes)."""
    terms, depth, quoted, start = [], 0, False, 0
    for index, char in enumerate(expression):
        if char == "'":
            quoted = not quoted
        elif not quoted and char in "([":
            depth += 1
        elif not quoted and char in ")]":
            depth -= 1
        elif not quoted and depth == 0 and char == "|":
            terms.append(expression[start:index].strip())
            start = index + 1
    terms.append(expression[start:].strip())
    return [term for term in terms if term]


Step = tuple[str, tuple[str, ...]]  # a JSON key, and the choice suffixes to try when it is absent
Op = Step | Callable[[Any], bool]  # a step down, or a filter (`.where(…)`)
Plan = list[tuple[str | None, list[Op]]]


def _plan(expression: str) -> Plan | None:
    """The walk for an expression of plain terms, or None where only fhirpathpy will do."""
    plan: Plan = []
    for term in split_terms(expression):
        inner = term[1:-1] if term.startswith("(") and term.endswith(")") else term
        head = HEAD.match(inner)
        if head is None:
            return None
        base = head.group() if head.group()[0].isupper() else None
        ops = _ops(base, inner if base is None else inner[head.end() :])
        if ops is None:
            return None
        plan.append((base, ops))
    return plan


def _ops(base: str | None, rest: str) -> list[Op] | None:
    """`.a.b.where(x='y').c as T` as steps and filters; a choice element tries its typed keys."""
    from fhirpathpy.models import models

    model = models["r4"]
    rest = rest if base is not None else f".{rest}"
    ops: list[Op] = []
    element = base
    while rest:
        step, cast = STEP.match(rest), CAST.match(rest)
        if rest.startswith(".where("):
            test, rest = _where(rest)
            if test is None:
                return None
            ops.append(test)
        elif step:
            rest = rest[step.end() :]
            element = _element(model, element, step.group(1)) if element else None
            kinds = tuple(model["choiceTypePaths"].get(element, ())) if element else ()
            if base is not None and element is None:
                return None
            ops.append((step.group(1), kinds))
        elif cast and ops and not callable(ops[-1]) and ops[-1][1]:
            rest = rest[cast.end() :]
            kind = cast.group(1) or cast.group(2)
            wanted = kind[0].upper() + kind[1:]
            if wanted not in ops[-1][1]:
                return None  # `as` on what is not a choice of that type: fhirpathpy decides
            ops[-1] = (ops[-1][0] + wanted, ())
            element = model["path2Type"].get(f"{element}{wanted}") or wanted
        else:
            return None
    return ops


def _element(model: dict[str, Any], element: str, part: str) -> str:
    """The model's name for `element.part`: `Patient.name.family` is `HumanName.family`."""
    parent = model["path2Type"].get(element)
    if parent and parent[0].isupper() and parent not in ("BackboneElement", "Element"):
        element = parent
    path = f"{element}.{part}"
    return model["pathsDefinedElsewhere"].get(path, path)


def _where(rest: str) -> tuple[Callable[[Any], bool] | None, str]:
    """The filter of a leading `.where(…)` and what follows it."""
    depth, quoted = 0, False
    for index, char in enumerate(rest):
        quoted = not quoted if char == "'" else quoted
        if not quoted and char in "()":
            depth += 1 if char == "(" else -1
            if depth == 0:
                return _filter(rest[len(".where(") : index]), rest[index + 1 :]
    return None, ""


def _filter(test: str) -> Callable[[Any], bool] | None:
    field = FIELD_IS.match(test)
    if field:
        name, wanted = field.groups()
        return lambda item: isinstance(item, dict) and item.get(name) == wanted
    typed = REFERENCE_TYPE.match(test)
    if typed:
        return _names_type(typed.group(1))
    return None


def _names_type(resource_type: str) -> Callable[[Any], bool]:
    pattern = re.compile(rf"^(.*/)?{resource_type}/[^/]+(/_history/[^/]+)?$")

    def test(item: Any) -> bool:
        reference = item.get("reference") if isinstance(item, dict) else None
        return isinstance(reference, str) and pattern.search(reference) is not None

    return test


def _walk(plan: Plan, resource: dict[str, Any]) -> list[Any]:
    found: list[Any] = []
    for base, ops in plan:
        if base is not None and resource.get("resourceType") != base:
            continue
        nodes: list[Any] = [resource]
        for op in ops:
            if callable(op):
                nodes = [node for node in nodes if op(node)]
                continue
            key, kinds = op
            stepped: list[Any] = []
            for node in nodes:
                if isinstance(node, dict):
                    _step(node, key, kinds, stepped)
            nodes = stepped
        found.extend(nodes)
    return found


def _step(node: dict[str, Any], key: str, kinds: tuple[str, ...], into: list[Any]) -> None:
    """Add the values of `node`'s `key` (or of its typed choice key) to `into`."""
    value = node.get(key)
    if value is None:
        value = next((node[key + kind] for kind in kinds if key + kind in node), None)
    if isinstance(value, list):
        into.extend(value)
    elif value is not None:
        into.append(value)
