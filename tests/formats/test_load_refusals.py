"""Files that used to crash loading, exit silently or load when they should not: each is now one line
naming the file and field, and exit code 2, through `assay run` and `assay validate` alike."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from worldkit import BASIC_TASK, DESK_TOOLS, DESK_WORLD, write_world

from assay.cli.app import run_app
from assay.errors import SpecError
from assay.runs import open_benchmark


def replaced(old: str, new: str) -> Callable[[Path], Path]:
    return lambda root: write_world(root, world_toml=DESK_WORLD.replace(old, new))


def with_data(name: str, content: bytes) -> Callable[[Path], Path]:
    """A desk world seeded from `data/<name>` (the numbers table) holding `content`."""

    def build(root: Path) -> Path:
        seeds = f'seed = ["seed.sql", "data/{name}"]'
        write_world(root, world_toml=DESK_WORLD.replace('seed = ["seed.sql"]', seeds))
        (root / "data").mkdir()
        (root / "data" / name).write_bytes(content)
        return root

    return build


def with_file(relative: str, content: bytes, **files: str) -> Callable[[Path], Path]:
    def build(root: Path) -> Path:
        write_world(root, **files)
        (root / relative).write_bytes(content)
        return root

    return build


def without_tasks(root: Path) -> Path:
    write_world(root)
    shutil.rmtree(root / "tasks")
    return root


def with_task_directory(root: Path) -> Path:
    write_world(root)
    (root / "tasks" / "x.toml").mkdir()
    return root


def task_edited(old: str, new: str) -> Callable[[Path], Path]:
    task = BASIC_TASK.replace(old, new)
    assert task != BASIC_TASK
    return lambda root: write_world(root, tasks={"t": task})


def weighted(weight: str) -> Callable[[Path], Path]:
    task = BASIC_TASK.replace("expect = 1", f"expect = 1\nweight = {weight}")
    return lambda root: write_world(root, tasks={"t": task})


NOT_UTF8_SCHEMA = (
    b"CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL, at TEXT); -- caf\xe9\n"
    b"CREATE TABLE numbers (name TEXT PRIMARY KEY, value TEXT);\n"
)
PAYMENTS = 'email = "email"\npay = {{ kind = "payments", charges_query = "{sql}" }}'

# Refused when the world loads, by both commands: (build, what stderr says).
WORLD_CASES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "schema not UTF-8": (
        with_file("schema.sql", NOT_UTF8_SCHEMA),
        "schema.sql: not UTF-8 text (byte 80: invalid continuation byte)",
    ),
    "a schema error quoting a line break": (
        with_file("schema.sql", b"CREATE TABLE notes (id INTEGER);\n'\n"),
        """schema.sql: schema failed: unrecognized token: "'\\n\"""",
    ),
    "tools.py calls sys.exit": (
        lambda root: write_world(root, tools=DESK_TOOLS + "\nimport sys\nsys.exit(3)\n"),
        "tools.py: line 56: cannot load: it called sys.exit(3)",
    ),
    "a tool type with no JSON Schema": (
        lambda root: write_world(
            root,
            tools=DESK_TOOLS
            + "\nimport threading\n\n@tool\ndef lock(world, held: threading.Lock) -> dict:\n"
            "    return {}\n",
        ),
        "tools.py: line 57: cannot load: TypeError: tool lock: parameter held: type "
        "allocate_lock cannot be described to an agent",
    ),
    "tools outside the world": (
        replaced('tools = ["tools.py"]', 'tools = ["tools.py", "../evil_tools.py"]'),
        "world.toml: tools[1]: '../evil_tools.py' is outside the world directory",
    ),
    "a seed at an absolute path": (
        replaced('seed = ["seed.sql"]', 'seed = ["/etc/hostname"]'),
        "world.toml: database.seed[0]: '/etc/hostname' is outside the world directory",
    ),
    "a schema outside the world": (
        replaced('schema = "schema.sql"', 'schema = "../schema.sql"'),
        "world.toml: database.schema: '../schema.sql' is outside the world directory",
    ),
    "a service module outside the world": (
        replaced('log = "recorder"', 'log = "../crm.py:Crm"'),
        "world.toml: services.log: '../crm.py' is outside the world directory",
    ),
    "charges_query that does not parse": (
        replaced('email = "email"', PAYMENTS.format(sql="SELECT FROM WHERE")),
        "world.toml: services.pay.charges_query: SQL does not parse",
    ),
    "charges_query that deletes": (
        replaced('email = "email"', PAYMENTS.format(sql="DELETE FROM notes RETURNING id")),
        "world.toml: services.pay.charges_query: SQL is a DELETE statement; only SELECT or WITH",
    ),
    "charges_query of two statements": (
        replaced('email = "email"', PAYMENTS.format(sql="SELECT 1; SELECT 2")),
        "services.pay.charges_query: SQL holds 2 statements; a service query is exactly one",
    ),
    "an option the service kind does not take": (
        replaced('email = "email"', 'email = { kind = "email", from = "x@example.com" }'),
        "world.toml: services.email.from: unknown option (known: none)",
    ),
    "a CSV row with an extra field": (
        with_data("numbers.csv", b"name,value\nsix,6\nten,10,EXTRA\n"),
        "data/numbers.csv: line 3: 3 fields where the header has 2",
    ),
    "a CSV row with a missing field": (
        with_data("numbers.csv", b"name,value\nsix\n"),
        "data/numbers.csv: line 2: 1 fields where the header has 2",
    ),
    "a world without tasks/": (
        without_tasks,
        "tasks: no such directory; a world needs at least one tasks/<id>.toml",
    ),
}

