"""`assay build` against the local stand-in model: only drafts that pass every proof are published;
the rest are repaired once or listed with their reasons; the build is kept in the store."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from buildkit import BROKEN, DUPLICATE, FAIR, IDLE, IDLE_REPAIRED, WRITES, InOrder, submit
from modelkit import StandIn
from worldkit import copy_shop

from assay.runs.store import open_store


def build(assay, world: Path, stand_in: StandIn, *args: str):
    return assay("build", str(world), "--model", "drafter", "--base-url", stand_in.url, *args)


def test_a_build_publishes_only_the_drafts_that_pass_every_proof(assay, tmp_path):
    world = copy_shop(tmp_path / "shop")
    before = {path.name: path.read_text() for path in (world / "tasks").glob("*.toml")}
    model = InOrder(
        [
            submit(FAIR, IDLE, BROKEN, WRITES, DUPLICATE),
            submit(IDLE_REPAIRED),  # the repair of draft 2
            {"content": "I cannot fix that one."},  # no repair of draft 3
            submit(WRITES),  # draft 4 sent back unchanged
            submit(DUPLICATE),  # draft 5 too
        ]
    )
    with StandIn(model) as stand_in:
        ran = build(assay, world, stand_in, "--count", "5", "--split", "dev", "--json")
    assert ran.code == 0, ran.err
    record = json.loads(ran.out)
    published = {task["task_id"]: task["draft"] for task in record["published"]}
    assert published == {"send-an-open-order-to-a-new-street": 1, "keep-an-order-s-address": 6}

    rejected = {entry["draft"]: entry for entry in record["rejected"]}
    assert sorted(rejected) == [3, 4, 5]
    assert rejected[3]["reasons"] == ["the model sent no repair"]
    assert any("only SELECT or WITH is allowed" in reason for reason in rejected[4]["reasons"])
    assert rejected[5]["reasons"] == [
        "a duplicate of task 'update-address': the same customer request"
    ]
    assert all(entry["repaired"] for entry in rejected.values())
    drafts = {draft["number"]: draft for draft in record["drafts"]}
    assert drafts[2]["reasons"] == ["noop: verified with nothing done: the task passes by itself"]
    assert drafts[3]["reasons"][0].startswith("not valid TOML")
    assert drafts[6]["repair_of"] == 2 and drafts[6]["passed"]

    # Published files hold exactly what was proved, comments kept; nothing else changed.
    written = (world / "tasks" / "send-an-open-order-to-a-new-street.toml").read_text()
    assert "# The customer moved." in written
    assert tomllib.loads(written)["split"] == "dev"
    after = {path.name: path.read_text() for path in (world / "tasks").glob("*.toml")}
    assert {name: after[name] for name in before} == before
    assert set(after) - set(before) == {
        "send-an-open-order-to-a-new-street.toml",
        "keep-an-order-s-address.toml",
    }

    # The repair request carried the failure details, in the same conversation.
    repair = model.asked[1]["messages"][-1]
    assert repair["role"] == "user"
    assert "verified with nothing done" in repair["content"]
    assert model.asked[0]["tools"][0]["function"]["name"] == "submit_task"

    # The published tasks stand validated, and the build is in the store.
    listed = assay("validate", str(world), "--list", "--json")
    standing = {task["task_id"]: task["standing"] for task in json.loads(listed.out)["tasks"]}
    assert standing["send-an-open-order-to-a-new-street"] == "validated"
    assert standing["keep-an-order-s-address"] == "validated"
    with open_store(".assay/assay.db") as store:
        [kept] = store.builds_of("shop")
    assert kept["id"] == record["id"] and kept["model"] == "drafter"
    assert len(kept["prompt_hash"]) == 64 and kept["usage"]["model_calls"] == 5


def test_the_model_sees_the_world_but_never_a_holdout_task(assay, tmp_path):
    world = copy_shop(tmp_path / "shop")
    secret = "Please cancel every holdout order at once."
    (world / "tasks" / "a-secret.toml").write_text(
        (world / "tasks" / "update-address.toml")
        .read_text()
        .replace('split = "train"', 'split = "holdout"')
        .replace("I moved. Please send order B-2003 to 18 Mill Lane, York instead.", secret)
    )
    model = InOrder([submit(FAIR)])
    with StandIn(model) as stand_in:
        ran = build(assay, world, stand_in, "--count", "1", "--brief", "address changes")
    assert ran.code == 0, ran.err
    system, user = model.asked[0]["messages"][:2]
    for part in ("CREATE TABLE orders", "update_address (writes)", "orders: ", "support:"):
        assert part in system["content"]
    assert "B-2001" in system["content"]  # the seed summary shows real rows
    assert secret not in system["content"] and "a-secret" not in system["content"]
    assert "address changes" in user["content"] and "Draft 1 new task" in user["content"]
    assert "published shop/tasks/send-an-open-order-to-a-new-street.toml" in ran.out


def test_a_name_already_taken_is_never_overwritten(assay, tmp_path):
    world = copy_shop(tmp_path / "shop")
    taken = world / "tasks" / "send-an-open-order-to-a-new-street.toml"
    taken.write_text((world / "tasks" / "update-address.toml").read_text())
    original = taken.read_text()
    with StandIn(InOrder([submit(FAIR)])) as stand_in:
        ran = build(assay, world, stand_in, "--count", "1", "--json")
    assert ran.code == 0, ran.err
    [published] = json.loads(ran.out)["published"]
    assert published["task_id"] == "send-an-open-order-to-a-new-street-2"
    assert taken.read_text() == original


def test_a_build_that_publishes_nothing_exits_1(assay, tmp_path):
    world = copy_shop(tmp_path / "shop")
    with StandIn(InOrder([submit(BROKEN), submit(BROKEN)])) as stand_in:
        ran = build(assay, world, stand_in, "--count", "1")
    assert ran.code == 1
    assert "not published draft 1, after a repair" in ran.out


def test_bad_build_input_is_one_line_and_exit_2(assay, tmp_path):
    world = copy_shop(tmp_path / "shop")
    ran = assay("build", str(world), "--model", "m", "--split", "test")
    assert (ran.code, ran.err.strip()) == (2, "error: --split: 'test' is not train, dev or holdout")
    with StandIn(InOrder([])) as stand_in:
        stand_in.fail(10, 500)
        ran = build(assay, world, stand_in, "--model-retries", "0")
    assert ran.code == 2
    assert ran.err.startswith("error: --model: the model provider failed: 500")
    assert len(ran.err.strip().splitlines()) == 1


def test_every_draft_kept_out_is_recorded_and_on_the_world_page(assay, tmp_path):
    """A fair, an unfair and an unparseable draft: the unparseable one, whose repair was a
    duplicate, was listed under the duplicate's name and reason alone."""
    world = copy_shop(tmp_path / "shop")
    model = InOrder([submit(FAIR, IDLE, BROKEN), submit(IDLE_REPAIRED), submit(FAIR)])
    with StandIn(model) as stand_in:
        ran = build(assay, world, stand_in, "--count", "3", "--json")
    assert ran.code == 0, ran.err
    record = json.loads(ran.out)
    assert [task["draft"] for task in record["published"]] == [1, 4]
    [kept_out] = record["rejected"]
    assert kept_out["draft"] == 3 and kept_out["repaired"]
    assert kept_out["draft_reasons"][0].startswith("not valid TOML")
    assert kept_out["reasons"] == [
        "a duplicate of task 'send-an-open-order-to-a-new-street': the same customer request"
    ]
    page = assay("world", str(world))
    [line] = [line for line in page.out.splitlines() if "✗ draft 3" in line]
    assert "not valid TOML" in line and "its repair: a duplicate of task" in line


def test_drafts_sent_past_the_count_are_recorded_not_dropped(assay, tmp_path):
    world = copy_shop(tmp_path / "shop")
    with StandIn(InOrder([submit(FAIR, BROKEN)])) as stand_in:
        ran = build(assay, world, stand_in, "--count", "1", "--json")
    assert ran.code == 0, ran.err
    record = json.loads(ran.out)
    assert [task["draft"] for task in record["published"]] == [1]
    [extra] = record["rejected"]
    assert (extra["draft"], extra["repaired"]) == (2, False)
    assert extra["reasons"] == ["sent past the --count of 1: not examined"]
    assert record["drafts"][1]["kind"] == "extra"
    assert record["usage"]["model_calls"] == 1  # never sent back for repair
