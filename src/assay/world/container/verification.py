"""The phases after the agent (docs/contracts/container.md §3, steps 4–8): pre_artifacts.sh, collect
hooks, artifacts, the test script in the shared sandbox or a fresh one, and every sandbox stopped
before anything is read."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.errors import SpecError
from assay.world.container.artifacts import collect_artifacts, restore_artifacts
from assay.world.container.box import Sandbox, SandboxError
from assay.world.container.build import BuildFailed, cached_layer
from assay.world.container.dockerfile import build_key
from assay.world.container.entrypoint import start_entrypoint
from assay.world.container.hostfiles import contains, line_starting
from assay.world.container.imagemap import BASE_FAILURES
from assay.world.container.layout import Home
from assay.world.container.output import tail
from assay.world.container.trial_files import AGENT_LOGS

if TYPE_CHECKING:
    from assay.world.container.trial import Trial

PRE_ARTIFACTS_TIMEOUT_S = 120.0
PRIVATE = "/run/assay"  # a tmpfs of the sandbox's own, outside the agent's working tree
# What the tool layer's uv says when it ran a Python other than the one asked for (the nearest the
# sandbox has); docs/container-tasks.md, "Tools in the sandbox".
PYTHON_SUBSTITUTED = b"[assay-tooling] python "
# What assay's tools in the sandbox (uv, uvx) print, at a line's start, when they refuse a request.
TOOLING_REFUSED = "[assay-tooling] refused:"
TEST_COMMAND = "(/tests/test.sh) > /logs/verifier/test-stdout.txt 2>&1"


@dataclass
class VerifierRun:
    """What the verifier phase left: its /logs/verifier on the host, and why it may not count."""

    logs: Path | None
    problem: str | None
    exit_code: int | None = None
    test_stdout_tail: str = ""
    notes: list[str] = field(default_factory=list)
    artifacts: list[dict[str, Any]] = field(default_factory=list)
    state_digest: str = ""
    state_entries: int = 0
    steps: list[dict[str, Any]] = field(default_factory=list)  # a multi-step task's, each read

    @classmethod
    def refused(cls, problem: str) -> VerifierRun:
        return cls(logs=None, problem=problem)


def verify(trial: Trial, *, keep_agent_layer: bool = False) -> VerifierRun:
    """Run the phases after the agent; a failure of the sandbox itself is the run's problem.
    keep_agent_layer: the agent's files stay mounted for a later step's agent, in either mode."""
    assert trial.box is not None and trial.home is not None
    box = trial.box
    run = VerifierRun(logs=None, problem=None)
    try:
        run.state_digest, run.state_entries = box.digest()  # what the agent left
        _pre_artifacts(trial, box, run)
        _collect_hooks(trial, box, run)
        run.artifacts = collect_artifacts(box, trial.config.artifacts, trial.home / "artifacts")
        box.get("/logs/artifacts", trial.home / "artifacts" / "logs")
        if trial.keep_logs:  # before the agent's sandbox stops: its layer may go with it
            box.get("/logs/agent", trial.home / AGENT_LOGS)
        # Nothing the agent started survives into the verifier: its sandbox stops here, and the
        # verifier gets a new one (over the same writable layer in shared mode).
        separate = trial.config.verifier_mode() == "separate"
        box.stop(keep_layer=keep_agent_layer or not separate)
        box = _verifier_box(trial, run) if separate else _shared_box(trial, run)
        if box is None:
            return run
        _run_tests(trial, box, run)
    except SandboxError as error:
        run.problem = run.problem or f"sandbox_failed: {error}"
    finally:
        if box is not None:
            box.stop()
        trial.box.stop(keep_layer=keep_agent_layer)
    return run


def _pre_artifacts(trial: Trial, box: Sandbox, run: VerifierRun) -> None:
    script = trial.task.pre_artifacts
    if script is None:
        if not os.path.lexists(box.logs / "artifacts" / "model.patch"):
            box.exec(
                "touch /logs/artifacts/model.patch", timeout_s=30
            )  # made inside, as the agent's
        return
    box.put(script, f"{PRIVATE}/pre_artifacts.sh")
    result = box.exec(
        f"bash {PRIVATE}/pre_artifacts.sh", timeout_s=PRE_ARTIFACTS_TIMEOUT_S, env=trial.env
    )
    if result.timed_out or result.exit_code != 0:
        run.notes.append(f"pre_artifacts_failed:{result.exit_code}")


def _collect_hooks(trial: Trial, box: Sandbox, run: VerifierRun) -> None:
    """Each `[[verifier.collect]]` command; a failure is noted and never stops the run."""
    for index, hook in enumerate(trial.config.verifier.collect):
        result = box.exec(hook.command, timeout_s=hook.timeout_sec, user=hook.user, env=trial.env)
        if result.timed_out or result.exit_code != 0:
            run.notes.append(f"collect_failed:{index}:{result.exit_code}")


def _shared_box(trial: Trial, run: VerifierRun) -> Sandbox:
    """A new sandbox over the agent's own writable layer, with the verifier's network; the
    image's ENTRYPOINT starts again in it, as the agent's processes are gone."""
    assert trial.home is not None and trial.base is not None
    box = Sandbox.start(
        trial.home / "agent",
        base=trial.base,
        layers=trial.layers,
        options=trial.options("verifier", verifier=True, fresh_layer=False),
    )
    run.notes += start_entrypoint(box, trial.plan, trial.env)
    return box


def _verifier_box(trial: Trial, run: VerifierRun) -> Sandbox | None:
    """A fresh sandbox of the verifier's environment holding only the artifacts."""
    assert trial.home is not None and trial.base is not None
    base, layer = trial.base, trial.layer
    tests_dockerfile = trial.task.tests_dockerfile
    workdir = trial.workdir
    image = trial.plan
    plan = trial.verifier_plan  # planned before the agent ran
    if tests_dockerfile is not None and plan is not None:
        try:
            key = build_key(tests_dockerfile, trial.task.tests_dir)
            base = trial.root_for(plan.base_image)  # its own FROM, by the same table
            layer = cached_layer(
                plan,
                key,
                base=base,
                timeout_s=trial.config.environment.build_timeout_sec,
                base_for=trial.root_for,
            )
        except (BuildFailed, SpecError, SandboxError, OSError, *BASE_FAILURES) as failed:
            run.problem = f"verifier_build_failed: {failed}"
            return None
        workdir = plan.workdir or workdir
        image = plan
    chosen = trial.config.verifier_environment()
    if chosen.workdir:
        workdir = chosen.workdir
    box = Sandbox.start(
        trial.home / "verifier",
        base=base,
        layers=[layer] if layer else [],
        options=trial.options("verifier", workdir=workdir, verifier=True),
    )
    run.notes += start_entrypoint(box, image, trial.env)
    restore_artifacts(box, trial.home / "artifacts")
    return box