# Refused by `assay run` (a task that does not load stops it); `assay validate` reports these as
# the task's failed static proof instead.
TASK_CASES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "TOML nested 5,000 deep": (
        lambda root: write_world(root, tasks={"t": "x = " + "[" * 5000 + "]" * 5000}),
        "tasks/t.toml: not valid TOML: nested too deeply",
    ),
    "a directory named tasks/x.toml": (
        with_task_directory,
        "tasks/x.toml: is a directory, not a file",
    ),
    "weight = inf": (weighted("inf"), "tasks/t.toml: checks[0].weight: Input should be a finite"),
    "weight = nan": (weighted("nan"), "tasks/t.toml: checks[0].weight: Input should be a finite"),
    "weight = 0": (weighted("0"), "tasks/t.toml: checks[0].weight: Input should be greater than 0"),
    # These ran (rule_violated, not_achieved) with exit 0: a task that cannot be graded
    "expect = nan": (
        task_edited("expect = 1", "expect = nan"),
        "tasks/t.toml: checks[0].expect: nan equals nothing, itself included; give a number",
    ),
    "an unknown assert": (
        task_edited('name = "A hello note exists"', 'name = "x"\nassert = "frobnicate"'),
        "tasks/t.toml: checks[0].assert: unknown assert 'frobnicate' (known: sql, answer,",
    ),
    "a task with no checks": (
        task_edited(
            BASIC_TASK[BASIC_TASK.index("[[checks]]") : BASIC_TASK.index("[solution]")], ""
        ),
        "tasks/t.toml: checks: no checks; a task needs at least one goal check",
    ),
    "a task with rule checks only": (
        task_edited("expect = 1", 'expect = 1\ntype = "rule"'),
        "tasks/t.toml: checks: no goal check (only rule); a task needs at least one",
    ),
}
UNGRADABLE = ["expect = nan", "an unknown assert", "a task with no checks"]


def cli(monkeypatch, capsys, *args: str) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["assay", *args])
    with pytest.raises(SystemExit) as done:
        run_app()
    return done.value.code, capsys.readouterr().err


@pytest.mark.parametrize("command", ["run", "validate"])
@pytest.mark.parametrize("case", WORLD_CASES)
def test_a_bad_world_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, case, command):
    build, message = WORLD_CASES[case]
    root = build(tmp_path / "w")
    code, err = cli(monkeypatch, capsys, command, str(root))
    assert (code, err.count("\n")) == (2, 1), err
    assert err.startswith("error: ")
    assert message in err


@pytest.mark.parametrize("case", TASK_CASES)
def test_a_bad_task_stops_a_run_in_one_line(tmp_path, monkeypatch, capsys, case):
    build, message = TASK_CASES[case]
    root = build(tmp_path / "w")
    code, err = cli(monkeypatch, capsys, "run", str(root))
    assert (code, err.count("\n")) == (2, 1), err
    assert message in err


@pytest.mark.parametrize("case", TASK_CASES)
def test_validate_withdraws_a_bad_task_with_its_reason(tmp_path, case):
    from assay.trust.validate import validate_world

    build, message = TASK_CASES[case]
    report = validate_world(build(tmp_path / "w"))
    failed = [task for task in report.tasks if not task.passed]
    assert len(failed) == 1
    assert message.split(": ", 1)[1] in " ".join(failed[0].proofs["static"].reasons)


@pytest.mark.parametrize("case", UNGRADABLE)
def test_assay_serve_refuses_a_task_that_cannot_be_graded(tmp_path, monkeypatch, capsys, case):
    build, message = TASK_CASES[case]
    root = build(tmp_path / "w")
    code, err = cli(monkeypatch, capsys, "serve", "--worlds", str(root), "--port", "0")
    assert (code, err.count("\n")) == (2, 1), err
    assert message in err


def test_a_file_outside_the_world_is_never_imported(tmp_path):
    marker = tmp_path / "ran"
    (tmp_path / "evil_tools.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    root = replaced('tools = ["tools.py"]', 'tools = ["../evil_tools.py"]')(tmp_path / "w")
    with pytest.raises(SpecError):
        open_benchmark(root)
    assert not marker.exists()


def test_a_world_with_an_empty_tasks_directory_is_refused(tmp_path, monkeypatch, capsys):
    root = write_world(tmp_path / "w", tasks={})
    (root / "tasks" / "notes.md").write_text("not a task")
    code, err = cli(monkeypatch, capsys, "validate", str(root))
    assert code == 2
    assert "tasks: holds no .toml file; a world needs at least one tasks/<id>.toml" in err


def test_a_byte_order_mark_is_accepted_everywhere(tmp_path, reset):
    bom = b"\xef\xbb\xbf"
    root = with_data("numbers.csv", bom + b"name,value\nsix,6\n")(tmp_path / "w")
    for name in ("world.toml", "tasks/basic.toml", "schema.sql", "seed.sql"):
        (root / name).write_bytes(bom + (root / name).read_bytes())
    benchmark = open_benchmark(root)
    assert benchmark.world.tasks["basic"].title == "Add a note"
    live = reset(benchmark.world)
    assert live.db.value("SELECT value FROM numbers WHERE name = 'six'") == "6"
