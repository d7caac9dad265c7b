"""One task run driven an action at a time, as an RL environment steps it: reward 0 until the run
ends, then the task run's reward, with its grading in `info`."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from assay.formats.task import TaskSpec
from assay.runs.benchmark import Benchmark
from assay.runs.handle import TaskRunHandle
from assay.score.result import TaskRunResult
from assay.taskrun.actions import ONE_OF, AnyAction, InvalidAction, parse_action
from assay.taskrun.observation import Observation, notice
from assay.taskrun.session import SessionOver

TRUNCATING = ("max_turns", "timeout")  # the run was cut short, not brought to an end
FINAL_FIELDS = ("outcome", "reward", "score", "verdict", "passed", "status", "summary", "checks")


@dataclass(frozen=True)
class Transition:
    """What one action led to, in Gymnasium's terms."""

    observation: Observation
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated


class Episode:
    """A task run started now; `act` until a transition is done, then it is graded and closed.
    A world that cannot be reset raises EnvironmentFailure (`assay.runs.handle.ResetFailed`)."""

    def __init__(
        self,
        benchmark: Benchmark,
        task: TaskSpec,
        *,
        run_id: str,
        repeat: int = 0,
        agent: str = "",
        on_result: Callable[[TaskRunResult], None] | None = None,
    ):
        self.task, self.run_id, self.on_result = task, run_id, on_result
        self.handle = TaskRunHandle(benchmark, task, run_id=run_id, repeat=repeat, agent=agent)
        self.session = self.handle.session

    @property
    def result(self) -> TaskRunResult | None:
        """The result once graded."""
        return self.handle.result

    def observation(self) -> Observation:
        return self.session.observe()

    def info(self) -> dict[str, Any]:
        return {"task_id": self.task.id, "task_run_id": self.run_id, "turn": self.session.turn}

    def act(self, action: str | Mapping[str, Any] | AnyAction) -> Transition:
        """Carry out one action given as JSON text or its parsed form; anything that is not an
        action is a rejected attempt the agent sees, never an exception."""
        self._refuse_when_over()
        if self.session.done:  # the world failed as the run began
            return self._ended(self.session.observe())
        try:
            parsed = parse_action(json.loads(action) if isinstance(action, str) else action)
        except json.JSONDecodeError as error:
            return self.reject(str(action), f"the action is not JSON ({error}); {ONE_OF}")
        except RecursionError:
            return self.reject(str(action)[:200], f"the action is nested too deeply; {ONE_OF}")
        except InvalidAction as error:
            return self.reject(action if isinstance(action, str) else _as_text(action), str(error))
        return self._after(self.handle.act(parsed))

    def reject(self, text: str, message: str) -> Transition:
        """A rejected attempt: it takes a turn and the agent is told `message`."""
        self._refuse_when_over()
        if self.session.done:
            return self._ended(self.session.observe())
        return self._after(self.handle.reject(text, message))

    def oversized(self, transition: Transition, message: str) -> Transition:
        """An observation too large to hand over: a run still going ends as the world's failure
        (not scored); one already over keeps its grading and shows only `message`."""
        if not transition.done:
            return self._ended(self.handle.fail_world(message))
        shown = transition.observation.model_copy(update={"events": [notice(message)]})
        return replace(transition, observation=shown)

    def close(self) -> None:
        """Stop here: a run still going ends as cancelled (graded only when its result is kept)."""
        if self.result is not None:
            return
        self.handle.cancel()
        if self.on_result is not None:
            self._grade()
        self.handle.close()

    def _refuse_when_over(self) -> None:
        if self.result is not None:
            raise SessionOver(
                f"task run {self.run_id} has ended ({self.session.termination}); reset to start another"
            )

    def _after(self, observation: Observation) -> Transition:
        if self.session.done:
            return self._ended(observation)
        # no run id mid-run: the same seed and actions give the same transitions, info included
        info = {
            "task_id": self.task.id,
            "turn": self.session.turn,
            "rejected": _rejected(observation),
        }
        return Transition(observation, 0.0, False, False, info)

    def _ended(self, observation: Observation) -> Transition:
        result = self._grade()
        data = (result.redacted() if self.task.split == "holdout" else result).as_json(
            trajectory=False
        )
        info = {
            **self.info(),
            "rejected": _rejected(observation),
            **{field: data[field] for field in FINAL_FIELDS},
            "not_scored": result.outcome == "not_scored",
            "error": data["error"],
        }
        truncated = self.session.termination in TRUNCATING
        reward = float(result.reward or 0)  # not scored: 0, and flagged so a trainer can drop it
        return Transition(observation, reward, not truncated, truncated, info)

    def _grade(self) -> TaskRunResult:
        """The result, graded and the world closed (`TaskRunHandle.conclude`), then kept."""
        result = self.handle.conclude()
        if self.on_result is not None:
            self.on_result(result)
        return result


def _rejected(observation: Observation) -> bool:
    return any(event.status == "REJECTED" for event in observation.events)


def _as_text(action: Any) -> str:
    """The refused action as the record keeps it."""
    try:
        return json.dumps(action, default=repr)
    except (TypeError, ValueError, RecursionError):
        return repr(action)
