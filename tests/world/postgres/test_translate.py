"""SQLite-dialect statements become PostgreSQL text with psycopg placeholders, translated once."""

from __future__ import annotations

import pytest

from assay.world.postgres.translate import TranslationError, Translator


@pytest.fixture
def translator() -> Translator:
    return Translator({"refunds": "id"})


def test_question_marks_bind_in_order(translator: Translator) -> None:
    statement = translator.translate("SELECT * FROM t WHERE a = ? AND b = ?")
    assert statement.text == "SELECT * FROM t WHERE a = %(assay_p0)s AND b = %(assay_p1)s"
    assert statement.bind((1, "x")) == {"assay_p0": 1, "assay_p1": "x"}


def test_named_parameters_bind_by_name_and_may_repeat(translator: Translator) -> None:
    statement = translator.translate("SELECT :a + :a + :b")
    assert statement.text.count("%(a)s") == 2
    assert statement.bind({"a": 1, "b": 2, "unused": 3}) == {"a": 1, "b": 2}


def test_a_question_mark_inside_a_string_is_text(translator: Translator) -> None:
    statement = translator.translate("SELECT '?' || ?")
    assert statement.positional == 1
    assert "'?'" in statement.text


def test_percent_signs_are_escaped_only_when_binding(translator: Translator) -> None:
    bound = translator.translate("SELECT 7 % 2 WHERE 'a' LIKE 'a%' AND ? = 1")
    assert "7 %% 2" in bound.text and "'a%%'" in bound.text
    plain = translator.translate("SELECT a % 2 AS odd, 'x%' AS label FROM t")
    # (newer sqlglot writes `a % NULLIF(2, 0)`: SQLite's x % 0 is NULL, PostgreSQL's an error)
    assert "%%" not in plain.text and "a % " in plain.text and "'x%'" in plain.text
    assert plain.bind(()) is None


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ((1,), "takes 2 parameters, 1 given"),
        ((1, 2, 3), "takes 2 parameters, 3 given"),
    ],
)
def test_a_wrong_number_of_values_is_refused(
    translator: Translator, params: tuple[int, ...], message: str
) -> None:
    with pytest.raises(TranslationError, match=message):
        translator.translate("SELECT ?, ?").bind(params)


def test_a_missing_name_is_refused(translator: Translator) -> None:
    with pytest.raises(TranslationError, match="no value for parameter :order"):
        translator.translate("SELECT :order").bind({"other": 1})


def test_values_for_a_statement_without_parameters_are_refused(translator: Translator) -> None:
    with pytest.raises(TranslationError, match="takes no parameters"):
        translator.translate("SELECT 1").bind((1,))


def test_json_extract_reads_text_columns_too(translator: Translator) -> None:
    text = translator.translate(
        "SELECT json_extract(payload, '$.to') AS t FROM sandbox_requests"
    ).text
    assert text == (
        "SELECT JSON_EXTRACT_PATH_TEXT(CAST(payload AS JSON), 'to') AS t FROM sandbox_requests"
    )


def test_computed_columns_are_named_by_their_text_as_on_sqlite(translator: Translator) -> None:
    text = translator.translate(
        "SELECT DISTINCT id, o.status, count(*), sum(a)  / 100.0, (SELECT 1, 2) AS pair FROM o"
    ).text
    assert text == (
        'SELECT DISTINCT id, o.status, COUNT(*) AS "count(*)", '
        'SUM(a) / NULLIF(100.0, 0) AS "sum(a)  / 100.0", (SELECT 1, 2) AS pair FROM o'
    )
    cte = translator.translate("WITH c AS (SELECT 1 AS a) SELECT a + 1 FROM c").text
    assert cte.endswith('SELECT a + 1 AS "a + 1" FROM c')


def test_like_ignores_case_as_on_sqlite(translator: Translator) -> None:
    assert "ILIKE" in translator.translate("SELECT 1 WHERE 'A' LIKE 'a'").text


def test_instr_becomes_position(translator: Translator) -> None:
    assert "POSITION(" in translator.translate("SELECT instr('abc', 'b')").text


def test_written_tables_are_named(translator: Translator) -> None:
    assert translator.translate("UPDATE Orders SET a = 1").writes == {"orders"}
    assert translator.translate("DELETE FROM refunds").writes == {"refunds"}
    assert translator.translate("WITH x AS (DELETE FROM t RETURNING *) SELECT 1").writes == {"t"}
    assert translator.translate("SELECT * FROM refunds").writes == frozenset()


def test_inserts_into_a_rowid_table_return_the_new_id(translator: Translator) -> None:
    statement = translator.translate("INSERT INTO refunds (a) VALUES (?)")
    assert statement.returning == "id"
    assert statement.text.endswith('RETURNING "id"')
    assert translator.translate("INSERT INTO other (a) VALUES (1)").returning is None


def test_each_text_is_translated_once(translator: Translator) -> None:
    first = translator.translate("SELECT ?")
    assert translator.translate("SELECT ?") is first


def test_text_that_does_not_parse_is_a_translation_error(translator: Translator) -> None:
    with pytest.raises(TranslationError, match="cannot translate"):
        translator.translate("SELECT FROM WHERE (")
