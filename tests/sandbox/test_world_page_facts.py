"""The world page of a container-format dataset measures its sandbox: a no-network sandbox cannot
reach a listener on the host, tasks whose agent has the network are named, and commands read the
machine's clock."""

from __future__ import annotations

from pathlib import Path

from assay.runs.store import open_store
from assay.trust.world_page import world_page

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "tasks"


def test_the_dataset_page_measures_network_and_clock(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "a.db")) as store:
        page = world_page(EXAMPLES, store)
    facts = {fact.name: fact for fact in page.isolation}
    assert [fact.name for fact in page.isolation] == [
        "identical_resets",
        "controlled_clock",
        "no_network",
    ]
    network = facts["no_network"]
    assert "Connection refused" in network.measured or "exit=1" in network.measured
    assert not any("reached the host" in found for found in network.found)
    assert "hello-world: the agent's network is public" in network.found
    assert network.held is False  # some tasks give the agent the network, so it does not hold
    assert facts["controlled_clock"].held is False
    assert facts["controlled_clock"].found == ["commands in the sandbox read the machine's clock"]
    assert facts["identical_resets"].held is None
    assert {task.task_id for task in page.tasks} >= {"hello-world", "agent-user"}
