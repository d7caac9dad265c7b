"""Check kinds come from one registry: the union of a task's checks, each kind's runner and each
typed kind's proof are read from the model a kind declares, built-in or a user's."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import SpecError
from assay.formats.checks import CHECK_KINDS, PythonCheck
from assay.formats.load import read_task
from assay.formats.task import TaskSpec
from assay.registry import import_reference
from assay.world.loadable import typed_check_problems

USER_KINDS = """
from typing import ClassVar, Literal

from pydantic import Field

from assay import CheckBase, CheckRun


class WordCount(CheckBase):
    kind: Literal["word-count"] = Field(alias="assert")
    runner: ClassVar[str] = "user_check_kinds:run_word_count"
    reads_service: ClassVar[str | None] = "notes"
    words: int = Field(ge=1)


class Sneaky(CheckBase):
    kind: Literal["sql"] = Field(alias="assert")


def run_word_count(check, context):
    passed = len(context.agent_output.split()) == check.words
    return CheckRun.of(check, passed=passed, score=float(passed), details=None, evidence=None)
"""


@pytest.fixture
def user_kinds(tmp_path, monkeypatch):
    (tmp_path / "user_check_kinds.py").write_text(USER_KINDS)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def task_with(tmp_path: Path, check: str) -> TaskSpec:
    (tmp_path / "t.toml").write_text(
        f'title = "t"\nrole = "desk"\n[customer]\nrequest = "r"\n[[checks]]\nname = "c"\n{check}\n'
    )
    return read_task(tmp_path / "t.toml")


@pytest.mark.parametrize("kind", CHECK_KINDS.builtins)
def test_every_built_in_kind_names_a_runner_and_its_proof_that_import(kind):
    model = CHECK_KINDS.get(kind)
    if model is PythonCheck:  # run with the world's registered verifiers, not alone
        assert model.runner == ""
        return
    assert callable(import_reference(model.runner))
    assert (model.reads_service is None) == (model.compiler is None)
    if model.compiler is not None:
        assert callable(import_reference(model.compiler))


def test_a_users_kind_by_module_and_class_is_read_by_its_own_model(user_kinds):
    task = task_with(user_kinds, 'assert = "user_check_kinds:WordCount"\nwords = 3')
    (check,) = task.checks
    assert (type(check).__name__, check.kind, check.words) == ("WordCount", "word-count", 3)
    assert CHECK_KINDS.get("word-count") is type(check)  # once loaded, found by its name too
    with pytest.raises(SpecError, match=r"checks\[0\]\.words: Input should be greater than"):
        task_with(user_kinds, 'assert = "user_check_kinds:WordCount"\nwords = 0')


def test_a_users_kind_reading_a_service_the_world_lacks_is_refused(user_kinds):
    task = task_with(user_kinds, 'assert = "user_check_kinds:WordCount"\nwords = 3')
    assert typed_check_problems(task, {"mail": "email"}) == [
        ("checks[0].assert", "the world has no notes service; name one with service")
    ]
    assert typed_check_problems(task, {"jot": "notes"}) == []


def test_a_users_kind_taking_a_built_in_name_is_refused(user_kinds):
    with pytest.raises(SpecError) as refused:
        task_with(user_kinds, 'assert = "user_check_kinds:Sneaky"\nsql = "SELECT 1"')
    assert str(refused.value).endswith(
        "checks[0].assert: user_check_kinds:Sneaky: check kind 'sql' is already defined"
    )


def test_an_assert_that_is_not_text_is_refused(tmp_path):
    with pytest.raises(SpecError, match=r"checks\[0\]\.assert: assert is text, not int"):
        task_with(tmp_path, "assert = 3")
