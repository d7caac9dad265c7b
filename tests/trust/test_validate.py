"""Each proof catches its kind of unfair task, with the right reason; fair tasks pass."""

from __future__ import annotations

from pathlib import Path

import pytest
from trustkit import write_task
from worldkit import SHOP, copy_shop

from assay.trust.validate import validate_world

UNFAIR_TOOLS = '''
"""Tools that make a task unfair: their effect differs from one run to the next."""

import random
import time

from assay import tool


@tool(writes=True)
def log_ticket(world, customer_id: str) -> dict:
    """Open a support ticket, recorded as a zero-value note in store credits."""
    token = f"ticket {random.random():.12f} {time.time()}"
    world.db.execute(
        "INSERT INTO store_credits (customer_id, amount_cents, reason, created_at) VALUES (?, 0, ?, ?)",
        customer_id,
        token,
        world.now().isoformat(),
    )
    return {"ticket": token}
'''

UNFAIR_VERIFIERS = '''
"""A verifier that breaks when it runs."""

from assay import verifier


@verifier("VER-BROKEN")
def broken(final, initial, ctx):
    raise KeyError("customer")
'''

TASKS = {
    "passes-idle": """
        title = "Passes with nothing done"
        role = "support"
        [customer]
        request = "Please leave my orders as they are."
        [[checks]]
        name = "Ten orders exist"
        sql = "SELECT count(*) FROM orders"
        expect = 10
        [solution]
        steps = [ { finish = "Nothing to do." } ]
    """,
    "mostly-idle": """
        title = "Most goals pass with nothing done"
        role = "support"
        [customer]
        request = "Send B-2003 to 18 Mill Lane, York."
        [[checks]]
        name = "B-2003 goes to the new address"
        sql = "SELECT address FROM orders WHERE id = 'B-2003'"
        expect = "18 Mill Lane, York"
        [[checks]]
        name = "B-2003 is still placed"
        sql = "SELECT status FROM orders WHERE id = 'B-2003'"
        expect = "placed"
        [[checks]]
        name = "No refund was made"
        sql = "SELECT count(*) FROM refunds"
        expect = 1
        [solution]
        steps = [ { call = "update_address", args = { order_id = "B-2003", address = "18 Mill Lane, York" } } ]
    """,
    "wrong-passes": """
        title = "A wrong solution that passes"
        role = "support"
        [customer]
        request = "Send B-2003 to 18 Mill Lane, York."
        [[checks]]
        name = "B-2003 goes to the new address"
        sql = "SELECT address FROM orders WHERE id = 'B-2003'"
        expect = "18 Mill Lane, York"
        [solution]
        steps = [ { call = "update_address", args = { order_id = "B-2003", address = "18 Mill Lane, York" } } ]
        [[wrong]]
        name = "changes every open order"
        steps = [
          { call = "update_address", args = { order_id = "B-2003", address = "18 Mill Lane, York" } },
          { call = "update_address", args = { order_id = "B-2001", address = "18 Mill Lane, York" } },
        ]
        [[wrong]]
        name = "changes nothing"
        steps = [ { finish = "Done." } ]
    """,
    "reference-fails": """
        title = "A reference solution that fails"
        role = "support"
        [customer]
        request = "Send B-2003 to 18 Mill Lane, York."
        [[checks]]
        name = "B-2003 goes to the new address"
        sql = "SELECT address FROM orders WHERE id = 'B-2003'"
        expect = "18 Mill Lane, York"
        [solution]
        steps = [ { call = "update_address", args = { order_id = "B-2003", address = "81 Mill Lane, York" } } ]
    """,
    "no-solution": """
        title = "No reference solution"
        role = "support"
        [customer]
        request = "Send B-2003 to 18 Mill Lane, York."
        [[checks]]
        name = "B-2003 goes to the new address"
        sql = "SELECT address FROM orders WHERE id = 'B-2003'"
        expect = "18 Mill Lane, York"
    """,
    "random-tool": """
        title = "A tool whose effect is random"
        role = "support"
        [customer]
        request = "Open a ticket for customer C-2."
        [[checks]]
        name = "One ticket for C-2"
        sql = "SELECT count(*) FROM store_credits WHERE customer_id = 'C-2' AND reason LIKE 'ticket %'"
        expect = 1
        [solution]
        steps = [ { call = "log_ticket", args = { customer_id = "C-2" } } ]
    """,
    "unknown-column": """
        title = "A check names a column that does not exist"
        role = "support"
        [customer]
        request = "Refund A-1042 to my card."
        [[checks]]
        name = "One card refund"
        sql = "SELECT count(*) FROM refunds r WHERE r.order_id = 'A-1042' AND r.methd = 'card'"
        expect = 1
        [solution]
        steps = [ { call = "refund_payment", args = { order_id = "A-1042", amount_cents = 4200 } } ]
    """,
    "unknown-table": """
        title = "A derived expectation reads a table that does not exist"
        role = "support"
        [customer]
        request = "Refund A-1042 to my card."
        [[checks]]
        name = "The refund is the charge"
        sql = "SELECT sum(amount_cents) FROM refunds WHERE order_id = 'A-1042'"
        expect = { sql = "SELECT amount_cents FROM payments WHERE id = 'ch_1042b'" }
        [solution]
        steps = [ { call = "refund_payment", args = { order_id = "A-1042", amount_cents = 4200 } } ]
    """,
    "optional-only": """
        title = "Graded on optional checks alone"
        role = "support"
        [customer]
        request = "Tell me about my refund."
        [[checks]]
        name = "The customer was told"
        type = "optional"
        assert = "answer"
        contains = ["refund"]
        [solution]
        steps = [ { finish = "Your refund is on its way." } ]
    """,
    "unknown-verifier": """
        title = "A python check names a verifier nobody registered"
        role = "support"
        [customer]
        request = "Give me a goodwill credit."
        [[checks]]
        name = "Credited"
        assert = "python"
        verifier = "VER-404"
        [solution]
        steps = [ { finish = "Done." } ]
    """,
    "does-not-load": """
        title = "A typo in a key"
        role = "support"
        [customer]
        request = "Send B-2003 to 18 Mill Lane, York."
        [[checks]]
        name = "B-2003 goes to the new address"
        sql = "SELECT address FROM orders WHERE id = 'B-2003'"
        expct = "18 Mill Lane, York"
    """,
    "unscorable": """
        title = "A verifier that raises"
        role = "support"
        [customer]
        request = "Send B-2003 to 18 Mill Lane, York."
        [[checks]]
        name = "Verified in code"
        assert = "python"
        verifier = "VER-BROKEN"
        [solution]
        steps = [ { finish = "Done." } ]
    """,
}


