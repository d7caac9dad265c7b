"""`python` checks: verifiers as code, `fn(final, initial, ctx)` returning `check(...)`/`optional(...)`.

Registration is explicit: `world.toml` lists the modules, and a task names the verifier's id.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from assay.errors import CheckError, SpecError
from assay.formats.checks import PythonCheck
from assay.formats.files import shown
from assay.formats.task import TaskSpec
from assay.verify.check_run import CheckRun
from assay.verify.context import VerifyContext
from assay.world.live import World
from assay.world.loadable import unknown_verifiers


@dataclass(frozen=True)
class CheckResult:
    label: str
    passed: bool
    detail: str = ""
    required: bool = True


def check(label: str, passed: bool, detail: str = "") -> CheckResult:
    """A required check: failing it fails the task."""
    return CheckResult(label, bool(passed), detail, required=True)


def optional(label: str, passed: bool, detail: str = "") -> CheckResult:
    """Corroborating evidence: it moves the score and cannot fail the task alone."""
    return CheckResult(label, bool(passed), detail, required=False)


@dataclass(frozen=True)
class Verifier:
    id: str
    name: str
    fn: Callable[..., Any]
    task: str | None = None

    def __call__(self, final: Any, initial: Any, ctx: Any) -> Any:
        return self.fn(final, initial, ctx)


def verifier(
    id: str, *, name: str | None = None, task: str | None = None
) -> Callable[[Callable[..., Any]], Verifier]:
    """Mark `fn(final, initial, ctx)` as the verifier `id`."""

    def mark(fn: Callable[..., Any]) -> Verifier:
        return Verifier(id=id, name=name or fn.__name__, fn=fn, task=task)

    return mark


@dataclass(frozen=True)
class VerifierContext:
    """The third argument of a verifier."""

    agent_output: str
    task: TaskSpec
    request: str


Verifiers = dict[str, Verifier]


def collect_verifiers(world: World) -> Verifiers:
    """Every verifier in the modules `world.toml` lists, and proof that each task's ids exist."""
    found = registered_verifiers(world)
    for task_id, task in world.tasks.items():
        check_verifier_ids(task, found, shown(world.task_files[task_id]))
    return found


def registered_verifiers(world: World) -> Verifiers:
    """Every verifier in the modules `world.toml` lists, by id; an id defined twice is a SpecError."""
    found: Verifiers = {}
    for module in world.verifier_modules:
        for value in vars(module).values():
            if isinstance(value, Verifier) and found.get(value.id) is not value:
                if value.id in found:
                    raise SpecError(
                        shown(world.root / "world.toml"),
                        "verifiers",
                        f"verifier {value.id} is defined twice",
                    )
                found[value.id] = value
    return found


def check_verifier_ids(task: TaskSpec, verifiers: Verifiers, file: str) -> None:
    """SpecError naming the first python check of `task` whose verifier is not registered."""
    problems = unknown_verifiers(task, verifiers)
    if problems:
        raise SpecError(file, *problems[0])


def run_python_check(spec: PythonCheck, context: VerifyContext, verifiers: Verifiers) -> CheckRun:
    found = verifiers.get(spec.verifier)
    if found is None:
        raise CheckError(f"check {spec.name!r}: verifier {spec.verifier} is not registered")
    ctx = VerifierContext(context.agent_output, context.task, context.request)
    try:
        results = list(found(context.final, context.initial, ctx))
    except CheckError:
        raise
    except Exception as error:
        raise CheckError(
            f"verifier {spec.verifier} raised {type(error).__name__}: {error}"
        ) from error
    if not all(isinstance(result, CheckResult) for result in results):
        raise CheckError(
            f"verifier {spec.verifier} must return a list of check(...) and optional(...)"
        )
    if not any(result.required for result in results):
        raise CheckError(f"verifier {spec.verifier} returned no required check")
    passed = all(result.passed for result in results if result.required)
    count = sum(result.passed for result in results)
    failing = [
        f"✗ {r.label}: {r.detail}" if r.detail else f"✗ {r.label}" for r in results if not r.passed
    ]
    details = f"{count} of {len(results)} checks passed" + (
        "; " + "; ".join(failing) if failing else ""
    )
    return CheckRun.of(
        spec,
        passed=passed,
        score=count / len(results),
        details=details,
        evidence={
            "verifier": spec.verifier,
            "checks": [
                {"label": r.label, "passed": r.passed, "detail": r.detail, "required": r.required}
                for r in results
            ],
        },
    )
