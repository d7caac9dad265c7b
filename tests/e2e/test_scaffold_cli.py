"""`assay verifier add` and `assay task add`, as the seed shows them."""

from __future__ import annotations

from pathlib import Path

from trustkit import assay_here as assay
from worldkit import copy_shop


def test_verifier_add_prints_what_it_did_and_the_next_step(tmp_path: Path):
    copy_shop(tmp_path / "shop")
    done = assay(
        "verifier",
        "add",
        "VER-007",
        "--world",
        "shop",
        "--task",
        "refund-double-charge",
        "--name",
        "Invoice escalated",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "Created shop/verifiers/ver_007.py",
        "Registered verifiers/ver_007.py in shop/world.toml (verifiers)",
        "Registered VER-007 in shop/tasks/refund-double-charge.toml (checks)",
        "Next: replace the failing TODO check in shop/verifiers/ver_007.py.",
    ]
    again = assay(
        "verifier",
        "add",
        "VER-007",
        "--world",
        "shop",
        "--task",
        "refund-double-charge",
        "--name",
        "Invoice escalated",
        cwd=tmp_path,
    )
    assert again.returncode == 2
    assert (
        again.stderr
        == "error: VERIFIER_ID: verifier VER-007 already exists in verifiers/ver_007.py\n"
    )
    validate = assay("validate", "shop", "--task", "refund-double-charge", cwd=tmp_path)
    assert validate.returncode == 1
    assert 'Verifier "VER-007" is not implemented yet.' in validate.stdout


def test_task_add_writes_a_skeleton_and_refuses_an_existing_id(tmp_path: Path):
    copy_shop(tmp_path / "shop")
    done = assay("task", "add", "escalate-invoice", "--world", "shop", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "Created shop/tasks/escalate-invoice.toml",
        "Next: replace the TODOs in shop/tasks/escalate-invoice.toml, then run "
        "`assay validate shop --task escalate-invoice`.",
    ]
    again = assay("task", "add", "escalate-invoice", "--world", "shop", cwd=tmp_path)
    assert again.returncode == 2
    assert again.stderr == (
        "error: TASK_ID: task escalate-invoice already exists (shop/tasks/escalate-invoice.toml)\n"
    )


def test_a_missing_option_is_exit_2(tmp_path: Path):
    done = assay("verifier", "add", "VER-1", "--task", "t", "--name", "n", cwd=tmp_path)
    assert done.returncode == 2
    assert "Missing option '--world'" in done.stderr