@pytest.fixture(scope="module")
def unfair_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    world = copy_shop(tmp_path_factory.mktemp("unfair") / "shop")
    (world / "unfair_tools.py").write_text(UNFAIR_TOOLS, encoding="utf-8")
    (world / "unfair_verifiers.py").write_text(UNFAIR_VERIFIERS, encoding="utf-8")
    toml = (world / "world.toml").read_text(encoding="utf-8")
    toml = toml.replace('tools = ["tools.py"]', 'tools = ["tools.py", "unfair_tools.py"]')
    toml = toml.replace(
        'verifiers = ["verifiers.py"]', 'verifiers = ["verifiers.py", "unfair_verifiers.py"]'
    )
    toml = toml.replace(
        '"send_email", "retry_operation",', '"send_email", "retry_operation", "log_ticket",'
    )
    (world / "world.toml").write_text(toml, encoding="utf-8")
    for task_id, text in TASKS.items():
        write_task(world, task_id, text)
    return world


@pytest.fixture(scope="module")
def report(unfair_world: Path):
    validation = validate_world(unfair_world, [*TASKS, "refund-double-charge"])
    return {task.task_id: task for task in validation.tasks}


def reasons(task, proof: str) -> list[str]:
    return task.proofs[proof].reasons


def test_the_example_world_passes_every_proof():
    validation = validate_world(SHOP)
    assert validation.passed
    assert len(validation.tasks) == len(list((SHOP / "tasks").glob("*.toml")))
    for task in validation.tasks:
        assert task.passed, (task.task_id, task.failures())
        assert task.proofs["live"].status == "skipped"


def test_a_fair_task_beside_unfair_ones_still_passes(report):
    task = report["refund-double-charge"]
    assert task.passed
    assert [task.proofs[name].status for name in task.proofs] == [
        "passed",
        "passed",
        "passed",
        "passed",
        "passed",
        "skipped",
    ]


def test_a_task_that_passes_by_itself_fails_noop(report):
    task = report["passes-idle"]
    assert not task.passed
    assert reasons(task, "noop") == ["verified with nothing done: the task passes by itself"]
    assert task.idle_goals == ["Ten orders exist"]
    assert task.proofs["reference"].status == "passed"


def test_most_goals_passing_idle_warns_but_does_not_fail(report):
    task = report["mostly-idle"]
    noop = task.proofs["noop"]
    assert noop.status == "passed"
    assert task.idle_goals == ["B-2003 is still placed", "No refund was made"]
    assert noop.warnings == [
        "most goal checks pass with nothing done (2 of 3); "
        "one failing goal is all that stands between doing nothing and a pass"
    ]
    assert noop.notes == [
        "2 of 3 goal checks pass with nothing done: 'B-2003 is still placed', 'No refund was made'"
    ]
    assert task.passed


