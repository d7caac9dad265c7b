"""`assay validate` on container-format tasks: two runs of the reference compare what grades them
(rewards, statuses, the final-state digest), never the test's output, and a real difference is
shown where it is."""

from __future__ import annotations

from pathlib import Path

from sandboxkit import make_task

from assay.trust.validate import validate_world

EXAMPLES = Path(__file__).parents[2] / "examples" / "tasks"
# A verifier that prints what pytest prints: a run time that is never twice the same.
TIMED_TEST = """\
if [ -f /app/answer.txt ]; then result=passed; reward=1; else result=failed; reward=0; fi
echo "============================= test session starts =============================="
echo "tests/test_outputs.py::test_answer ${result^^}"
echo "============================== 1 $result in 0.$(date +%N)s =============================="
echo $reward > /logs/verifier/reward.txt
"""
# A solution that leaves what differs between two runs and grades nothing: logs stamped with the
# time, a pip-like download cache, bytecode whose header holds its source's modification time.
CHURNING_SOLVE = """\
set -e
mkdir -p /app/pkg /var/log/tool /root/.cache/pip/http
echo 42 > /app/answer.txt
echo "installed at $(date +%s%N)" >> /var/log/tool/install.log
echo "$(date +%s%N)" > /root/.cache/pip/http/entry
echo 'ANSWER = 42' > /app/pkg/mod.py
touch -d "@$(( $(date +%s%N) % 1000000000 ))" /app/pkg/mod.py
python3 -m py_compile /app/pkg/mod.py
"""


def proofs(task: Path) -> dict[str, object]:
    (validation,) = validate_world(task).tasks
    return {name: proof for name, proof in validation.proofs.items()}


def test_a_task_whose_verifier_prints_its_run_time_validates(tmp_path: Path):
    task = make_task(tmp_path, "timed", test_sh=TIMED_TEST, solve_sh=CHURNING_SOLVE)
    (validation,) = validate_world(task).tasks
    failed = {n: p.reasons for n, p in validation.proofs.items() if p.status == "failed"}
    assert failed == {} and validation.passed


def test_the_pytest_graded_example_validates():
    (validation,) = validate_world(EXAMPLES / "hello-world").tasks
    failed = {n: p.reasons for n, p in validation.proofs.items() if p.status == "failed"}
    assert failed == {} and validation.passed


def test_a_final_state_that_differs_fails_replay(tmp_path: Path):
    solve = "mkdir -p /app && date +%s%N > /app/answer.txt\n"
    task = make_task(tmp_path, "drifting", test_sh=TIMED_TEST, solve_sh=solve)
    replay = proofs(task)["replay"]
    assert replay.status == "failed"
    (reason,) = replay.reasons
    assert reason.startswith('two runs of the reference differ: final_state_hash: "')


def test_a_reward_that_differs_is_shown_with_both_values(tmp_path: Path):
    test_sh = (
        "echo 'lots of output that is the same each time' \n"
        'printf \'{"reward": 1, "speed": %s}\' "$(date +%N | sed s/^0*//)" '
        "> /logs/verifier/reward.json\n"
    )
    task = make_task(tmp_path, "noisy-speed", test_sh=test_sh, solve_sh=":\n")
    replay = proofs(task)["replay"]
    assert replay.status == "failed"
    (reason,) = [r for r in replay.reasons if "speed" in r]
    field, _, values = reason.removeprefix("two runs of the reference differ: ").rpartition(": ")
    assert field == 'check "the test script\'s reward": evidence.rewards.speed'
    before, after = values.split(" → ")
    assert float(before) != float(after)
