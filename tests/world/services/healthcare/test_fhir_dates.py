"""R4 date prefixes as relations between ranges: properties that hold for any search value and any
resource value, whatever their precision."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from assay.world.services.healthcare.fhir.dates import date_range, date_test

PRECISIONS = st.sampled_from([4, 7, 10, 16, 19])  # yyyy, yyyy-mm, yyyy-mm-dd, …Thh:mm, …:ss
DATES = st.builds(
    lambda year, month, day, hour, minute, second, cut: (
        f"{year}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}"[:cut]
        + ("Z" if cut > 10 else "")
    ),
    st.integers(1998, 2002),
    st.integers(1, 12),
    st.integers(1, 28),
    st.integers(0, 23),
    st.integers(0, 59),
    st.integers(0, 59),
    PRECISIONS,
)


def holds(prefix: str, search: str, found: str) -> bool:
    return date_test(f"{prefix}{search}", ValueError)(found)


@given(DATES, DATES)
def test_the_prefixes_agree_with_each_other(search, found):
    assert holds("eq", search, found) != holds("ne", search, found)
    assert holds("ge", search, found) == (holds("gt", search, found) or holds("eq", search, found))
    assert holds("le", search, found) == (holds("lt", search, found) or holds("eq", search, found))
    assert not holds("sa", search, found) or holds("gt", search, found)
    assert not holds("eb", search, found) or holds("lt", search, found)
    assert not holds("eq", search, found) or holds("ap", search, found)
    assert not (holds("sa", search, found) and holds("eb", search, found))


@given(DATES)
def test_a_value_is_within_every_coarser_form_of_itself(value):
    for cut in (4, 7, 10):
        assert holds("eq", value[:cut], value)
    start, end = date_range(value)
    assert start < end