def test_a_wrong_solution_that_passes_fails_its_proof(report):
    task = report["wrong-passes"]
    assert not task.passed
    assert reasons(task, "wrong") == ["wrong solution 'changes every open order' is verified"]
    assert task.proofs["wrong"].notes == [
        "'changes every open order': verified",
        "'changes nothing': not achieved",
    ]


def test_a_failing_reference_fails_with_the_check_that_failed(report):
    task = report["reference-fails"]
    assert not task.passed
    assert reasons(task, "reference") == [
        "the reference solution is not achieved",
        "✗ B-2003 goes to the new address: the query returned '81 Mill Lane, York'; "
        "wanted = '18 Mill Lane, York'",
    ]
    assert task.proofs["replay"].status == "passed"


def test_a_task_without_a_solution_fails_reference_and_skips_replay(report):
    task = report["no-solution"]
    assert reasons(task, "reference") == ["the task has no [solution]"]
    assert task.proofs["replay"].status == "skipped"
    assert not task.passed


def test_a_random_tool_fails_replay(report):
    task = report["random-tool"]
    assert task.proofs["reference"].status == "passed"
    assert not task.passed
    found = reasons(task, "replay")
    assert found and all(r.startswith("two runs of the reference differ: ") for r in found)
    assert any("final_state_hash" in r for r in found)


def test_an_unknown_column_fails_static_and_nothing_runs(report):
    task = report["unknown-column"]
    assert reasons(task, "static") == [
        "checks[0].sql: unknown column refunds.methd "
        "(refunds has: amount_cents, charge_id, created_at, id, method, order_id, receipt)"
    ]
    for name in ("noop", "reference", "wrong", "replay", "live"):
        assert task.proofs[name].status == "skipped"
        assert task.proofs[name].reasons == ["not run: the static proof failed"]


def test_an_unknown_table_in_a_derived_expectation_fails_static(report):
    (reason,) = reasons(report["unknown-table"], "static")
    assert reason.startswith("checks[0].expect.sql: unknown table 'payments' (tables: charges,")
    assert "sandbox_" not in reason


def test_a_task_graded_on_optional_checks_alone_fails_static(report):
    assert reasons(report["optional-only"], "static") == [
        "checks: no goal check (only optional); a task needs at least one"
    ]


def test_an_unknown_verifier_fails_static(report):
    (reason,) = reasons(report["unknown-verifier"], "static")
    assert reason.startswith("checks[0].verifier: unknown verifier 'VER-404' (known: VER-001,")


def test_a_task_that_does_not_load_fails_static_alone(report):
    task = report["does-not-load"]
    assert reasons(task, "static") == ["checks[0].expct: unknown key"]
    assert task.split is None
    assert task.file.endswith("tasks/does-not-load.toml")
    assert len(task.task_hash) == 64


def test_a_task_that_cannot_be_scored_fails_reference(report):
    (reason,) = reasons(report["unscorable"], "reference")
    assert reason == (
        "the reference solution could not be scored "
        "(scoring failed: verifier VER-BROKEN raised KeyError: 'customer')"
    )
    assert reasons(report["unscorable"], "noop")[0].startswith("with nothing done, could not be")


def test_only_the_named_tasks_are_validated(unfair_world: Path):
    validation = validate_world(unfair_world, ["update-address"])
    assert [task.task_id for task in validation.tasks] == ["update-address"]
    assert validation.passed


def test_an_unknown_task_is_bad_input(unfair_world: Path):
    from assay.errors import UsageError

    with pytest.raises(UsageError, match=r"^--task: unknown task 'nope' in world shop \(tasks: "):
        validate_world(unfair_world, ["nope"])


def test_a_live_agent_is_reported_and_never_fails_a_task(unfair_world: Path):
    validation = validate_world(unfair_world, ["update-address", "no-solution"], live="noop")
    update = validation.tasks[0]
    assert update.task_id == "update-address"
    assert update.passed
    assert update.proofs["live"].status == "failed"
    assert update.proofs["live"].reasons[:2] == [
        "withdrawn candidate: noop failed",
        "noop is not achieved",
    ]
    assert update.withdrawn_candidate is True
    assert update.proofs["live"].notes == ["noop: not achieved, score 0.00, 1 turns"]


def test_a_live_agent_that_cannot_attempt_a_task_is_skipped(unfair_world: Path):
    validation = validate_world(unfair_world, ["no-solution"], live="reference")
    live = validation.tasks[0].proofs["live"]
    assert live.status == "skipped"
    assert live.reasons == ["task no-solution has no [solution]"]


def test_an_unknown_live_agent_is_bad_input(unfair_world: Path):
    from assay.errors import UsageError

    with pytest.raises(UsageError, match=r"^--agent: unknown agent 'robot'"):
        validate_world(unfair_world, ["update-address"], live="robot")
