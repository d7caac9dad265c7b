"""FHIR R4 search criteria over resources as plain JSON: each parameter's FHIRPath (from R4's own
definitions) gives the values, matched by the parameter's type with R4's modifiers and prefixes;
a repeated parameter is AND, a comma inside one value is OR (search.html §3.1.1.3)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from assay.world.services.healthcare.fhir.dates import date_test
from assay.world.services.healthcare.fhir.matching import (
    SearchError,
    Test,
    number_test,
    quantity_test,
    reference_parts,
    reference_test,
    split_escaped,
    string_test,
    token_test,
    unescaped,
    uri_test,
)
from assay.world.services.healthcare.fhir.params import SearchParam, known
from assay.world.services.healthcare.fhir.paths import evaluator

__all__ = ["RESULT", "SearchError", "matcher"]

Resources = Callable[[str], list[dict[str, Any]]]
Match = Callable[[dict[str, Any]], bool]
# parameters that shape the result rather than choose the matches (query.py reads them)
RESULT = frozenset(
    {"_sort", "_count", "_offset", "_format", "_pretty", "_total", "_summary", "_elements"}
    | {"_include", "_revinclude"}
)
REFUSED = {
    "_has": "reverse chaining (_has) is not supported",
    "_list": "_list is not supported",
    "_type": "_type is for system-wide search, which this server does not do",
    "_filter": "_filter is not supported",
    "_contained": "_contained is not supported",
    "_containedType": "_containedType is not supported",
}
MODIFIERS = {
    "token": {"", "not", "text", "of-type"},
    "string": {"", "exact", "contains"},
    "reference": {"", "identifier"},
    "date": {""},
    "number": {""},
    "quantity": {""},
    "uri": {"", "below", "above"},
    "composite": {""},
}
R4_MODIFIERS = {"missing", "exact", "contains", "text", "not", "above", "below", "in", "not-in"}
R4_MODIFIERS |= {"of-type", "identifier", "iterate"}
TESTS: dict[str, Callable[[str, str], Test]] = {
    "token": token_test,
    "string": string_test,
    "reference": reference_test,
    "date": lambda _modifier, want: date_test(want, SearchError),
    "number": number_test,
    "quantity": quantity_test,
    "uri": uri_test,
}


def values_of(value: str | list[str]) -> list[str]:
    """A parameter's values: a list is the parameter repeated."""
    return [str(item) for item in value] if isinstance(value, list) else [str(value)]


def matcher(
    resource_type: str,
    params: Mapping[str, str | list[str]],
    resources: Resources | None = None,
) -> Match:
    """A test of one resource against every criterion; `resources` (type → its resources) serves
    chained parameters (`subject:Patient.name=…`). Raises SearchError for what it cannot read."""
    tests = [
        criterion(resource_type, name, value, resources)
        for name, given in params.items()
        if name.partition(":")[0] not in RESULT
        for value in values_of(given)
    ]
    return lambda resource: all(test(resource) for test in tests)


def criterion(resource_type: str, raw_name: str, value: str, resources: Resources | None) -> Match:
    """One `name[:modifier][.chain]=value` as a test of a resource."""
    head, dot, chain = raw_name.partition(".")
    name, _, modifier = head.partition(":")
    if name in REFUSED:
        raise SearchError(REFUSED[name])
    param = parameter(resource_type, name)
    values = evaluator(param.expression)
    if modifier == "missing":
        if value not in ("true", "false"):
            raise SearchError(f"{raw_name}: use true or false, not {value!r}")
        missing = value == "true"
        return lambda resource: (not values(resource)) == missing
    if dot:
        return _chained(param, name, modifier, chain, value, resources)
    if param.type == "reference" and modifier and modifier[0].isupper():
        if modifier not in param.targets:
            raise SearchError(f"{raw_name}: {name} names no {modifier}")
        return _any_value(values, [reference_test(modifier, want) for want in _ors(value)])
    if modifier not in MODIFIERS.get(param.type, {""}):
        if modifier not in R4_MODIFIERS:
            raise SearchError(f"unknown modifier :{modifier} on {name}")
        raise SearchError(f"{raw_name}: :{modifier} is not supported on a {param.type} parameter")
    if param.type == "composite":
        return _composite(name, param, value)
    if param.type == "token" and modifier == "not":  # R4: includes resources without a value
        match = _any_value(values, [token_test("", want) for want in _ors(value)])
        return lambda resource: not match(resource)
    return _any_value(values, [TESTS[param.type](modifier, want) for want in _ors(value)])


def parameter(resource_type: str, name: str) -> SearchParam:
    table = known(resource_type)
    if name not in table:
        raise SearchError(f"unknown search parameter {name!r} for {resource_type}")
    param = table[name]
    if param.type == "special" or not param.expression:
        raise SearchError(f"the search parameter {name!r} is not supported by this server")
    return param


def _ors(value: str) -> list[str]:
    return split_escaped(value, ",")


def _any_value(values: Callable[..., list[Any]], tests: list[Test]) -> Match:
    return lambda resource: any(test(item) for item in values(resource) for test in tests)


def _chained(
    param: SearchParam,
    name: str,
    modifier: str,
    chain: str,
    value: str,
    resources: Resources | None,
) -> Match:
    """`subject:Patient.name=peter`: the reference names a resource that matches `name=peter`."""
    if param.type != "reference":
        raise SearchError(f"{name}.{chain}: only a reference parameter can be chained")
    if resources is None:
        raise SearchError(f"{name}.{chain}: chained parameters are not supported here")
    targets = [modifier] if modifier else list(param.targets)
    chained_name = chain.partition(".")[0].partition(":")[0]
    targets = [t for t in targets if chained_name in known(t)]
    if not targets:
        raise SearchError(
            f"{name}.{chain}: no target type of {name} has a parameter {chained_name!r}"
        )
    wanted: set[tuple[str, str]] = set()
    for target in targets:
        test = matcher(target, {chain: value}, resources)
        wanted |= {(target, found["id"]) for found in resources(target) if test(found)}
    values = evaluator(param.expression)

    def test(resource: dict[str, Any]) -> bool:
        for item in values(resource):
            reference = item.get("reference") if isinstance(item, dict) else None
            if isinstance(reference, str) and reference_parts(reference) in wanted:
                return True
        return False

    return test


def _composite(name: str, param: SearchParam, value: str) -> Match:
    """`code-value-quantity=loinc|8480-6$gt100`: every component matches within one item."""
    items = evaluator(param.expression)
    alternatives = []
    for want in _ors(value):
        parts = split_escaped(want, "$")
        if len(parts) != len(param.components):
            names = "$".join(component[0] for component in param.components)
            raise SearchError(f"{name}: give {names}, not {unescaped(want)!r}")
        alternatives.append(
            [
                (evaluator(expression), TESTS[kind]("", part))
                for (_, kind, expression), part in zip(param.components, parts, strict=True)
            ]
        )

    def test(resource: dict[str, Any]) -> bool:
        return any(
            all(any(check(v) for v in values(item, resource)) for values, check in components)
            for item in items(resource)
            for components in alternatives
        )

    return test
