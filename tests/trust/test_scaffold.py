"""Scaffolding writes files that fail until finished, registers them, and keeps comments."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from assay.errors import UsageError
from assay.formats.load import read_task
from assay.runs import open_benchmark
from assay.trust.scaffold import add_task, add_verifier
from assay.trust.validate import attempt, validate_world

TASK = "refund-double-charge"


@pytest.fixture
def added(shop_copy: Path):
    task = shop_copy / "tasks" / f"{TASK}.toml"
    task.write_text("# Written by hand; keep this line.\n" + task.read_text())
    done = add_verifier(shop_copy, "VER-007", TASK, "Invoice escalated")
    return shop_copy, done


def test_the_new_verifier_is_written_and_registered(added):
    world, done = added
    assert done.created == world / "verifiers" / "ver_007.py"
    assert done.registered == [
        f"verifiers/ver_007.py in {_shown(world / 'world.toml')} (verifiers)",
        f"VER-007 in {_shown(world / 'tasks' / f'{TASK}.toml')} (checks)",
    ]
    assert done.next_step == f"replace the failing TODO check in {_shown(done.created)}."
    listed = tomllib.loads((world / "world.toml").read_text())["verifiers"]
    assert listed == ["verifiers.py", "verifiers/ver_007.py"]
    checks = tomllib.loads((world / "tasks" / f"{TASK}.toml").read_text())["checks"]
    assert checks[-1] == {"name": "Invoice escalated", "assert": "python", "verifier": "VER-007"}


def test_comments_and_order_survive(added):
    world, _ = added
    toml = (world / "world.toml").read_text()
    assert toml.startswith("# An example world: a small online shop")
    assert 'clock = "2026-03-02T09:00:00Z"       # the world\'s time starts here' in toml
    task = (world / "tasks" / f"{TASK}.toml").read_text()
    assert task.startswith("# Written by hand; keep this line.\n")
    assert 'verifier = "VER-007"\n\n[solution]' in task


def test_the_new_check_fails_on_purpose(added):
    world, _ = added
    benchmark = open_benchmark(world)
    result = attempt(benchmark, benchmark.tasks[TASK], "reference")
    assert result.outcome == "not_achieved"
    check = result.checks[-1]
    assert check.passed is False
    assert check.evidence["checks"] == [
        {
            "label": "TODO: define success condition",
            "passed": False,
            "detail": 'Verifier "VER-007" is not implemented yet.',
            "required": True,
        }
    ]
    (task,) = validate_world(world, [TASK]).tasks
    assert task.proofs["reference"].status == "failed"


def test_an_existing_verifier_id_is_refused(added):
    world, _ = added
    with pytest.raises(
        UsageError, match=r"^VERIFIER_ID: verifier VER-001 already exists in verifiers\.py$"
    ):
        add_verifier(world, "VER-001", TASK, "Again")
    with pytest.raises(
        UsageError, match=r"^VERIFIER_ID: verifier VER-007 already exists in verifiers/ver_007\.py$"
    ):
        add_verifier(world, "VER-007", TASK, "Again")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("VER 8", TASK, "x"), r"^VERIFIER_ID: 'VER 8' is not an id"),
        (("VER-008", "no-such-task", "x"), r"^--task: unknown task 'no-such-task' \(tasks: "),
        (("VER-008", TASK, "  "), r"^--name: must not be empty$"),
    ],
)
def test_bad_arguments_are_refused_before_anything_is_written(shop_copy: Path, arguments, message):
    before = (shop_copy / "world.toml").read_text()
    with pytest.raises(UsageError, match=message):
        add_verifier(shop_copy, *arguments)
    assert (shop_copy / "world.toml").read_text() == before
    assert not (shop_copy / "verifiers").exists()


def test_a_world_without_verifiers_gets_the_key(shop_copy: Path):
    toml = shop_copy / "world.toml"
    toml.write_text(toml.read_text().replace('verifiers = ["verifiers.py"]\n', ""))
    task = shop_copy / "tasks" / "goodwill-credit.toml"
    task.unlink()  # it names VER-001, which is no longer registered
    add_verifier(shop_copy, "1st", "update-address", "Address changed")
    assert tomllib.loads(toml.read_text())["verifiers"] == ["verifiers/verifier_1st.py"]
    assert open_benchmark(shop_copy).verifiers.keys() == {"1st"}


def test_a_new_task_loads_and_fails_validation_until_filled_in(shop_copy: Path):
    done = add_task(shop_copy, "invoice-escalation", title="Escalate an unpaid invoice")
    assert done.created == shop_copy / "tasks" / "invoice-escalation.toml"
    task = read_task(done.created)
    assert (task.title, task.split, task.role) == ("Escalate an unpaid invoice", "train", "support")
    text = done.created.read_text()
    for section in ("[customer]", "# [[faults]]", "[[checks]]", "[solution]", "# [[wrong]]"):
        assert section in text
    (validation,) = validate_world(shop_copy, ["invoice-escalation"]).tasks
    assert validation.proofs["static"].status == "passed"
    assert validation.proofs["reference"].status == "failed"
    assert not validation.passed


def test_a_new_task_takes_its_role_and_split(shop_copy: Path):
    done = add_task(shop_copy, "how-much", role="analyst", split="holdout")
    task = read_task(done.created)
    assert (task.role, task.split, task.title) == ("analyst", "holdout", "TODO: how-much")
    assert '# tool = "find_order"' in done.created.read_text()


@pytest.mark.parametrize(
    ("task_id", "options", "message"),
    [
        ("update-address", {}, r"^TASK_ID: task update-address already exists \("),
        ("../escape", {}, r"^TASK_ID: '\.\./escape' is not an id"),
        (
            "new-task",
            {"role": "boss"},
            r"^--role: unknown role 'boss' \(roles: admin, analyst, support\)$",
        ),
        ("new-task", {"split": "test"}, r"^--split: 'test' is not train, dev or holdout$"),
    ],
)
def test_bad_task_arguments_are_refused(shop_copy: Path, task_id, options, message):
    with pytest.raises(UsageError, match=message):
        add_task(shop_copy, task_id, **options)
    assert not (shop_copy / "tasks" / "new-task.toml").exists()


def _shown(path: Path) -> str:
    from assay.formats.files import shown

    return shown(path)
