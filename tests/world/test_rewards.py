"""Every row of the reward table a verifier's files can reach (docs/contracts/container.md §5, rows
1-15), read from disk."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.world.rewards import parse_reward_json, parse_reward_text, read_rewards


class Row(NamedTuple):
    files: dict[str, bytes]
    status: str
    primary: float | None = None
    rewards: dict[str, float] | None = None
    source: str | None = None
    reason: str | None = None  # a part the reason must contain


def scored_txt(value: float) -> Row:
    return Row({}, "SCORED", value, {"reward": value}, "reward.txt")


ROWS = {
    "row01-one": Row({"reward.txt": b"1"}, *scored_txt(1.0)[1:]),
    "row01-half": Row({"reward.txt": b"0.5"}, *scored_txt(0.5)[1:]),
    "row01-newline-stripped": Row({"reward.txt": b"1.0\n"}, *scored_txt(1.0)[1:]),
    "row01-surrounding-spaces": Row({"reward.txt": b"  \t0.25 \r\n"}, *scored_txt(0.25)[1:]),
    "row01-exponent": Row({"reward.txt": b"5e-1"}, *scored_txt(0.5)[1:]),
    "row01-leading-dot": Row({"reward.txt": b".75"}, *scored_txt(0.75)[1:]),
    "row01-trailing-dot": Row({"reward.txt": b"1."}, *scored_txt(1.0)[1:]),
    "row01-plus-sign": Row({"reward.txt": b"+1"}, *scored_txt(1.0)[1:]),
    "row01-byte-order-mark": Row({"reward.txt": b"\xef\xbb\xbf1"}, *scored_txt(1.0)[1:]),
    "row02-zero": Row({"reward.txt": b"0"}, *scored_txt(0.0)[1:]),
    "row02-minus-zero": Row({"reward.txt": b"-0"}, *scored_txt(0.0)[1:]),
    "row03-nan": Row(
        {"reward.txt": b"nan"}, "SCORING_ERROR", reason="reward.txt: 'nan' is not a number"
    ),
    "row03-inf": Row(
        {"reward.txt": b"inf"}, "SCORING_ERROR", reason="reward.txt: 'inf' is not a number"
    ),
    "row03-minus-inf": Row(
        {"reward.txt": b"-inf"}, "SCORING_ERROR", reason="'-inf' is not a number"
    ),
    "row03-overflow": Row(
        {"reward.txt": b"1e999"},
        "SCORING_ERROR",
        reason="reward.txt: '1e999' is not a finite number",
    ),
    "row04-negative": Row(
        {"reward.txt": b"-0.1"}, "SCORING_ERROR", reason="reward.txt: -0.1 is not in [0, 1]"
    ),
    "row04-above-one": Row(
        {"reward.txt": b"1.5"}, "SCORING_ERROR", reason="reward.txt: 1.5 is not in [0, 1]"
    ),
    "row04-two": Row(
        {"reward.txt": b"2"}, "SCORING_ERROR", reason="reward.txt: 2 is not in [0, 1]"
    ),
    "row05-empty": Row({"reward.txt": b""}, "SCORING_ERROR", reason="reward.txt: empty"),
    "row05-whitespace": Row(
        {"reward.txt": b" \n\t\n"}, "SCORING_ERROR", reason="reward.txt: empty"
    ),
    "row06-word": Row(
        {"reward.txt": b"abc"}, "SCORING_ERROR", reason="reward.txt: 'abc' is not a number"
    ),
    "row06-two-numbers": Row(
        {"reward.txt": b"1 2"}, "SCORING_ERROR", reason="'1 2' is not a number"
    ),
    "row06-hex": Row({"reward.txt": b"0x1"}, "SCORING_ERROR", reason="'0x1' is not a number"),
    "row06-true": Row({"reward.txt": b"true"}, "SCORING_ERROR", reason="'true' is not a number"),
    "row06-underscore": Row(
        {"reward.txt": b"1_0"}, "SCORING_ERROR", reason="'1_0' is not a number"
    ),
    "row06-arabic-indic-digit": Row(
        {"reward.txt": "١".encode()}, "SCORING_ERROR", reason="is not a number"
    ),
    "row06-two-lines": Row(
        {"reward.txt": b"1\n0"}, "SCORING_ERROR", reason="'1\\n0' is not a number"
    ),
    "row06-not-utf8": Row(
        {"reward.txt": b"\xff1"}, "SCORING_ERROR", reason="reward.txt: not UTF-8 text (byte 0"
    ),
    "row06-too-large": Row(
        {"reward.txt": b"1" + b" " * (1024 * 1024)},
        "SCORING_ERROR",
        reason="reward.txt: larger than 1 MiB",
    ),
    "row07-json-wins-over-txt": Row(
        {"reward.json": b'{"reward": 0.25}', "reward.txt": b"1"},
        "SCORED",
        0.25,
        {"reward": 0.25},
        "reward.json",
    ),
    "row07-bad-json-still-wins": Row(
        {"reward.json": b"{oops", "reward.txt": b"1"},
        "SCORING_ERROR",
        reason="reward.json: not valid JSON (line 1 column 2",
    ),
    "row08-reward-and-counts": Row(
        {"reward.json": b'{"reward": 1, "tests_passed": 12, "tests_total": 12}'},
        "SCORED",
        1.0,
        {"reward": 1.0, "tests_passed": 12.0, "tests_total": 12.0},
        "reward.json",
    ),
    "row08-other-keys-any-finite": Row(
        {"reward.json": b'{"reward": 0, "latency_ms": -3.5e6}'},
        "SCORED",
        0.0,
        {"reward": 0.0, "latency_ms": -3.5e6},
        "reward.json",
    ),
    "row09-single-key": Row(
        {"reward.json": b'{"funny": 0.7}'}, "SCORED", 0.7, {"funny": 0.7}, "reward.json"
    ),
    "row10-several-keys-no-reward": Row(
        {"reward.json": b'{"correctness": 1, "performance": 0}'},
        "SCORED",
        None,
        {"correctness": 1.0, "performance": 0.0},
        "reward.json",
    ),
    "row10-several-keys-any-range": Row(
        {"reward.json": b'{"a": 7, "b": -2}'},
        "SCORED",
        None,
        {"a": 7.0, "b": -2.0},
        "reward.json",
    ),
    "row11-nan": Row(
        {"reward.json": b'{"reward": NaN}'},
        "SCORING_ERROR",
        reason="reward.json: NaN is not a finite number",
    ),
    "row11-infinity-other-key": Row(
        {"reward.json": b'{"reward": 1, "x": Infinity}'},
        "SCORING_ERROR",
        reason="reward.json: Infinity is not a finite number",
    ),
    "row11-minus-infinity": Row(
        {"reward.json": b'{"reward": -Infinity}'},
        "SCORING_ERROR",
        reason="-Infinity is not a finite number",
    ),
    "row11-overflowing-float": Row(
        {"reward.json": b'{"reward": 1, "x": 1e999}'},
        "SCORING_ERROR",
        reason="reward.json: 'x' is not a finite number",
    ),
    "row11-overflowing-int": Row(
        {"reward.json": b'{"x": 1, "y": ' + b"9" * 5000 + b"}"},
        "SCORING_ERROR",
        reason="'y' is not a finite number",
    ),
    "row11-string": Row(
        {"reward.json": b'{"reward": "1"}'},
        "SCORING_ERROR",
        reason="reward.json: 'reward' is a string '1', not a number",
    ),
    "row11-bool": Row(
        {"reward.json": b'{"reward": true}'},
        "SCORING_ERROR",
        reason="reward.json: 'reward' is true, not a number",
    ),
    "row11-bool-other-key": Row(
        {"reward.json": b'{"reward": 1, "ok": false}'},
        "SCORING_ERROR",
        reason="'ok' is false, not a number",
    ),
    "row11-null": Row(
        {"reward.json": b'{"reward": null}'},
        "SCORING_ERROR",
        reason="'reward' is null, not a number",
    ),
    "row11-nested": Row(
        {"reward.json": b'{"reward": {"v": 1}}'},
        "SCORING_ERROR",
        reason="'reward' is an object, not a number",
    ),
    "row11-array": Row(
        {"reward.json": b'{"reward": [1]}'},
        "SCORING_ERROR",
        reason="'reward' is an array, not a number",
    ),
    "row12-reward-above-one": Row(
        {"reward.json": b'{"reward": 1.5, "x": 0}'},
        "SCORING_ERROR",
        reason="reward.json: the primary 'reward' is 1.5, not in [0, 1]",
    ),
    "row12-reward-negative": Row(
        {"reward.json": b'{"reward": -1}'},
        "SCORING_ERROR",
        reason="the primary 'reward' is -1.0, not in [0, 1]",
    ),
    "row12-sole-key-above-one": Row(
        {"reward.json": b'{"score": 2}'},
        "SCORING_ERROR",
        reason="the primary 'score' is 2.0, not in [0, 1]",
    ),
    "row13-empty-object": Row(
        {"reward.json": b"{}"}, "SCORING_ERROR", reason="reward.json: the object has no metrics"
    ),
    "row13-array": Row(
        {"reward.json": b"[1]"},
        "SCORING_ERROR",
        reason="reward.json: the top level is an array, not an object",
    ),
    "row13-number": Row(
        {"reward.json": b"1"}, "SCORING_ERROR", reason="the top level is a number, not an object"
    ),
    "row13-string": Row(
        {"reward.json": b'"1"'},
        "SCORING_ERROR",
        reason="the top level is a string '1', not an object",
    ),
    "row13-deeply-nested": Row(
        {"reward.json": b"[" * 100_000}, "SCORING_ERROR", reason="reward.json: not valid JSON"
    ),
    "row13-not-utf8": Row(
        {"reward.json": b'{"reward": 1, "\xff": 0}'},
        "SCORING_ERROR",
        reason="reward.json: not UTF-8 text",
    ),
    "row13-too-large": Row(
        {"reward.json": b'{"reward": 1}' + b" " * (1024 * 1024), "reward.txt": b"1"},
        "SCORING_ERROR",
        reason="reward.json: larger than 1 MiB",
    ),
    "row14-empty-json-falls-to-txt": Row(
        {"reward.json": b"", "reward.txt": b"0.5"}, *scored_txt(0.5)[1:]
    ),
    "row14-whitespace-json-falls-to-txt": Row(
        {"reward.json": b" \n\t", "reward.txt": b"1"}, *scored_txt(1.0)[1:]
    ),
    "row14-empty-json-then-bad-txt": Row(
        {"reward.json": b"\n", "reward.txt": b"x"},
        "SCORING_ERROR",
        reason="reward.txt: 'x' is not a number",
    ),
    "row15-neither": Row({}, "INDETERMINATE", reason="no reward file"),
    "row15-other-files-only": Row(
        {"test-stdout.txt": b"1", "ctrf.json": b"{}"}, "INDETERMINATE", reason="no reward file"
    ),
    "row15-only-empty-json": Row(
        {"reward.json": b"  "},
        "INDETERMINATE",
        reason="no reward file: reward.json is empty and there is no reward.txt",
    ),
}


@pytest.mark.parametrize("row", ROWS.values(), ids=ROWS.keys())
def test_reward_table(tmp_path: Path, row: Row) -> None:
    for name, content in row.files.items():
        (tmp_path / name).write_bytes(content)
    reading = read_rewards(tmp_path)
    assert reading.status == row.status
    assert reading.primary == row.primary
    assert reading.rewards == (row.rewards or {})
    assert reading.source == row.source
    if row.status == "SCORED":
        assert reading.reason is None
    else:
        assert row.reason is not None and row.reason in (reading.reason or "")
        assert "\n" not in (reading.reason or "")


def test_metrics_are_floats(tmp_path: Path) -> None:
    (tmp_path / "reward.json").write_text('{"reward": 1, "n": 3}')
    reading = read_rewards(tmp_path)
    assert all(type(value) is float for value in reading.rewards.values())
    assert type(reading.primary) is float


def test_missing_directory_is_no_reward_file(tmp_path: Path) -> None:
    reading = read_rewards(tmp_path / "never-made")
    assert (reading.status, reading.reason) == ("INDETERMINATE", "no reward file")


def test_a_symbolic_link_is_not_followed(tmp_path: Path) -> None:
    secret = tmp_path / "host-file"
    secret.write_text("1")
    verifier = tmp_path / "verifier"
    verifier.mkdir()
    (verifier / "reward.txt").symlink_to(secret)
    reading = read_rewards(verifier)
    assert reading.status == "SCORING_ERROR"
    assert reading.reason == "reward.txt: a symbolic link, not a regular file"


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "reward.json")
    reading = read_rewards(tmp_path)
    assert (reading.status, reading.reason) == ("SCORING_ERROR", "reward.json: not a regular file")


def test_a_directory_named_reward_txt_is_refused(tmp_path: Path) -> None:
    (tmp_path / "reward.txt").mkdir()
    assert read_rewards(tmp_path).reason == "reward.txt: not a regular file"


def test_a_long_value_is_shown_cut_on_one_line() -> None:
    reading = parse_reward_text("x" * 500 + "\n" + "y")
    assert reading.reason == f"reward.txt: '{'x' * 40}…' is not a number"


def test_parsers_take_text_directly() -> None:
    assert parse_reward_text("0.5").primary == 0.5
    assert parse_reward_json('{"reward": 0.5}').primary == 0.5
    assert parse_reward_json("").status == "SCORING_ERROR"


@given(st.floats(min_value=0.0, max_value=1.0))
def test_a_finite_float_in_range_round_trips(value: float) -> None:
    reading = parse_reward_text(repr(value))
    assert reading.status == "SCORED"
    assert reading.primary == value
    assert reading.rewards == {"reward": value}


@given(st.floats(allow_nan=True, allow_infinity=True).filter(lambda value: not 0.0 <= value <= 1.0))
def test_a_float_outside_the_range_is_a_scoring_error(value: float) -> None:
    reading = parse_reward_text(repr(value))
    assert reading.status == "SCORING_ERROR"
    assert reading.reason is not None and reading.reason.startswith("reward.txt: ")
    assert reading.rewards == {}


@given(st.text(max_size=200))
def test_any_json_text_gives_a_reading_never_an_exception(text: str) -> None:
    reading = parse_reward_json(text)
    if reading.status == "SCORED":
        assert reading.rewards and all(math.isfinite(v) for v in reading.rewards.values())
        assert reading.primary is None or 0 <= reading.primary <= 1
    else:
        assert reading.reason is not None and reading.reason.startswith("reward.json: ")


@given(
    st.dictionaries(
        st.text(max_size=8),
        st.one_of(st.floats(), st.integers(), st.booleans(), st.none(), st.text(max_size=3)),
        max_size=4,
    )
)
def test_any_json_object_is_scored_only_when_every_value_is_a_finite_number(
    document: dict[str, object],
) -> None:
    reading = parse_reward_json(json.dumps(document))
    numbers = all(
        isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
        for v in document.values()
    )
    primary = document.get("reward", next(iter(document.values())) if len(document) == 1 else None)
    in_range = primary is None or (numbers and 0 <= primary <= 1)  # type: ignore[operator]
    assert (reading.status == "SCORED") == (bool(document) and numbers and in_range)
