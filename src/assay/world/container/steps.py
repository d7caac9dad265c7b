"""A multi-step task run: each step gets its files and set-up, the agent's turn, then its own
verification; a step below its `min_reward` ends the steps, and the steps' rewards make the task
run's (mean or final, as task.toml says)."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from assay.formats.container_steps import StepFiles, below_min_reward, combined_rewards, step_config
from assay.formats.container_task import resolve_templates
from assay.world.container.box import Sandbox, SandboxError, release_layer
from assay.world.container.entrypoint import start_entrypoint
from assay.world.container.verification import VerifierRun, verify
from assay.world.rewards import RewardReading, read_rewards

if TYPE_CHECKING:
    from assay.world.container.trial import Trial

SETUP_TIMEOUT_S = 600.0


@dataclass
class StepOutcome:
    """What one step's verification left, read."""

    name: str
    run: VerifierRun
    reading: RewardReading

    def as_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "status": self.reading.status,
            "rewards": self.reading.rewards,
            "reason": self.reading.reason,
        }


@dataclass
class Steps:
    """Where a multi-step task run is: the step the agent is on, and what each step verified."""

    files: tuple[StepFiles, ...]
    index: int = 0
    outcomes: list[StepOutcome] = field(default_factory=list)
    stopped: str | None = None  # why no later step runs (min_reward, a failed step)
    failed: str | None = None  # why a later step could not start (its sandbox, its setup.sh)

    @property
    def current(self) -> StepFiles:
        return self.files[self.index]

    @property
    def verified(self) -> bool:
        """Whether the current step has been verified already."""
        return len(self.outcomes) > self.index


def enter_step(trial: Trial) -> str | None:
    """Get the current step ready: its config, its workdir's files, its setup.sh and its
    healthcheck; None when the agent may begin, else why the step cannot."""
    steps = trial.steps
    assert steps is not None and trial.box is not None
    step = trial.task.config.steps[steps.index]  # type: ignore[index]
    trial.config = step_config(trial.task.config, step)
    judge, unset = resolve_templates(trial.config.verifier.env, os.environ)
    if unset:
        return f"missing_env:{unset[0]}"
    trial.verifier_env = {**trial.env, **judge}
    files = steps.current
    box = trial.box
    user = trial.agent_user
    try:
        if files.workdir is not None:
            owner = None if user in (None, "root", 0, "0") else str(user)
            box.put(files.workdir, trial.workdir, owner=owner)
            if (files.workdir / "setup.sh").is_file():
                script = f"{trial.workdir.rstrip('/')}/setup.sh"
                result = box.exec(
                    f"bash {script}", timeout_s=SETUP_TIMEOUT_S, user=user, env=trial.env
                )
                if result.timed_out or result.exit_code != 0:
                    code = "timeout" if result.timed_out else result.exit_code
                    return f"step_setup_failed:{files.name}: setup.sh exited {code}"
    except SandboxError as error:
        return f"step_setup_failed:{files.name}: {error}"
    if step.healthcheck is not None:
        return trial.healthcheck(step.healthcheck)
    return None


def finish_step(trial: Trial) -> StepOutcome:
    """Verify the current step (the agent's processes stop; its files stay for the next step),
    keep what its verifier left under steps/<name>/, and read it."""
    steps = trial.steps
    assert steps is not None and trial.home is not None
    name = steps.current.name
    run = verify(trial, keep_agent_layer=True)
    kept = trial.home / "steps" / name
    kept.mkdir(parents=True, exist_ok=True)
    if run.logs is not None:
        shutil.copytree(run.logs, kept / "verifier", symlinks=True, dirs_exist_ok=True)
        run.logs = kept / "verifier"
    if (trial.home / "artifacts").exists():
        shutil.copytree(trial.home / "artifacts", kept / "artifacts", symlinks=True)
    verifier_home = trial.home / "verifier"
    if verifier_home.exists():  # a separate verifier's: the next step's starts anew
        release_layer(verifier_home)
        shutil.rmtree(verifier_home, ignore_errors=True)
    outcome = StepOutcome(name, run, _reading(run))
    steps.outcomes.append(outcome)
    return outcome


