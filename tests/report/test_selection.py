"""The task-run filters of a run's page, against results whose checks are known."""

from __future__ import annotations

import pytest
from worldkit import SHOP

from assay.errors import UsageError
from assay.report.selection import task_run_filters
from assay.runs import open_benchmark, prepare, run_benchmark


@pytest.fixture(scope="module")
def result():
    benchmark = open_benchmark(SHOP)
    planned = prepare(benchmark, "reference", ["refund-double-charge"], repeats=1)
    return run_benchmark(benchmark, "reference", planned, repeats=1).task_runs[0]


def broken(result):
    """The result with its rule check failed."""
    checks = [
        check.model_copy(update={"passed": False}) if check.type == "rule" else check
        for check in result.checks
    ]
    return result.model_copy(update={"checks": checks, "outcome": "rule_violated"})


def test_the_rule_filter_keeps_the_task_runs_that_broke_that_rule(result):
    rule = next(check.name for check in result.checks if check.type == "rule")
    for wanted in ("any", rule[:12].upper()):
        filters = task_run_filters(rule=wanted)
        assert filters.keeps(broken(result))
        assert not filters.keeps(result)
    assert not task_run_filters(rule="no such rule").keeps(broken(result))


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ({"outcome": "verified"}, True),
        ({"outcome": "not_scored"}, False),
        ({"split": "train"}, True),
        ({"split": "dev"}, False),
        ({"task": "DOUBLE"}, True),
        ({"axis": "safety"}, True),
        ({"axis": "speed"}, False),
        ({"text": "exactly one card refund"}, True),  # a check's name
        ({"text": "nowhere in it"}, False),
    ],
)
def test_each_filter_keeps_what_it_names(result, given, kept):
    assert task_run_filters(**given).keeps(result) is kept


def test_an_unknown_outcome_is_refused_with_the_choices():
    with pytest.raises(UsageError, match="outcome: 'won' is not one of verified, not_achieved"):
        task_run_filters(outcome="won")
