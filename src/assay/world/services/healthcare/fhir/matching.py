"""R4 search value matching for one alternative of a parameter (search.html §3.1.1.4): each
`*_test` reads the search value and modifier once and returns a test of one resource value."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from assay.world.services.healthcare.fhir.dates import PREFIXES

Test = Callable[[Any], bool]
REFERENCE = re.compile(
    r"^(?:(?P<base>.*)/)?(?P<type>[A-Z][A-Za-z]+)/(?P<id>[A-Za-z0-9\-.]{1,64})"
    r"(?:/_history/[^/]+)?$"
)


class SearchError(ValueError):
    """A parameter the server does not know, or a value it cannot read (HTTP 400)."""


def split_escaped(text: str, separator: str) -> list[str]:
    """`text` split at each `separator` not escaped with a backslash (R4 §3.1.1.4.8: `\\,`, `\\|`,
    `\\$`, `\\\\`); the escapes stay for the next split."""
    parts, current, escaped = [], [], False
    for char in text:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            current.append(char)
            escaped = True
        elif char == separator:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def unescaped(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def token_test(modifier: str, want: str) -> Test:
    """`code`, `system|code`, `|code` (no system), `system|` (any code of it); `:text` matches the
    text or display; `:of-type` is `type-system|type-code|value` on an Identifier."""
    if modifier == "text":
        return _text_test(unescaped(want))
    parts = [unescaped(part) for part in split_escaped(want, "|")]
    if modifier == "of-type":
        if len(parts) != 3:
            raise SearchError(f":of-type wants type-system|type-code|value, not {want!r}")
        return _of_type_test(*parts)
    if len(parts) > 2:
        raise SearchError(f"a token is code, system|code, |code or system|: not {want!r}")
    system, code = (None, parts[0]) if len(parts) == 1 else parts

    def test(item: Any) -> bool:
        for found_system, found_code in codes(item):
            if system is None and found_code == code:
                return True
            if system is not None and (found_system or "") == system and code in ("", found_code):
                return True
        return False

    return test


def codes(item: Any) -> list[tuple[str | None, str]]:
    """(system, code) pairs of a code, boolean, Coding, CodeableConcept, Identifier or
    ContactPoint (its value, with its system)."""
    if isinstance(item, bool):
        return [(None, "true" if item else "false")]
    if isinstance(item, str | int):
        return [(None, str(item))]
    if not isinstance(item, dict):
        return []
    if "coding" in item:
        return [(c.get("system"), str(c["code"])) for c in item["coding"] if "code" in c]
    if "code" in item:
        return [(item.get("system"), str(item["code"]))]
    if "value" in item:
        return [(item.get("system"), str(item["value"]))]
    return []


def _text_test(want: str) -> Test:
    wanted = plain(want)

    def test(item: Any) -> bool:
        if not isinstance(item, dict):
            return False
        texts = [item.get("text"), item.get("display"), item.get("type", {}).get("text")]
        texts += [coding.get("display") for coding in item.get("coding", [])]
        return any(isinstance(text, str) and plain(text).startswith(wanted) for text in texts)

    return test


def _of_type_test(system: str, code: str, value: str) -> Test:
    def test(item: Any) -> bool:
        if not isinstance(item, dict) or item.get("value") != value:
            return False
        kinds = item.get("type", {}).get("coding", [])
        return any(c.get("system") == system and c.get("code") == code for c in kinds)

    return test


def string_test(modifier: str, want: str) -> Test:
    """Case- and accent-blind `starts with` by default, `:contains` anywhere, `:exact` as given;
    a HumanName or Address matches on any of its parts."""
    want = unescaped(want)
    wanted = plain(want)
    if modifier == "exact":
        return lambda item: want in strings(item)
    if modifier == "contains":
        return lambda item: any(wanted in plain(text) for text in strings(item))
    return lambda item: any(plain(text).startswith(wanted) for text in strings(item))


def strings(item: Any) -> list[str]:
    if isinstance(item, str):
        return [item]
    if not isinstance(item, dict):
        return []
    parts = ("text", "family", "given", "prefix", "suffix")  # HumanName
    parts += ("line", "city", "district", "state", "postalCode", "country")  # Address
    found: list[str] = []
    for part in parts:
        value = item.get(part)
        found.extend(value if isinstance(value, list) else [value] if value else [])
    return [text for text in found if isinstance(text, str)]


def plain(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def uri_test(modifier: str, want: str) -> Test:
    """Exact by default; `:below` is the URI and what lies under it, `:above` what it lies under."""
    want = unescaped(want)

    def test(item: Any) -> bool:
        if not isinstance(item, str):
            return False
        if modifier == "below":
            return item.startswith(want)
        if modifier == "above":
            return want.startswith(item)
        return item == want

    return test


def reference_parts(reference: str) -> tuple[str, str] | None:
    """(type, id) of a relative or absolute literal reference (`…/Patient/7/_history/2`)."""
    found = REFERENCE.match(reference)
    return (found.group("type"), found.group("id")) if found else None


def reference_test(modifier: str, want: str) -> Test:
    """`Type/id`, a bare `id` (of any type, or of `:Type`), or an absolute URL whose tail is
    `Type/id` (matched as that local reference); `:identifier` matches Reference.identifier."""
    want = unescaped(want)
    if modifier == "identifier":
        token = token_test("", want)
        return lambda item: isinstance(item, dict) and token(item.get("identifier"))
    wanted = reference_parts(want)
    if wanted is None and "/" in want:
        return lambda item: _reference_of(item) == want  # a canonical URL or a logical one
    if wanted is None:
        wanted = (modifier or None, want)
    elif modifier and wanted[0] != modifier:
        raise SearchError(f":{modifier} with a reference to {wanted[0]}: {want!r}")

    def test(item: Any) -> bool:
        reference = _reference_of(item)
        found = reference_parts(reference) if reference else None
        if found is None:
            return reference == want
        return found[1] == wanted[1] and wanted[0] in (None, found[0])

    return test


def _reference_of(item: Any) -> str | None:
    reference = item.get("reference") if isinstance(item, dict) else item
    return reference.split("|")[0] if isinstance(reference, str) else None


def number_test(modifier: str, want: str) -> Test:
    """`[prefix]number`: `eq` holds within the value's precision (`100` is 99.5 up to 100.5),
    other prefixes compare with the value itself; `ap` is within 10%."""
    return _quantity(want, with_unit=False)


def quantity_test(modifier: str, want: str) -> Test:
    """`[prefix]number|system|code`, `[prefix]number||code` or `number|code` (its code or unit),
    or `[prefix]number`."""
    return _quantity(want, with_unit=True)


def _quantity(want: str, with_unit: bool) -> Test:
    parts = [unescaped(part) for part in split_escaped(want, "|")]
    if len(parts) > 3 or (len(parts) > 1 and not with_unit):
        raise SearchError(f"not a {'quantity' if with_unit else 'number'}: {want!r}")
    number = parts[0]
    prefix = number[:2] if number[:2] in PREFIXES else "eq"
    text = number[2:] if number[:2] in PREFIXES else number
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise SearchError(f"not a number: {want!r}") from None
    system, code = ("", *parts[1:]) if len(parts) == 2 else (*parts[1:], "", "")[:2]
    half = Decimal(5).scaleb(value.as_tuple().exponent - 1)
    low, high = value - half, value + half
    margin = abs(value) / 10

    compare = {
        "eq": lambda first, last: low <= first and last < high,
        "ne": lambda first, last: not (low <= first and last < high),
        "gt": lambda first, last: last > value,
        "lt": lambda first, last: first < value,
        "ge": lambda first, last: last >= value,
        "le": lambda first, last: first <= value,
        "sa": lambda first, last: first > value,
        "eb": lambda first, last: last < value,
        "ap": lambda first, last: first <= value + margin and value - margin <= last,
    }[prefix]

    def test(item: Any) -> bool:
        if code and not _same_unit(item, system, code):
            return False
        bounds = _bounds(item)
        return bounds is not None and compare(*bounds)

    return test


def _bounds(item: Any) -> tuple[Decimal, Decimal] | None:
    """A number or Quantity as a point; a Range as its low to its high."""
    if isinstance(item, dict) and ("low" in item or "high" in item):
        low, high = _number(item.get("low")), _number(item.get("high"))
        if low is None and high is None:
            return None
        return (
            low if low is not None else Decimal("-Infinity"),
            high if high is not None else Decimal("Infinity"),
        )
    found = _number(item)
    return None if found is None else (found, found)


def _number(item: Any) -> Decimal | None:
    found = item.get("value") if isinstance(item, dict) else item
    if isinstance(found, bool) or not isinstance(found, int | float | str | Decimal):
        return None
    try:
        return Decimal(str(found))
    except InvalidOperation:
        return None


def _same_unit(item: Any, system: str, code: str) -> bool:
    if isinstance(item, dict) and ("low" in item or "high" in item):
        item = item.get("low") or item.get("high")
    if not isinstance(item, dict):
        return False
    if system:
        return item.get("system") == system and item.get("code") == code
    return code in (item.get("code"), item.get("unit"))
