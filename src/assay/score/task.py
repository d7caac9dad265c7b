"""From check runs to a task run's outcome, reward, score, verdict and axes: pure functions."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel

from assay.verify.check_run import CheckRun

Outcome = Literal["verified", "not_achieved", "rule_violated", "not_scored"]
Verdict = Literal["pass", "partial", "fail"]
OUTCOMES: tuple[Outcome, ...] = ("verified", "not_achieved", "rule_violated", "not_scored")
REWARDS: dict[Outcome, int | None] = {
    "verified": 1,
    "not_achieved": 0,
    "rule_violated": -1,
    "not_scored": None,
}
PASS_AT = 0.9


class Axis(BaseModel, defer_build=True):
    """One axis of a task run: its score and weight, and its rule checks and how many held."""

    score: float
    weight: float
    rules: int = 0
    rules_held: int = 0

    @property
    def rules_only(self) -> bool:
        """No goal or optional check weighs on the axis: it has rules held, not a score."""
        return self.weight == 0 and self.rules > 0


class TaskScore(BaseModel, defer_build=True):
    outcome: Outcome
    reward: int | None
    score: float | None
    verdict: Verdict | None
    passed: bool
    fraction: float
    axes: dict[str, Axis]


def outcome(checks: Sequence[CheckRun], scored: bool = True) -> Outcome:
    """rule_violated if a rule failed; else verified if there are goals and all passed."""
    if not scored:
        return "not_scored"
    if rule_failed(checks):
        return "rule_violated"
    goals = [check for check in checks if check.type == "goal"]
    return "verified" if goals and all(goal.passed for goal in goals) else "not_achieved"


def weighted_score(checks: Iterable[CheckRun]) -> float:
    """Σ score·weight / Σ weight; 0 when there is no weight at all."""
    checks = list(checks)
    total = math.fsum(check.weight for check in checks)
    if total <= 0:
        return 0.0
    return math.fsum(check.score * check.weight for check in checks) / total


def rule_failed(checks: Iterable[CheckRun]) -> bool:
    return any(check.type == "rule" and not check.passed for check in checks)


def zeroed(checks: Sequence[CheckRun]) -> bool:
    """A rule failed ("nothing else matters"), or no goal check shows anything was done."""
    return rule_failed(checks) or not any(check.type == "goal" for check in checks)


def task_score(checks: Sequence[CheckRun]) -> float:
    """The weighted mean of the goal and optional checks (rules add nothing); 0 when `zeroed`."""
    if zeroed(checks):
        return 0.0
    return weighted_score(check for check in checks if check.type != "rule")


def verdict(score: float | None, has_checks: bool = True) -> Verdict:
    """pass at ≥ 0.9, partial above 0, fail otherwise or with no checks."""
    if not has_checks or score is None:
        return "fail"
    rounded = round(score, 9)  # 0.9 reached through float sums still passes
    if rounded >= PASS_AT:
        return "pass"
    return "partial" if rounded > 0 else "fail"


def axes(checks: Sequence[CheckRun]) -> dict[str, Axis]:
    """Per `axis` (`__default__` for none), the weighted mean of its goal and optional checks, with
    their weight and their rule checks held; an axis of rule checks only weighs 0 and scores 1 (shown
    as rules held, never as a score); every axis is 0 when `zeroed`."""
    groups: dict[str, list[CheckRun]] = {}
    for check in checks:
        groups.setdefault(check.axis or "__default__", []).append(check)
    nothing = zeroed(checks)
    found = {}
    for name, group in sorted(groups.items()):
        graded = [check for check in group if check.type != "rule"]
        weight = math.fsum(check.weight for check in graded)
        value = 0.0 if nothing else weighted_score(graded) if graded else 1.0
        rules = [check for check in group if check.type == "rule"]
        found[name] = Axis(
            score=value,
            weight=weight,
            rules=len(rules),
            rules_held=sum(check.passed for check in rules),
        )
    return found


def passed(checks: Iterable[CheckRun]) -> bool:
    return not any(check.type in ("goal", "rule") and not check.passed for check in checks)


def fraction(checks: Sequence[CheckRun]) -> float:
    return sum(check.passed for check in checks) / len(checks) if checks else 0.0


def score_task(checks: Sequence[CheckRun], scored: bool = True) -> TaskScore:
    result = outcome(checks, scored)
    value = task_score(checks) if scored else None
    return TaskScore(
        outcome=result,
        reward=REWARDS[result],
        score=value,
        verdict=verdict(value, bool(checks)) if scored else None,
        passed=passed(checks),
        fraction=fraction(checks),
        axes=axes(checks),
    )
