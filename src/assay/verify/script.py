"""The `script` check: a container-format task's test script ran in the verifier phase; its reward
files give the task run's status, rewards and primary reward (docs/contracts/container.md §5), and a
failure's side (`assay.verify.blame`)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from assay.formats.checks import ScriptCheck
from assay.verify.blame import Blame, verifier_blame
from assay.verify.check_run import CheckRun
from assay.verify.context import VerifyContext
from assay.world.rewards import RewardReading, read_rewards

if TYPE_CHECKING:
    from assay.world.container.verification import VerifierRun

NOT_IN_SANDBOX = "a script check runs only in a container-format task (task.toml + tests/test.sh)"
LONGEST_LINE = 160
AGENT_TIMEOUT = "agent_timeout"
# The evidence that decides the outcome: what a replay and a baseline compare. The rest (the
# test's output, its exit code, the sandbox's notes, the artifacts) describes the run.
GRADED_EVIDENCE = (
    "status",
    "rewards",
    "primary",
    "source",
    "reason",
    "pass_threshold",
    "agent_acted",
    "failure_side",
    "steps",
)
# Terminal colour and cursor sequences, and other control characters, kept out of a shown line.
CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b-\x1f\x7f]")


def run_script_check(check: ScriptCheck, context: VerifyContext) -> CheckRun:
    """Run the verifier phases (once per task run) and read what the test script left."""
    run = context.world_run.verification()
    if run is None:  # a database world: no verifier phase ran, and no test script
        return CheckRun.of(check, passed=False, score=0.0, details=NOT_IN_SANDBOX, evidence=None)
    reading = _reading(run)
    acted = context.world_run.agent_acted  # from the agent's first command on (the oracle's too)
    blame = verifier_blame(reading.status, reading.reason, acted)
    evidence: dict[str, Any] = {
        "status": reading.status,
        "rewards": reading.rewards,
        "primary": reading.primary,
        "source": reading.source,
        "reason": reading.reason,
        "pass_threshold": check.pass_threshold,
        "exit_code": run.exit_code,
        "notes": _notes(run, context.termination),
        "artifacts": run.artifacts,
        "test_stdout_tail": run.test_stdout_tail,
        "agent_acted": acted,
        "failure_side": blame.side,
    }
    if run.steps:  # a multi-step task: what each step's verifier gave
        evidence["steps"] = run.steps
    primary = reading.primary
    passed = reading.status == "SCORED" and primary is not None and primary >= check.pass_threshold
    return CheckRun.of(
        check,
        passed=passed,
        score=primary if primary is not None else 0.0,
        details=_details(reading, check.pass_threshold, blame),
        evidence=evidence,
    )


def _notes(run: VerifierRun, termination: str | None) -> list[str]:
    """The verifier phase's notes, and `agent_timeout` when the agent ran out of time and
    verification still ran (docs/contracts/container.md §5, row 19)."""
    return [*run.notes, AGENT_TIMEOUT] if termination == "timeout" else run.notes


def _reading(run: VerifierRun) -> RewardReading:
    """The reward files' reading, or why the verifier phase left none to read."""
    if run.problem is not None or run.logs is None:
        return RewardReading(
            status="INDETERMINATE",
            rewards={},
            primary=None,
            source=None,
            reason=run.problem or "no reward file",
        )
    return read_rewards(run.logs)


def _details(reading: RewardReading, threshold: float, blame: Blame) -> str:
    if blame.side == "agent":
        return f"{reading.status}: {reading.reason} (after the agent acted: not achieved)"
    if reading.status != "SCORED":
        return f"{reading.status}: {reading.reason}"
    if reading.primary is None:
        names = ", ".join(sorted(reading.rewards))
        return f"SCORED with no primary reward (metrics: {names}); not scored as pass or fail"
    relation = "reaches" if reading.primary >= threshold else "is below"
    return f"primary reward {reading.primary:g} {relation} the pass threshold {threshold:g}"


def verifier_last_line(check: CheckRun) -> str | None:
    """The last line the test script printed that is not blank, cut to one readable line, when
    the script check failed; None when it passed, printed nothing, or its evidence is withheld."""
    if check.kind != "script" or check.passed or not check.evidence:
        return None
    text = CONTROL.sub("", str(check.evidence.get("test_stdout_tail") or ""))
    line = next((line.strip() for line in reversed(text.splitlines()) if line.strip()), None)
    if line is None:
        return None
    return line if len(line) <= LONGEST_LINE else line[: LONGEST_LINE - 1] + "…"
