"""`assay world`: the world page shows each task's validation standing, the last build's rejects,
the baselines, and reset and isolation facts it measured on the world."""

from __future__ import annotations

import json

from buildkit import BROKEN, FAIR, InOrder, submit
from modelkit import StandIn
from worldkit import DESK_TOOLS, DESK_WORLD, copy_shop, write_world


def page(assay, world) -> dict:
    ran = assay("world", str(world), "--json")
    assert ran.code == 0, ran.err
    return json.loads(ran.out)


def test_every_standing_the_last_build_and_the_baselines(assay, tmp_path):
    world = copy_shop(tmp_path / "shop")
    tasks = world / "tasks"
    assert (
        assay("validate", str(world), "--task", "update-address", "--task", "goodwill-credit").code
        == 0
    )
    # Edited after validation: stale. Made unfair and validated: withdrawn.
    edited = tasks / "goodwill-credit.toml"
    edited.write_text(edited.read_text() + "\n# edited\n")
    unfair = tasks / "email-tracking.toml"
    unfair.write_text(
        unfair.read_text().replace('tracking = "PW-87001-CRK"', 'tracking = "PW-00000-XXX"')
    )
    assay("validate", str(world), "--task", "email-tracking")
    assert assay("baseline", "record", str(world), "--task", "update-address").code == 0
    assert assay("baseline", "record", str(world), "--task", "address-correction").code == 0
    baseline = world / "baselines" / "address-correction.json"
    baseline.write_text(baseline.read_text().replace('"verified"', '"not_achieved"', 1))
    with StandIn(InOrder([submit(FAIR, BROKEN), submit(BROKEN)])) as stand_in:
        built = assay(
            "build", str(world), "--model", "m", "--base-url", stand_in.url, "--count", "2"
        )
    assert built.code == 0, built.err

    shown = page(assay, world)
    standing = {task["task_id"]: task for task in shown["tasks"]}
    assert standing["update-address"]["standing"] == "validated"
    assert standing["send-an-open-order-to-a-new-street"]["standing"] == "validated"
    assert standing["goodwill-credit"]["standing"] == "stale"
    assert standing["goodwill-credit"]["changed"] == ["tasks/goodwill-credit.toml"]
    assert standing["email-tracking"]["standing"] == "withdrawn"
    assert standing["email-tracking"]["reasons"][0] == (
        "reference: the reference solution is not achieved"
    )
    assert standing["refund-double-charge"]["standing"] == "never validated"

    build = shown["last_build"]
    assert [task["task_id"] for task in build["published"]] == [
        "send-an-open-order-to-a-new-street"
    ]
    [rejected] = build["rejected"]
    assert rejected["draft"] == 2 and rejected["reasons"][0].startswith("not valid TOML")

    baselines = {entry["task_id"]: entry for entry in shown["baselines"]}
    assert baselines["update-address"]["status"] == "held"
    assert baselines["address-correction"]["status"] == "changed"
    assert baselines["refund-double-charge"]["status"] == "none recorded"

    facts = {fact["name"]: fact for fact in shown["isolation"]}
    assert all(fact["held"] for fact in facts.values()), facts
    assert "every table of each reset hashed" in facts["identical_resets"]["measured"]
    assert "tools run offline" in facts["no_network"]["measured"]

    text = assay("world", str(world))
    for heading in ("Validation", "Last build", "Baselines", "Reset and isolation"):
        assert heading in text.out
    assert "could not be validated" in text.out and "not valid TOML" in text.out


CLOCK_TOOLS = (
    DESK_TOOLS
    + '''

@tool(writes=True)
def note_today(world) -> dict:
    """Add a note dated by the machine's clock (not the world's)."""
    import datetime

    world.db.execute("INSERT INTO notes (text, at) VALUES ('today', ?)", datetime.date.today().isoformat())
    return {"ok": True}
'''
)

CLOCK_TASK = """
title = "Note today"
role = "desk"
[customer]
request = "Note today."
[[checks]]
name = "a note"
sql = "SELECT count(*) FROM notes WHERE text = 'today'"
expect = 1
[solution]
steps = [ { call = "note_today" }, { finish = "done" } ]
"""


def test_a_tool_reading_the_machine_clock_breaks_the_clock_fact(assay, tmp_path):
    world = write_world(
        tmp_path / "desk",
        tasks={"today": CLOCK_TASK},
        tools=CLOCK_TOOLS,
        world_toml=DESK_WORLD.replace('"retry_operation"', '"retry_operation", "note_today"'),
    )
    facts = {fact["name"]: fact for fact in page(assay, world)["isolation"]}
    clock = facts["controlled_clock"]
    assert clock["held"] is False
    assert clock["found"] and all(found.startswith("today: ") for found in clock["found"])
    assert facts["identical_resets"]["held"] and facts["no_network"]["held"]
    assert "✗ The clock is controlled" in assay("world", str(world)).out


def test_a_task_that_does_not_load_is_listed_not_fatal(assay, tmp_path):
    world = copy_shop(tmp_path / "shop")
    (world / "tasks" / "broken.toml").write_text('title = "x"\ncolour = "red"\n')
    assay("validate", str(world), "--task", "broken")
    shown = page(assay, world)
    broken = next(task for task in shown["tasks"] if task["task_id"] == "broken")
    assert broken["standing"] == "withdrawn"
    assert broken["reasons"] == ["static: role: required"]
    assert shown["baselines"] == []
    assert shown["baselines_error"].endswith("tasks/broken.toml: role: required")
    assert all(fact["held"] for fact in shown["isolation"])


def test_a_bad_world_is_one_line_and_exit_2(assay, tmp_path):
    ran = assay("world", str(tmp_path / "nowhere"))
    assert ran.code == 2 and ran.err.startswith("error: ") and len(ran.err.splitlines()) == 1
