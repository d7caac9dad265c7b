"""The world-kind interface: a database world and a container world each begin their task runs'
part behind it, and grading reads the state digest and the verifier phase through it alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from sandboxkit import make_task
from trialkit import StandInTrial, logs_with, stand_in
from worldkit import write_world

from assay.errors import UsageError
from assay.formats.checks import ScriptCheck
from assay.runs import open_benchmark
from assay.runs.grade import grade
from assay.runs.kept import keep_trials, kept_folder
from assay.taskrun.session import Session
from assay.verify.context import VerifyContext
from assay.verify.script import NOT_IN_SANDBOX, run_script_check
from assay.verify.views import ReadView
from assay.world.container.kind import ContainerKind, ContainerRun, container_kind
from assay.world.container.verification import VerifierRun
from assay.world.kind import DatabaseKind, DatabaseRun

SCRIPT = ScriptCheck(name="the test script's reward", kind="script", pass_threshold=1.0)


@pytest.fixture
def desk(tmp_path: Path):
    benchmark = open_benchmark(write_world(tmp_path / "desk"))
    yield benchmark
    benchmark.world.close()


@pytest.fixture
def container_dir(tmp_path: Path) -> Path:
    return make_task(tmp_path / "tasks", "one", test_sh="echo 1 > /logs/verifier/reward.txt\n")


def test_a_database_world_is_of_the_database_kind_and_its_digest_is_its_copys(desk) -> None:
    world = desk.world
    assert isinstance(world.kind, DatabaseKind) and not world.kind.sandboxed
    live = world.reset()
    try:
        assert live.begin(next(iter(desk.tasks.values()))) is None
        assert isinstance(live.run, DatabaseRun)
        live.db.execute("INSERT INTO notes (text) VALUES ('third')")
        assert live.run.state_digest() == live.db.state_hash()
        assert live.run.state_digest() != world.reset().db.state_hash()
        assert live.run.verification() is None and live.run.agent_acted is False
        assert live.advance() is None
    finally:
        live.close()


def test_a_database_worlds_task_run_keeps_an_empty_trial_folder(desk, tmp_path: Path) -> None:
    live = desk.world.reset()
    try:
        target = tmp_path / "kept" / "task" / "tr_1"
        assert live.run.keep_files(target) == [] and target.is_dir()
        assert not any(target.iterdir())
        assert live.run.agent_log("/logs/agent/out.txt", 100) == b""
    finally:
        live.close()


def test_a_database_world_refuses_trial_folders_and_names_no_container(desk, tmp_path) -> None:
    with pytest.raises(UsageError, match="--keep-artifacts: only container-format tasks"):
        keep_trials(desk.world, tmp_path)
    assert kept_folder(desk.world) is None
    with pytest.raises(TypeError, match="is a database world"):
        container_kind(desk.world)


def test_a_script_check_in_a_database_world_reads_no_verifier(desk) -> None:
    live = desk.world.reset()
    try:
        live.freeze()
        context = VerifyContext(
            task=next(iter(desk.tasks.values())),
            final=ReadView(live.db, 2.0),
            initial=ReadView(desk.world.initial, 2.0),
            agent_output="",
            request="",
            world_run=live.run,
        )
        run = run_script_check(SCRIPT, context)
        assert (run.passed, run.score, run.details, run.evidence) == (
            False,
            0.0,
            NOT_IN_SANDBOX,
            None,
        )
    finally:
        live.close()


def test_a_container_world_is_sandboxed_and_keeps_its_trial_folders(
    container_dir: Path, tmp_path: Path
) -> None:
    world = open_benchmark(container_dir).world
    kind = container_kind(world)
    assert kind is world.kind and kind.sandboxed and list(kind.tasks) == ["one"]
    assert kept_folder(world) is None
    keep_trials(world, tmp_path / "trials")
    assert kept_folder(world) == tmp_path / "trials" == kind.trial_folders


def test_a_container_run_gives_the_verifiers_digest_and_what_the_agent_did(
    container_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = logs_with(tmp_path / "logs", reward_txt="1")
    verified = VerifierRun(logs=logs, problem=None, state_digest="sha256:left-by-the-agent")
    stand_in(monkeypatch, {"one": verified})
    benchmark = open_benchmark(container_dir)
    (task,) = benchmark.tasks.values()
    live = benchmark.world.reset()
    try:
        assert live.begin(task) is None
        run = live.run
        assert isinstance(run, ContainerRun) and isinstance(run.trial, StandInTrial)
        assert run.agent_acted is False
        run.exec_for_agent("true", 5)
        assert run.agent_acted is True and run.trial.commands == ["true"]
        assert run.verification() is verified
        assert run.state_digest() == "sha256:left-by-the-agent" != live.db.state_hash()
    finally:
        live.close()


@pytest.mark.parametrize(("termination", "noted"), [("timeout", True), ("finished", False)])
def test_grading_notes_an_agent_timeout_on_the_script_checks_evidence(
    container_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    termination: str,
    noted: bool,
) -> None:
    logs = logs_with(tmp_path / "logs", reward_txt="1")
    verified = VerifierRun(logs=logs, problem=None, notes=["uvx_shim"], state_digest="sha256:final")
    stand_in(monkeypatch, {"one": verified})
    benchmark = open_benchmark(container_dir)
    (task,) = benchmark.tasks.values()
    session = Session(benchmark.world, task)
    try:
        session.end(termination)  # type: ignore[arg-type]
        result = grade(session, benchmark.verifiers, run_id="tr_1")
    finally:
        session.live.close()
    (check,) = result.checks
    assert check.evidence is not None
    assert check.evidence["notes"] == (["uvx_shim", "agent_timeout"] if noted else ["uvx_shim"])
    assert verified.notes == ["uvx_shim"]  # the verifier's own record is left as it was
    assert result.final_state_hash == "sha256:final"


def test_a_container_kind_is_what_the_loader_made(container_dir: Path) -> None:
    world = open_benchmark(container_dir).world
    assert type(world.kind) is ContainerKind
