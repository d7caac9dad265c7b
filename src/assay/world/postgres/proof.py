"""Before a SQLite-dialect world runs on PostgreSQL: every statement it holds — checks, seed
files, and the SQL text in its tools — is translated once, and what has no translation is refused
at load with the file and the statement, not found mid-run."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import sqlglot

from assay.errors import SpecError
from assay.formats.files import read_text, shown
from assay.formats.load import queries
from assay.formats.sqltext import quiet_parser
from assay.formats.task import TaskSpec
from assay.formats.world import WorldSpec
from assay.world.postgres.schema import primary_keys
from assay.world.postgres.translate import TranslationError, Translator

SQL_START = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|REPLACE)\s", re.IGNORECASE)


def translator_for(root: Path, spec: WorldSpec) -> Translator:
    return Translator({}, primary_keys(root, spec))


def prove_task(translator: Translator, task: TaskSpec, file: str) -> None:
    """SpecError naming the check field whose SQL has no PostgreSQL translation."""
    for index, check in enumerate(task.checks):
        for field, sql, _ in queries(check):
            try:
                translator.translate(sql)
            except TranslationError as error:
                raise SpecError(
                    file, f"checks[{index}].{field}", f"cannot run on PostgreSQL: {error}"
                ) from None


def prove_world(translator: Translator, root: Path, spec: WorldSpec) -> None:
    """SpecError naming the seed file or tool file and the statement that has no translation."""
    for name in spec.database.seed:
        path = root / name
        if path.suffix.lower() == ".sql" and path.is_file():
            for number, statement in enumerate(_statements(read_text(path)), 1):
                _prove(translator, statement, shown(path), f"statement {number}")
    for name in spec.tools:
        path = root / name
        if path.is_file():
            for line, text in sql_in_python(read_text(path)):
                _prove(translator, text, shown(path), f"line {line}")


def sql_in_python(source: str) -> Iterator[tuple[int, str]]:
    """Each string constant of a Python file that reads as a whole SQL statement (not a piece of
    an f-string or a `str.format` template), with its line."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return  # loading the tools reports it
    pieces = {  # the literal parts of f-strings are not statements of their own
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part in node.values
    }
    for node in ast.walk(tree):
        text = node.value if isinstance(node, ast.Constant) and id(node) not in pieces else None
        if isinstance(text, str) and SQL_START.match(text) and "{" not in text:
            yield node.lineno, text


def _statements(text: str) -> list[str]:
    try:
        with quiet_parser():
            trees = sqlglot.parse(text, read="sqlite")
        return [tree.sql(dialect="sqlite") for tree in trees if tree]
    except sqlglot.errors.SqlglotError:
        return [text]  # one statement that does not parse: the proof names it


def _prove(translator: Translator, sql: str, file: str, where: str) -> None:
    try:
        translator.translate(sql)
    except TranslationError as error:
        first = " ".join(sql.split())[:80]
        raise SpecError(file, where, f"cannot run on PostgreSQL: {error} (in: {first})") from None