def next_instruction(trial: Trial) -> str | None:
    """At the agent's finish: verify the step, then start the next one and hand back its
    instruction; None when the steps are over (the last is done, one fell below its min_reward,
    or one could not be verified or set up)."""
    steps = trial.steps
    assert steps is not None
    outcome = finish_step(trial)
    step = trial.task.config.steps[steps.index]  # type: ignore[index]
    if outcome.reading.status != "SCORED":
        steps.stopped = f"step {outcome.name}: {outcome.reading.reason}"
        return None
    below = below_min_reward(outcome.reading.rewards, step.min_reward)
    if below is not None:
        steps.stopped = f"step {outcome.name}: {below}"
        return None
    if steps.index + 1 >= len(steps.files):
        return None
    steps.index += 1
    problem = _restart(trial)
    if problem is not None:
        steps.stopped = steps.failed = problem
        return None
    trial.restart_clock()
    return steps.current.instruction


def _restart(trial: Trial) -> str | None:
    """A new agent sandbox over the same writable layer, as the next step's agent phase has it
    (its network may differ), then the step's own set-up."""
    assert trial.home is not None and trial.base is not None
    shutil.rmtree(trial.home / "artifacts", ignore_errors=True)  # kept under steps/<name>/
    try:
        trial.box = Sandbox.start(
            trial.home / "agent",
            base=trial.base,
            layers=trial.layers,
            options=trial.options("agent", fresh_layer=False),
        )
    except (SandboxError, OSError) as error:
        return f"sandbox_failed: {error}"
    trial.notes += start_entrypoint(trial.box, trial.plan, trial.env)
    return enter_step(trial)


def combined_run(trial: Trial) -> VerifierRun:
    """The task run's verification from its steps': the last step's run, its reward files
    replaced by the steps' rewards combined (a step that could not be verified makes the whole
    run unscored, whatever the others gave)."""
    steps = trial.steps
    assert steps is not None and trial.home is not None
    if not steps.verified and steps.stopped is None:
        finish_step(trial)  # the task run ended inside a step (time, turns): it is verified too
    outcomes = steps.outcomes
    last = outcomes[-1].run
    run = VerifierRun(
        logs=None,
        problem=last.problem,
        exit_code=last.exit_code,
        test_stdout_tail=last.test_stdout_tail,
        notes=list(last.notes),
        artifacts=last.artifacts,
        state_digest=last.state_digest,
        state_entries=last.state_entries,
        steps=[outcome.as_json() for outcome in outcomes],
    )
    if steps.failed is not None:  # a later step could not start: no score of the steps
        run.problem = steps.failed
        return run
    failed = next((o for o in outcomes if o.reading.status != "SCORED"), None)
    if failed is not None:
        if failed.reading.status == "SCORING_ERROR":  # its reward files say what is wrong
            run.logs = failed.run.logs
        else:
            run.problem = f"step {failed.name}: {failed.reading.reason}"
        return run
    # A step never reached because the task run ended first counts 0; one a min_reward kept
    # from running does not count (as the format's runner has it).
    unreached = [] if steps.stopped else [{}] * (len(steps.files) - len(outcomes))
    per_step = [o.reading.rewards for o in outcomes] + unreached
    rewards = combined_rewards(per_step, trial.task.config.multi_step_reward_strategy)
    folder = trial.home / "steps" / "combined"
    folder.mkdir(parents=True, exist_ok=True)
    if rewards is not None:
        (folder / "reward.json").write_text(json.dumps(rewards), encoding="utf-8")
    run.logs = folder
    run.problem = None
    return run


def _reading(run: VerifierRun) -> RewardReading:
    if run.problem is not None or run.logs is None:
        return RewardReading(status="INDETERMINATE", reason=run.problem or "no reward file")
    return read_rewards(Path(run.logs))
