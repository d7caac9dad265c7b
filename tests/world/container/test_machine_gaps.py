"""A machine that cannot give a sandbox a guarantee says so before the first task run, and every
task run's sandbox records the same: a limit is never dropped in silence."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from assay.world.container import Sandbox, cgroups, confine
from assay.world.container.confine import Limits


@pytest.fixture
def no_cgroups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cgroups as on a machine that delegates none: an empty hierarchy no one may write."""
    hierarchy = tmp_path / "cgroup"
    hierarchy.mkdir(mode=0o555)
    real = cgroups.Cgroup.create.__func__  # type: ignore[attr-defined]

    def create(cls: type, name: str, limits: Limits, **_: object) -> cgroups.Cgroup:
        return real(cls, name, limits, root=hierarchy)

    monkeypatch.setattr(cgroups.Cgroup, "create", classmethod(create))


def test_this_machine_gives_every_guarantee() -> None:
    assert confine.machine_gaps() == []


@pytest.mark.usefixtures("no_cgroups")
def test_a_machine_without_cgroups_names_each_limit_it_cannot_enforce() -> None:
    gaps = confine.machine_gaps()
    assert {gap.split(" ")[0] for gap in gaps} == {"memory_mb", "pids", "cpus"}
    assert all("is not enforced by a cgroup:" in gap for gap in gaps)


@pytest.mark.usefixtures("no_cgroups")
def test_a_sandbox_without_cgroups_records_its_stand_in_limits(
    start_sandbox: Callable[..., Sandbox],
) -> None:
    box = start_sandbox(limits=Limits(memory_mb=256, pids=64))
    assert any(note.startswith("memory_mb") for note in box.notes), box.notes
    assert any(note.startswith("pids") for note in box.notes), box.notes
    limits = box.exec("ulimit -v; ulimit -u", timeout_s=10).stdout.decode().split()
    assert limits == [str(256 * 1024), "64"]


def test_the_cli_says_what_the_machine_cannot_give_before_the_first_task_run(
    no_cgroups: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from assay.cli.render import print_sandbox_gaps

    print_sandbox_gaps()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3 and all(line.startswith("sandbox: ") for line in lines)
