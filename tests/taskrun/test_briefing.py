"""What every agent is told before it acts: the world's and role's descriptions, the world's
instructions (policy), and the world clock's time."""

from __future__ import annotations

import pytest
from worldkit import DESK_WORLD, write_world

from assay.errors import SpecError
from assay.runs import open_benchmark
from assay.taskrun.session import Session

WORLD = (
    DESK_WORLD.replace(
        'version = "1"\n', 'version = "1"\ndescription = "A help desk that keeps notes."\n'
    ).replace(
        "[roles.desk]\n",
        '[roles.desk]\ndescription = "Answers the desk."\ninstructions = "desk.md"\n',
    )
    + '\n[agent]\ninstructions = "policy.md"\n'
)


def brief(tmp_path, world_toml=WORLD, **files):
    root = write_world(tmp_path / "desk", world_toml=world_toml)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    benchmark = open_benchmark(root)
    session = Session(benchmark.world, benchmark.tasks["basic"])
    try:
        return session.observe()
    finally:
        session.live.close()


def test_the_observation_carries_descriptions_instructions_and_the_time(tmp_path):
    seen = brief(tmp_path, **{"policy.md": "Never delete a note.\n", "desk.md": "Be brief."})
    assert seen.briefing is not None
    assert seen.briefing.model_dump() == {
        "world": "desk",
        "world_description": "A help desk that keeps notes.",
        "role_description": "Answers the desk.",
        "instructions": "Never delete a note.\n\nBe brief.",
        "now": "2026-03-02T09:00:00Z",
    }
    assert seen.as_json()["briefing"]["instructions"].startswith("Never delete")


def test_a_world_without_instructions_says_none(tmp_path):
    seen = brief(tmp_path, world_toml=DESK_WORLD)
    assert seen.briefing is not None
    assert (seen.briefing.instructions, seen.briefing.world_description) == (None, None)
    assert "instructions" not in seen.as_json()["briefing"]


def test_a_missing_instructions_file_names_the_field(tmp_path):
    with pytest.raises(SpecError, match=r"world.toml: agent.instructions: 'policy.md' not found"):
        brief(tmp_path, **{"desk.md": "Be brief."})


def test_an_instructions_file_outside_the_world_is_refused(tmp_path):
    outside = WORLD.replace('instructions = "policy.md"', 'instructions = "../policy.md"')
    with pytest.raises(SpecError, match=r"agent.instructions: '../policy.md' is outside"):
        brief(tmp_path, world_toml=outside, **{"desk.md": "x"})


def test_the_instructions_files_are_part_of_every_tasks_fingerprint(tmp_path):
    from assay.formats.load import read_world
    from assay.trust.fingerprint import world_files

    root = write_world(tmp_path / "desk", world_toml=WORLD)
    for name in ("policy.md", "desk.md"):
        (root / name).write_text("x", encoding="utf-8")
    files = world_files(root, read_world(root))
    assert {"policy.md", "desk.md"} <= files.keys()


def test_task_runs_at_the_same_time_of_the_clock_are_told_the_same(tmp_path):
    from assay.taskrun import finish
    from assay.taskrun.briefings import BRIEFINGS_KEPT

    root = write_world(tmp_path / "desk", world_toml=WORLD)
    (root / "policy.md").write_text("Be kind.\n", encoding="utf-8")
    (root / "desk.md").write_text("Be brief.\n", encoding="utf-8")
    benchmark = open_benchmark(root)
    task = benchmark.tasks["basic"]
    seen = []
    for _ in range(2):
        session = Session(benchmark.world, task)
        seen.append([session.observe().briefing, session.act(finish("ok")).briefing])
        session.live.close()
    assert [brief.now for brief in seen[0]] == ["2026-03-02T09:00:00Z", "2026-03-02T09:01:00Z"]
    assert seen[0] == seen[1]
    assert seen[1][0].instructions == "Be kind.\n\nBe brief."
    with pytest.raises(ValueError):
        seen[0][0].now = "later"  # shared, so it cannot be changed
    benchmark.world.briefings.clear()
    benchmark.world.briefings.update({("desk", index): None for index in range(BRIEFINGS_KEPT)})
    session = Session(benchmark.world, task)
    assert session.observe().briefing == seen[0][0]
    assert len(benchmark.world.briefings) == 1  # full: emptied before the new one was kept
    session.live.close()