def _run_tests(trial: Trial, box: Sandbox, run: VerifierRun) -> None:
    """A fresh /tests, then test.sh; then the sandbox stops before anything is read."""
    try:
        box.remove("/tests")  # whatever the agent left there, a conftest.py say, goes first
        for folder in trial.tests_dirs:  # a step's own tests/ over the task's
            box.put(folder, "/tests")
    except SandboxError as error:
        run.problem = f"verifier_setup_failed: {error}"
        return
    if not os.access(trial.test_script, os.X_OK):  # the copy keeps the mode it has
        box.exec("chmod +x /tests/test.sh", timeout_s=30)
    user = trial.config.verifier.user or (trial.plan.user if trial.plan else None)
    result = box.exec(
        TEST_COMMAND,
        timeout_s=trial.config.verifier.timeout_sec,
        user=user,
        env=trial.verifier_env,
    )
    box.stop(keep_layer=True)  # nothing may write a reward file after this point
    verifier_logs = Home(box.home).verifier_logs
    run.logs = verifier_logs
    run.exit_code = result.exit_code
    run.test_stdout_tail = tail(verifier_logs / "test-stdout.txt")
    if contains(verifier_logs / "test-stdout.txt", PYTHON_SUBSTITUTED):
        run.notes.append("python_substituted")
    if result.timed_out:
        run.problem = "verifier timeout"
    elif refused := line_starting(verifier_logs / "test-stdout.txt", TOOLING_REFUSED.encode()):
        # assay's own tool could not do what the test asked: whatever reward followed is no score
        why = refused[len(TOOLING_REFUSED) :].strip() or "no reason given"
        run.problem = f"verifier_tooling_unsupported: {why}"
