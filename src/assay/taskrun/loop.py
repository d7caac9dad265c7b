"""The loop: observation → agent action → effect, until the task run ends."""

from __future__ import annotations

import threading
from typing import Any

from assay.errors import AgentFailure
from assay.taskrun.actions import AnyAction, InvalidAction, action_json, parse_action
from assay.taskrun.agents.base import Agent, OutOfTime
from assay.taskrun.observation import Observation
from assay.taskrun.rollout import Rollout
from assay.taskrun.session import Session


def drive(session: Session, agent: Agent) -> Rollout:
    """Let the agent act until it finishes, runs out of turns or time, or fails."""
    observation = session.observe()
    try:
        while not session.done:
            try:
                raw = _ask(agent, observation, session)
            except OutOfTime:
                session.end("timeout")
                break
            except AgentFailure as failure:
                session.fail_agent(str(failure))
                break
            except Exception as error:  # the agent's own failure, not the world's
                session.fail_agent(f"{type(error).__name__}: {error}")
                break
            try:
                action, as_json = _checked(raw)
            except InvalidAction as error:
                session.fail_agent(f"returned an invalid action: {error}")
                break
            observation = session.act(action, as_json=as_json)
    except KeyboardInterrupt:
        session.end("cancelled")
        raise
    return session.rollout()


def _checked(raw: Any) -> tuple[AnyAction, dict[str, Any]]:
    """The action, if it is one and JSON can carry it (a circular one cannot), and that JSON."""
    action = parse_action(raw)
    try:
        # what the trajectory keeps; it refuses cycles and unknown types
        as_json = action_json(action)
    except (TypeError, ValueError, RecursionError) as error:
        raise InvalidAction(f"it is not JSON: {error}") from None
    return action, as_json


def _ask(agent: Agent, observation: Observation, session: Session) -> Any:
    limit = session.seconds_left()
    act_within = getattr(agent, "act_within", None)  # a BoundedAgent; isinstance is slow
    if act_within is not None:
        return act_within(observation, limit)
    if limit is None:
        return agent.act(observation)
    answer: dict[str, Any] = {}

    def ask() -> None:
        try:
            answer["action"] = agent.act(observation)
        except BaseException as error:  # handed back to the loop's thread
            answer["error"] = error

    worker = threading.Thread(target=ask, daemon=True, name="assay-agent")
    worker.start()
    worker.join(max(limit, 0))
    if worker.is_alive():
        raise OutOfTime
    if "error" in answer:
        raise answer["error"]
    return answer["action"]
