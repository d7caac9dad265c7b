"""FHIR search over resources as plain JSON: each parameter's FHIRPath evaluated with fhirpathpy,
matched by its type (token, string, reference, date, number, quantity) with R4 modifiers and prefixes."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping
from decimal import Decimal, InvalidOperation
from functools import cache
from typing import Any

from assay.world.services.healthcare.fhir.params import CONTROL, known

DATE_PREFIXES = ("eq", "ne", "gt", "lt", "ge", "le", "sa", "eb")


class SearchError(ValueError):
    """A parameter the server does not know, or a value it cannot read (HTTP 400)."""


def matcher(resource_type: str, params: Mapping[str, str]) -> Callable[[dict[str, Any]], bool]:
    """A test of one resource against every parameter (AND), each value list comma-separated (OR)."""
    table = known(resource_type)
    tests = []
    for raw_name, value in params.items():
        name, _, modifier = raw_name.partition(":")
        if name in CONTROL:
            continue
        if name not in table:
            names = ", ".join(sorted({*table, *CONTROL}))
            raise SearchError(
                f"unknown search parameter {raw_name!r} for {resource_type} (known: {names})"
            )
        kind, path = table[name]
        tests.append(_test(kind, _compiled(path), modifier, str(value)))
    return lambda resource: all(test(resource) for test in tests)


@cache
def _compiled(path: str) -> Callable[[Any], list[Any]]:
    from fhirpathpy import compile as compile_path  # only worlds with a FHIR server load it

    return compile_path(path)


def _test(
    kind: str, path: Callable[[Any], list[Any]], modifier: str, value: str
) -> Callable[[dict[str, Any]], bool]:
    wanted = value.split(",")
    check = {
        "token": _token,
        "string": _string,
        "reference": _reference,
        "date": _date,
        "number": _number,
        "quantity": _number,
    }[kind]
    negate = modifier == "not"
    if modifier not in ("", "not", "exact", "contains"):
        raise SearchError(f"unknown modifier :{modifier}")

    def test(resource: dict[str, Any]) -> bool:
        values = path(resource)
        found = any(check(item, want, modifier) for item in values for want in wanted)
        return not found if negate else found

    return test


def _token(item: Any, want: str, _modifier: str) -> bool:
    system, bar, code = want.rpartition("|")
    for found_system, found_code in _codes(item):
        if found_code == code and (not bar or system == (found_system or "")):
            return True
    return False


def _codes(item: Any) -> list[tuple[str | None, str]]:
    if isinstance(item, str | bool | int):
        return [(None, str(item).lower() if isinstance(item, bool) else str(item))]
    if not isinstance(item, dict):
        return []
    if "coding" in item:
        return [(c.get("system"), str(c.get("code"))) for c in item["coding"] if "code" in c]
    if "code" in item:
        return [(item.get("system"), str(item["code"]))]
    if "value" in item:  # an Identifier
        return [(item.get("system"), str(item["value"]))]
    return []


def _string(item: Any, want: str, modifier: str) -> bool:
    if not isinstance(item, str):
        return False
    if modifier == "exact":
        return item == want
    found, wanted = _plain(item), _plain(want)
    return wanted in found if modifier == "contains" else found.startswith(wanted)


def _plain(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def _reference(item: Any, want: str, _modifier: str) -> bool:
    """`Patient/x` equals the reference; a bare `x` matches the id part of any reference."""
    reference = item.get("reference") if isinstance(item, dict) else item
    if not isinstance(reference, str):
        return False
    if "/" in want:
        return reference == want
    return reference.rpartition("/")[2] == want


def _date(item: Any, want: str, _modifier: str) -> bool:
    if not isinstance(item, str):
        return False
    prefix = want[:2] if want[:2] in DATE_PREFIXES else "eq"
    value = want[2:] if want[:2] in DATE_PREFIXES else want
    found = item[: len(value)]  # compared at the precision the search gives
    if not value:
        raise SearchError(f"a date search needs a value: {want!r}")
    return {
        "eq": found == value,
        "ne": found != value,
        "gt": found > value,
        "sa": found > value,
        "ge": found >= value,
        "lt": found < value,
        "eb": found < value,
        "le": found <= value,
    }[prefix]


def _number(item: Any, want: str, _modifier: str) -> bool:
    """R4 number/quantity: `[prefix]value[|system|code]`; `eq` holds within the value's precision
    (`100` matches 99.5 up to 100.5), the other prefixes compare the values."""
    number, _, unit = want.partition("|")
    prefix = number[:2] if number[:2] in DATE_PREFIXES else "eq"
    text = number[2:] if number[:2] in DATE_PREFIXES else number
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise SearchError(f"not a number: {want!r}") from None
    found = item.get("value") if isinstance(item, dict) else item
    if isinstance(found, bool) or not isinstance(found, int | float | str | Decimal):
        return False
    if unit and not _same_unit(item, unit):
        return False
    found = Decimal(str(found))
    half = Decimal(5).scaleb(value.as_tuple().exponent - 1)
    return {
        "eq": abs(found - value) < half or found == value,
        "ne": not (abs(found - value) < half or found == value),
        "gt": found > value,
        "sa": found > value,
        "ge": found >= value,
        "lt": found < value,
        "eb": found < value,
        "le": found <= value,
    }[prefix]


def _same_unit(item: Any, unit: str) -> bool:
    """`system|code` against a Quantity's system and code; `|code` or `code` also match its unit."""
    if not isinstance(item, dict):
        return False
    system, _, code = unit.rpartition("|")
    if system:
        return item.get("system") == system and item.get("code") == code
    return code in (item.get("code"), item.get("unit"))
