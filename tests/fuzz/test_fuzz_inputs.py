"""Mangled world and task files, and random action JSON, never produce a traceback.

Loading either succeeds or raises a SpecError whose one line names a file of the world; through the
CLI that is exit code 2 and one line on stderr. An action is parsed or refused with InvalidAction.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from worldkit import BASIC_TASK, DESK_WORLD, write_world

from assay.cli.app import run_app
from assay.errors import SpecError
from assay.taskrun.actions import InvalidAction, action_json, parse_action
from assay.world.load import load_world

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,  # the same cases every run: a failure here is a bug, not bad luck
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

SQL = st.sampled_from(
    [
        "SELECT 1",
        "SELECT count(*) FROM notes",
        "SELEC 1",
        "",
        "SELECT 1; SELECT 2",
        "DELETE FROM notes RETURNING id",
        "REPLACE INTO notes (text) VALUES ('a')",
        "VACUUM INTO 'x.db'",
        "REINDEX",
        "SAVEPOINT a",
        "WITH d AS (DELETE FROM notes RETURNING *) SELECT 1",
        "SELECT :missing",
        "SELECT ?",
        "SELECT load_extension('x')",
        "SELECT * FROM sandbox_requests",
        "SELECT '" + "(" * 300,
    ]
)
PATHS = st.sampled_from(
    ["tools.py", "verifiers.py", "schema.sql", "seed.sql", "../evil.py", "/etc/hostname", "tasks",
     "nope.py", "data/x.csv", "a\x00b", "seed.txt", "", ".", "tasks/basic.toml"]
)  # fmt: skip
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    SQL,
    PATHS,
)
VALUES = st.recursive(
    SCALARS.filter(lambda value: value is not None),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


def toml_string(text: str) -> str:
    # JSON's escapes are TOML's, but for surrogate pairs (ensure_ascii) and a raw DEL.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def toml_value(value: Any) -> str:
    """One value as inline TOML (arrays and inline tables nest as deep as the value does)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return (
            "nan"
            if math.isnan(value)
            else ("inf" if value > 0 else "-inf")
            if math.isinf(value)
            else repr(value)
        )
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value if item is not None) + "]"
    pairs = (f"{toml_string(k)} = {toml_value(v)}" for k, v in value.items() if v is not None)
    return "{" + ", ".join(pairs) + "}"


def toml_text(data: dict[str, Any]) -> str:
    """A document of `key = value` lines; TOML has no null, so None values are left out."""
    lines = (f"{toml_string(k)} = {toml_value(v)}\n" for k, v in data.items() if v is not None)
    return "".join(lines)


def encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate makes bytes that are not UTF-8


