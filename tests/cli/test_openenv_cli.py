"""`assay openenv` refuses bad arguments with one line and exit code 2, before serving anything."""

from __future__ import annotations

import pytest
from worldkit import SHOP

CASES = {
    "no world there": (["nowhere"], "error: nowhere: not a directory"),
    "unknown task": (
        [str(SHOP), "--task", "nope"],
        "error: --task: unknown task 'nope' in world shop (tasks: address-correction,",
    ),
    "unknown split": ([str(SHOP), "--split", "test"], "error: --split: unknown split 'test'"),
    "holdout without its split": (
        [str(SHOP), "--task", "damaged-order-refund"],
        "error: --task: damaged-order-refund is a holdout task",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_arguments_are_one_line_and_exit_2(assay, case):
    arguments, expected = CASES[case]
    ran = assay("openenv", *arguments)
    assert ran.code == 2
    assert ran.err.startswith(expected)
    assert len(ran.err.strip().splitlines()) == 1
    assert "Traceback" not in ran.err
