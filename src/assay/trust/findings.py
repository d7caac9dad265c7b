"""What validation finds: one result per proof, per task, per world; the JSON the CLI and store share."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from assay.trust.fingerprint import Fingerprint

ProofName = Literal["static", "noop", "reference", "wrong", "replay", "live"]
ProofStatus = Literal["passed", "failed", "skipped"]

PROOFS: tuple[ProofName, ...] = ("static", "noop", "reference", "wrong", "replay", "live")
# The live attempt is informational: a live agent's failure is shown, never held against the task.
REQUIRED: tuple[ProofName, ...] = ("static", "noop", "reference", "wrong", "replay")


class Proof(BaseModel, defer_build=True):
    """One proof's result: why it failed or was skipped, and what it noticed on the way."""

    status: ProofStatus
    reasons: list[str] = []
    warnings: list[str] = []
    notes: list[str] = []

    @classmethod
    def passed(cls, *, warnings: list[str] | None = None, notes: list[str] | None = None) -> Proof:
        return cls(status="passed", warnings=warnings or [], notes=notes or [])

    @classmethod
    def failed(cls, *reasons: str, notes: list[str] | None = None) -> Proof:
        return cls(status="failed", reasons=list(reasons), notes=notes or [])

    @classmethod
    def skipped(cls, reason: str) -> Proof:
        return cls(status="skipped", reasons=[reason])


class TaskValidation(BaseModel, defer_build=True):
    task_id: str
    file: str
    task_hash: str  # over every file that can change the task's outcome (see `fingerprint`)
    files: dict[str, str] = {}  # each of those files' sha256, by its path in the world
    split: str | None
    passed: bool
    proofs: dict[ProofName, Proof]
    idle_goals: list[str] = []
    # the live agent failed in every try (`--live AGENT --live-repeats N`): a task to look at,
    # perhaps to withdraw; it still passes when every required proof did
    withdrawn_candidate: bool = False

    @classmethod
    def of(
        cls,
        task_id: str,
        file: str,
        found: Fingerprint,
        split: str | None,
        proofs: dict[ProofName, Proof],
        idle_goals: list[str] | None = None,
    ) -> TaskValidation:
        """A task passes when every proof but the live attempt passed."""
        return cls(
            task_id=task_id,
            file=file,
            task_hash=found.digest,
            files=found.files,
            split=split,
            passed=all(proofs[name].status == "passed" for name in REQUIRED),
            proofs={name: proofs[name] for name in PROOFS},
            idle_goals=idle_goals or [],
            withdrawn_candidate=any(
                reason.startswith("withdrawn candidate") for reason in proofs["live"].reasons
            ),
        )

    def failures(self) -> list[tuple[ProofName, str]]:
        """Each reason a required proof failed, with the proof's name."""
        return [
            (name, reason)
            for name in REQUIRED
            if self.proofs[name].status == "failed"
            for reason in self.proofs[name].reasons
        ]


class WorldValidation(BaseModel, defer_build=True):
    world: str
    version: str
    live_agent: str | None
    passed: bool
    tasks: list[TaskValidation]
