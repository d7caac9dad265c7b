"""assay's grade as an inspect score: the value carries score, reward and verified; the answer is
the agent's output; the explanation lists the checks; the metadata is the whole task run result
(checks with evidence, outcome, axes, summary, final-state hash) for `inspect view`."""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from assay.inspect.agent import run_of
from assay.score.result import TaskRunResult


class NotScored(RuntimeError):
    """The world, the agent's provider or the grading failed: no reward, not a zero."""


@scorer(metrics={"score": [mean()], "reward": [mean()], "verified": [mean()]})
def assay_grade() -> Scorer:
    """Finish the sample's task run with the agent's final answer and grade the world."""

    async def score(state: TaskState, target: Target) -> Score:
        run = run_of(state)
        if run is None:
            raise NotScored("the task run never started")
        result = run.finish(state.output.completion or "")
        if result.outcome == "not_scored":
            error = result.error.message if result.error else "not scored"
            raise NotScored(f"task {result.task_id}: not scored: {error}")
        return Score(
            value={
                "score": result.score or 0.0,
                "reward": float(result.reward or 0),
                "verified": float(result.outcome == "verified"),
            },
            answer=result.output,
            explanation=_explanation(result),
            metadata=result.model_dump(mode="json", exclude={"trajectory"}),
        )

    return score


def _explanation(result: TaskRunResult) -> str:
    lines = [f"{result.outcome} (score {result.score}, verdict {result.verdict})"]
    for check in result.checks:
        mark = "✓" if check.passed else "✗"
        lines.append(f"{mark} [{check.type}] {check.name}: {check.details}")
    return "\n".join(lines)
