"""Whose failure it is when a container-format verifier gives no score: a pure rule.

Once the agent has run a command it could have broken what the test script relies on (replaced
`tar`, broken `python`, filled the disk), so a verifier that then writes no reward, writes one that
does not parse, or runs out of time is the agent's failure: not achieved, reward 0, counted in
every mean and in pass@k. Left out of the score as not scored it would hide exactly the runs an
agent most wants hidden. Before the agent acted, or when assay or the machine failed, the run is
not scored, as any failure outside the agent is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# The first word of the reasons that are assay's or the machine's, whenever they happen.
ASSAY_SIDE = frozenset(
    {
        "sandbox_failed",
        "unsupported_environment",
        "sandbox_unavailable",
        "missing_env",
        "environment_build_failed",
        "verifier_build_failed",
        "healthcheck_failed",
        "unsupported_instruction",  # the image could be built only in part
        "verifier_tooling_unsupported",  # assay's own tool refused what the test asked
    }
)

Effect = Literal["scored", "not_achieved", "not_scored"]
Side = Literal["agent", "scoring"]


@dataclass(frozen=True)
class Blame:
    """What a reading of the reward files does to the task run, and whose failure it is."""

    effect: Effect
    side: Side | None = None


SCORED = Blame("scored")
AGENTS = Blame("not_achieved", "agent")
NOT_SCORED = Blame("not_scored", "scoring")


def verifier_blame(status: str, reason: str | None, agent_acted: bool) -> Blame:
    """The effect of a reward reading (`status`, `reason`), given whether the agent ran a command.

    A SCORED reading is scored; an INDETERMINATE or SCORING_ERROR one is the agent's once it has
    acted, unless its reason is one of `ASSAY_SIDE`; otherwise it is not scored.
    """
    if status == "SCORED":
        return SCORED
    if agent_acted and not assay_side(reason):
        return AGENTS
    return NOT_SCORED


def assay_side(reason: str | None) -> bool:
    """Whether the reason names a failure of assay or the machine (`sandbox_failed: …`,
    `missing_env:KEY`, …), which no agent is blamed for."""
    if not reason:
        return False
    return reason.split(":", 1)[0].strip() in ASSAY_SIDE