def document(
    known: dict[str, st.SearchStrategy[Any]], required: tuple[str, ...]
) -> st.SearchStrategy[dict[str, Any]]:
    """Known keys, mostly with plausible values and sometimes wrong ones; now and then an unknown
    key. The required keys are always there, so the cases reach past the first missing field."""

    def value(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.integers(0, 5).flatmap(lambda pick: VALUES if pick == 0 else strategy)

    return st.fixed_dictionaries(
        {key: value(known[key]) for key in required},
        optional={
            **{key: value(strategy) for key, strategy in known.items() if key not in required},
            "colour": VALUES,
        },
    )


CHECK = st.fixed_dictionaries(
    {"name": st.just("c")},
    optional={
        "sql": SQL,
        "assert": st.sampled_from(["sql", "answer", "python", "judge", 5]),
        "type": st.sampled_from(["goal", "rule", "optional", "bogus"]),
        "weight": st.floats(allow_nan=True, allow_infinity=True),
        "op": st.sampled_from(["eq", "<=", "~"]),
        "expect": st.one_of(SCALARS, st.fixed_dictionaries({"sql": SQL})),
        "params": st.dictionaries(st.sampled_from(["missing", "a"]), SCALARS, max_size=2),
        "contains": st.one_of(st.text(max_size=5), st.lists(st.text(max_size=5), max_size=2)),
        "number": st.one_of(st.floats(), st.fixed_dictionaries({"sql": SQL})),
        "verifier": st.text(max_size=8),
    },
)
STEP = st.one_of(
    st.fixed_dictionaries({"call": st.sampled_from(["add_note", "nope"]), "args": VALUES}),
    st.fixed_dictionaries({"say": SCALARS}),
    st.fixed_dictionaries({"finish": SCALARS}),
    VALUES,
)
TASK = document(
    {
        "title": st.text(max_size=10) | st.just("t"),
        "role": st.sampled_from(["desk", "admin", "clerk"]),
        "split": st.sampled_from(["train", "dev", "holdout", "test"]),
        "max_turns": st.integers(min_value=-2, max_value=2**65),
        "time_limit_s": st.floats(allow_nan=True, allow_infinity=True),
        "customer": st.fixed_dictionaries(
            {"request": st.text(max_size=10)},
            optional={
                "changes": st.lists(
                    st.fixed_dictionaries(
                        {
                            "at": st.sampled_from(["first_write", "turn:0", "after:nope"]),
                            "say": st.text(max_size=5),
                        }
                    ),
                    max_size=2,
                )
            },
        ),
        "checks": st.lists(CHECK, max_size=3),
        "faults": st.lists(
            st.fixed_dictionaries(
                {"tool": st.sampled_from(["add_note", "nope"]), "effect": st.text(max_size=8)}
            ),
            max_size=2,
        ),
        "solution": st.fixed_dictionaries({"steps": st.lists(STEP, max_size=3)}),
        "wrong": st.lists(st.fixed_dictionaries({"name": st.text(max_size=5)}), max_size=2),
    },
    required=("title", "role", "customer"),
)
SERVICE = st.one_of(
    st.sampled_from(["payments", "email", "recorder", "tape", "tools.py:Nope", "../crm.py:Crm"]),
    st.fixed_dictionaries(
        {"kind": st.sampled_from(["payments", "email", "recorder"])},
        optional={"charges_query": st.one_of(SQL, SCALARS), "extra": SCALARS},
    ),
)
WORLD = document(
    {
        "name": st.just("desk"),  # wrong names come from the values any key may get
        "version": st.just("1"),
        "clock": st.just("2026-03-02T09:00:00Z"),
        "clock_step_s": st.floats(allow_nan=True, allow_infinity=True),
        "check_timeout_s": st.floats(allow_nan=True, allow_infinity=True),
        "tools": st.lists(PATHS, max_size=2),
        "verifiers": st.lists(PATHS, max_size=2),
        "database": st.fixed_dictionaries(
            {"schema": PATHS},
            optional={"seed": st.lists(PATHS, max_size=2), "backend": st.just("mysql")},
        ),
        "services": st.dictionaries(st.sampled_from(["pay", "email", "log"]), SERVICE, max_size=2),
        "roles": st.dictionaries(
            st.sampled_from(["desk", "x"]),
            st.fixed_dictionaries({"tools": st.lists(st.sampled_from(["add_note", "nope"]))}),
            max_size=2,
        ),
    },
    required=("name", "version", "database"),
)


def mangled(text: str) -> st.SearchStrategy[bytes]:
    """A good file's text broken in the ways files break: encodings, cuts, junk, deep nesting."""
    raw = text.encode()
    return st.one_of(
        st.binary(max_size=200),
        st.sampled_from(
            [
                b"\xef\xbb\xbf" + raw,
                text.encode("utf-16"),
                raw.replace(b"=", b"\xe9=", 1),
                b"x = " + b"[" * 3000 + b"]" * 3000,
                b"x = " + b"{a = " * 500 + b"1" + b"}" * 500,
                raw + b"\n[customer]\n",
                raw + b"\x00",
            ]
        ),
        st.integers(min_value=0, max_value=len(raw)).map(lambda cut: raw[:cut]),
    )


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_world(tmp_path_factory.mktemp("fuzz") / "desk")


def assert_user_error(root: Path, write: Any) -> None:
    """Load the world after `write()`; any failure is one SpecError line naming a file in it."""
    write()
    try:
        world = load_world(root)
        _ = world.snapshot
    except SpecError as error:
        text = str(error)
        assert "\n" not in text and "Traceback" not in text, text
        named = Path(error.file).resolve()
        assert named.is_relative_to(root.resolve()), text


@FUZZ
@given(data=st.one_of(TASK.map(toml_text).map(encoded), mangled(BASIC_TASK)))
def test_fuzzed_task_files_fail_as_one_spec_error(desk: Path, data: bytes):
    assert_user_error(desk, lambda: (desk / "tasks" / "basic.toml").write_bytes(data))


@FUZZ
@given(data=st.one_of(WORLD.map(toml_text).map(encoded), mangled(DESK_WORLD)))
def test_fuzzed_world_files_fail_as_one_spec_error(tmp_path_factory, data: bytes):
    root = write_world(tmp_path_factory.mktemp("world") / "w")
    assert_user_error(root, lambda: (root / "world.toml").write_bytes(data))


@FUZZ
@given(data=st.one_of(st.binary(max_size=120), mangled("CREATE TABLE notes (id INTEGER);")))
def test_fuzzed_schema_and_seed_files_fail_as_one_spec_error(tmp_path_factory, data: bytes):
    root = write_world(tmp_path_factory.mktemp("data") / "w")

    def write() -> None:
        (root / "schema.sql").write_bytes(data)
        (root / "seed.sql").write_bytes(data[::-1])

    assert_user_error(root, write)


def run_cli(*args: str) -> tuple[int, str]:
    stderr = io.StringIO()
    saved = sys.argv
    sys.argv = ["assay", *args]
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            run_app()
        code: Any = 0
    except SystemExit as done:
        code = done.code
    finally:
        sys.argv = saved
    return code or 0, stderr.getvalue()


@settings(FUZZ, max_examples=15)
@given(
    command=st.sampled_from(["run", "validate"]),
    data=st.one_of(WORLD.map(toml_text).map(encoded), mangled(DESK_WORLD)),
)
def test_a_fuzzed_world_through_the_cli_is_exit_2_and_one_line(tmp_path_factory, command, data):
    root = write_world(tmp_path_factory.mktemp("cli") / "w")
    (root / "world.toml").write_bytes(data)
    code, err = run_cli(command, str(root))
    assert "Traceback" not in err, err
    if code != 0 and code != 1:
        assert (code, err.count("\n"), err.startswith("error: ")) == (2, 1, True), err


JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=10)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.one_of(st.sampled_from(["call", "say", "finish", "tool", "args"]), st.text()),
            inner,
            max_size=3,
        ),
    ),
    max_leaves=10,
)


@settings(FUZZ, max_examples=300)
@given(value=st.one_of(JSON, st.dictionaries(st.sampled_from(["call", "say", "finish"]), JSON)))
def test_random_action_json_is_parsed_or_refused_in_one_line(value: Any):
    try:
        action = parse_action(value)
    except InvalidAction as refused:
        assert "\n" not in str(refused) and str(refused)
        return
    assert parse_action(action_json(action)) == action
