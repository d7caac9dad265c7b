"""`assay keys` makes, lists and revokes scoped keys (stored only hashed); `assay export --failed`
gives the improvement step its failed train and dev episodes and refuses holdout outright."""

from __future__ import annotations

import json

from worldkit import SHOP

from assay.runs.keys import digest
from assay.runs.store import open_store


def test_keys_are_created_once_listed_without_secrets_and_revoked(assay):
    made = assay(
        "keys", "create", "--scope", "build", "--name", "improver", "--expires", "30d", "--json"
    )
    assert made.code == 0, made.err
    key = json.loads(made.out)
    assert key["key"].startswith("ask_") and key["scope"] == "build" and key["expires_at"]
    with open_store(".assay/assay.db") as store:
        assert store.key_of_hash(digest(key["key"])).id == key["id"]
    listed = assay("keys", "list", "--json")
    [shown] = json.loads(listed.out)["keys"]
    assert "key" not in shown and shown["state"] == "active" and shown["name"] == "improver"
    assert key["key"] not in assay("keys", "list").out
    assert assay("keys", "revoke", key["id"]).code == 0
    assert json.loads(assay("keys", "list", "--json").out)["keys"][0]["state"] == "revoked"


def test_bad_key_input_is_one_line_and_exit_2(assay):
    for args, message in [
        (("--scope", "root"), "error: --scope: 'root' is not one of evaluate, build, admin"),
        (("--scope", "build", "--expires", "soon"), "error: --expires: 'soon' is not a duration"),
        (
            ("--scope", "build", "--expires", "2001-01-01"),
            "error: --expires: '2001-01-01' is in the past",
        ),
    ]:
        ran = assay("keys", "create", *args)
        assert ran.code == 2 and ran.err.startswith(message), ran.err
    ran = assay("keys", "revoke", "key_nope")
    assert (ran.code, ran.err.strip()) == (
        2,
        "error: KEY_ID: no key 'key_nope' (see assay keys list)",
    )


def test_export_failed_gives_train_and_dev_failures_with_trajectories_and_checks(assay):
    tasks = ["update-address", "ask-for-email", "damaged-order-refund", "refund-double-charge"]
    chosen = [arg for task in tasks for arg in ("--task", task)]
    assert (
        assay(
            "run",
            str(SHOP),
            "--agent",
            "noop",
            *chosen,
            "--split",
            "train",
            "--split",
            "dev",
            "--split",
            "holdout",
        ).code
        == 0
    )
    assert assay("run", str(SHOP), "--agent", "reference", "--task", "update-address").code == 0
    ran = assay("export", "--failed")
    assert ran.code == 0, ran.err
    rows = [json.loads(line) for line in ran.out.splitlines()]
    assert sorted(row["task"] for row in rows) == [
        "ask-for-email",
        "refund-double-charge",
        "update-address",
    ]
    assert all(row["outcome"] != "verified" and row["split"] in ("train", "dev") for row in rows)
    assert all(row["trajectory"] and row["checks"] and row["world"] == "shop@1" for row in rows)
    assert any(check["details"] for row in rows for check in row["checks"] if not check["passed"])
    dev = [
        json.loads(line) for line in assay("export", "--failed", "--split", "dev").out.splitlines()
    ]
    assert [row["task"] for row in dev] == ["ask-for-email"]
    assert assay("export", "--failed", "--world", "nowhere").out == ""


def test_export_failed_refuses_holdout_whatever_the_flags(assay):
    for split in (["holdout"], ["train,holdout"], ["dev", "holdout"]):
        args = [arg for part in split for arg in ("--split", part)]
        ran = assay("export", "--failed", *args)
        assert ran.code == 2
        assert ran.err.strip() == (
            "error: --split: holdout episodes are never given to the improvement step; "
            "use train and dev"
        )
    assert assay("export", "--split", "dev").err.strip() == "error: --split: only with --failed"
    assert (
        assay("export").err.strip()
        == "error: RUN: give a benchmark run id (or --failed for every run)"
    )
    assert assay("export", "--failed", "--format", "csv").code == 2
