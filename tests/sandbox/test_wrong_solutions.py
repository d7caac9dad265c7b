"""Wrong solutions of container-format tasks: `solution/wrong/<name>/solve.sh`, run by
`assay validate`, each required not to be verified."""

from __future__ import annotations

import os
from pathlib import Path

from sandboxkit import make_task

from assay.trust.validate import validate_world

TEST = (
    'if [ "$(cat /app/answer.txt 2>/dev/null)" = 42 ]; then echo 1; else echo 0; fi'
    " > /logs/verifier/reward.txt\n"
)
RIGHT = "mkdir -p /app && echo 42 > /app/answer.txt\n"


def with_wrong(task: Path, name: str, body: str) -> None:
    script = task / "solution" / "wrong" / name / "solve.sh"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/bash\n" + body)
    os.chmod(script, 0o755)


def test_a_wrong_solution_that_fails_proves_careless_work_is_caught(tmp_path: Path):
    task = make_task(tmp_path, "answer", test_sh=TEST, solve_sh=RIGHT)
    with_wrong(task, "off-by-one", "mkdir -p /app && echo 41 > /app/answer.txt\n")
    (validation,) = validate_world(task).tasks
    wrong = validation.proofs["wrong"]
    assert wrong.status == "passed", wrong.reasons
    assert wrong.warnings == []
    assert validation.passed


def test_a_wrong_solution_that_is_verified_fails_validation(tmp_path: Path):
    task = make_task(tmp_path, "answer", test_sh=TEST, solve_sh=RIGHT)
    with_wrong(task, "lucky", RIGHT)
    (validation,) = validate_world(task).tasks
    wrong = validation.proofs["wrong"]
    assert wrong.status == "failed"
    assert wrong.reasons == ["wrong solution 'lucky' is verified"]
    assert not validation.passed


def test_the_reference_does_not_carry_the_wrong_solutions(tmp_path: Path):
    # the reference fails if /solution holds a wrong/ folder: it never sees the wrong solutions
    task = make_task(
        tmp_path, "apart", test_sh=TEST, solve_sh=f"test ! -e /solution/wrong && {RIGHT}"
    )
    with_wrong(task, "empty", ":\n")
    (validation,) = validate_world(task).tasks
    assert validation.proofs["reference"].status == "passed", validation.proofs["reference"].reasons
    assert validation.proofs["wrong"].status == "passed"
