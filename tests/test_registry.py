"""Registry[T]: built-ins by value or by reference (imported on first use), users' kinds by
`module:attribute` and by entry points, and every bad reference refused in one line naming it."""

from __future__ import annotations

import subprocess
import sys

import pytest
from worldkit import SHOP

from assay.registry import KindError, Registry, import_reference, is_reference


def numbers(group: str | None = None) -> Registry[int]:
    return Registry(
        "number kind", group=group, accepts=lambda value: isinstance(value, int), expected="an int"
    )


def entry_points_package(root, group: str, points: dict[str, str], name: str = "plug") -> None:
    """An installed distribution, as importlib.metadata finds it on the path: its dist-info."""
    info = root / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    lines = [f"[{group}]", *(f"{key} = {value}" for key, value in points.items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")


def test_a_built_in_declared_by_reference_is_imported_only_when_asked_for():
    code = (
        "import sys\n"
        "from assay.registry import Registry\n"
        "kinds = Registry('kind')\n"
        "kinds.declare('json', 'json.decoder:JSONDecoder')\n"
        "print('json.decoder' in sys.modules, end=' ')\n"
        "print(kinds.get('json').__name__, 'json.decoder' in sys.modules)\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert shown.stdout == "False JSONDecoder True\n", shown.stderr


def test_built_ins_keep_their_order_and_a_second_declaration_is_refused():
    kinds = numbers()
    kinds.declare("one", 1)
    kinds.declare("two", 2)
    assert kinds.builtins == ["one", "two"]
    assert kinds.get("two") == 2
    with pytest.raises(KindError, match=r"^number kind 'one' is declared twice$"):
        kinds.declare("one", 11)


def test_an_unknown_name_lists_the_known_ones():
    kinds = numbers()
    kinds.declare("one", 1)
    assert kinds.find("three") is None
    with pytest.raises(KindError, match=r"^unknown number kind 'three' \(known: one\)$"):
        kinds.get("three")


@pytest.mark.parametrize(
    ("reference", "problem"),
    [
        ("nowhere_at_all:X", r"nowhere_at_all:X: cannot import nowhere_at_all: No module named"),
        ("json:NoSuchThing", r"json:NoSuchThing: json has no attribute 'NoSuchThing'"),
        ("json:JSONDecoder", r"json:JSONDecoder is not an int"),
        ("json", r"'json' is not module:attribute"),
    ],
)
def test_a_bad_reference_is_one_line_naming_it(reference, problem):
    with pytest.raises(KindError, match=rf"^{problem}") as refused:
        numbers().load(reference)
    assert "\n" not in str(refused.value)


def test_references_read_as_module_colon_attribute():
    assert is_reference("pkg.mod:Class") and is_reference("tools.py:Class")
    assert not is_reference("sql") and not is_reference("model:") and not is_reference(":X")
    assert import_reference("math:pi") == pytest.approx(3.14159, abs=1e-5)


def test_a_users_kind_cannot_take_a_built_in_name_or_another_kinds():
    kinds = numbers()
    kinds.declare("one", 1)
    with pytest.raises(KindError, match=r"^pkg:ONE: number kind 'one' is already defined$"):
        kinds.register("one", 1, "pkg:ONE")
    assert kinds.register("seven", 7, "pkg:SEVEN") == 7
    assert kinds.register("seven", 7, "pkg:SEVEN") == 7  # the same kind again is no clash
    with pytest.raises(KindError, match=r"^other:SEVEN: number kind 'seven' is already defined$"):
        kinds.register("seven", 8, "other:SEVEN")
    assert kinds.get("seven") == 7


def test_entry_points_are_found_by_name_and_loaded_on_first_use(tmp_path, monkeypatch):
    entry_points_package(tmp_path, "test.numbers", {"pi": "math:pi", "tau": "math:tau"})
    monkeypatch.syspath_prepend(str(tmp_path))
    kinds: Registry[float] = Registry("number kind", group="test.numbers")
    kinds.declare("one", 1.0)
    assert kinds.known() == ["one", "pi", "tau"]
    assert kinds.get("tau") == pytest.approx(6.28318, abs=1e-5)


def test_an_entry_point_that_is_not_of_the_family_names_itself(tmp_path, monkeypatch):
    entry_points_package(tmp_path, "test.numbers", {"pi": "math:pi"})
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(KindError, match=r"^entry point pi \(math:pi\) is not an int$"):
        numbers("test.numbers").get("pi")


def test_an_entry_point_taking_a_built_in_name_is_refused(tmp_path, monkeypatch):
    entry_points_package(tmp_path, "test.numbers", {"one": "math:pi"})
    monkeypatch.syspath_prepend(str(tmp_path))
    kinds = numbers("test.numbers")
    kinds.declare("one", 1)
    with pytest.raises(
        KindError,
        match=r"^entry point one \(math:pi\) in test.numbers: 'one' is a built-in number kind$",
    ):
        kinds.find("two")


def test_two_packages_declaring_one_name_are_refused(tmp_path, monkeypatch):
    entry_points_package(tmp_path, "test.numbers", {"e": "math:e"}, name="first")
    entry_points_package(tmp_path, "test.numbers", {"e": "math:pi"}, name="second")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(KindError, match=r"^entry point e \(math:\w+\) in test.numbers: 'e' is "):
        numbers("test.numbers").get("e")


def test_a_registry_without_a_group_reads_no_entry_points():
    code = (
        "import sys\n"
        "from assay.registry import Registry\n"
        "kinds = Registry('kind')\n"
        "print(kinds.find('anything'), 'importlib.metadata' in sys.modules)\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert shown.stdout == "None False\n", shown.stderr


def test_a_run_of_built_in_kinds_never_reads_entry_points():
    """Reading them costs tens of milliseconds at every start: only a name not built in does."""
    code = (
        "import importlib.metadata\n"
        "read = importlib.metadata.entry_points\n"
        "def refused(**kwargs):\n"
        "    if kwargs.get('group', '').startswith('assay.'):\n"
        "        raise SystemExit(f'entry points read: {kwargs}')\n"
        "    return read(**kwargs)\n"
        "importlib.metadata.entry_points = refused\n"
        "from assay.runs.benchmark import open_benchmark\n"
        "from assay.runs.run import prepare, run_benchmark\n"
        f"benchmark = open_benchmark({str(SHOP)!r})\n"
        "planned = prepare(benchmark, 'reference')\n"
        "results = run_benchmark(benchmark, 'reference', planned)\n"
        "print(len(results.task_runs), 'task runs')\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert shown.returncode == 0 and shown.stdout.endswith(" task runs\n"), shown.stderr
