"""The reward files a container-format verifier leaves in /logs/verifier, read into one status."""

from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

RewardStatus = Literal["SCORED", "INDETERMINATE", "SCORING_ERROR"]
RewardSource = Literal["reward.json", "reward.txt"]

MAX_BYTES = 1024 * 1024
PRIMARY_KEY = "reward"
# re.ASCII: `\d` must not take Arabic-Indic or other Unicode digits that float() would accept.
NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", re.ASCII)
NO_REWARD_FILE = "no reward file"


class RewardReading(BaseModel, defer_build=True):
    """What the reward files say: a status, every metric when scored, and why not when not."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    status: RewardStatus
    rewards: dict[str, float] = {}
    primary: float | None = None
    source: RewardSource | None = None
    reason: str | None = None


class _Unusable(Exception):
    """A reward file that cannot be scored; the message is the reason, less the file's name."""


def read_rewards(verifier_dir: Path) -> RewardReading:
    """Read the host directory that was /logs/verifier: a non-empty reward.json, else reward.txt.

    Symbolic links, FIFOs and other non-regular files are refused (a SCORING_ERROR naming what the
    file is) rather than followed or waited on, since the sandbox wrote this directory and the
    host reads it (`assay.world.container.hostfiles`).
    """
    for name, parse in (("reward.json", parse_reward_json), ("reward.txt", parse_reward_text)):
        path = verifier_dir / name
        if not os.path.lexists(path):
            continue
        try:
            text = _read_capped(path)
        except _Unusable as unusable:
            return _error(name, str(unusable))
        if name == "reward.json" and not text.strip():
            continue  # an empty reward.json is as if absent (docs/contracts/container.md §5, row 14)
        return parse(text)
    if os.path.lexists(verifier_dir / "reward.json"):
        reason = f"{NO_REWARD_FILE}: reward.json is empty and there is no reward.txt"
        return RewardReading(status="INDETERMINATE", reason=reason)
    return RewardReading(status="INDETERMINATE", reason=NO_REWARD_FILE)


def parse_reward_text(text: str) -> RewardReading:
    """A reward.txt's text: one number in [0, 1], surrounding whitespace ignored."""
    value = text.strip()
    if not value:
        return _error("reward.txt", "empty")
    if not NUMBER.fullmatch(value):
        return _error("reward.txt", f"{_quoted(value)} is not a number")
    number = float(value)
    if not math.isfinite(number):
        return _error("reward.txt", f"{_quoted(value)} is not a finite number")
    if not 0 <= number <= 1:
        return _error("reward.txt", f"{value} is not in [0, 1]")
    number += 0.0  # "-0" is a score of 0, not -0.0
    return RewardReading(
        status="SCORED", rewards={PRIMARY_KEY: number}, primary=number, source="reward.txt"
    )


def parse_reward_json(text: str) -> RewardReading:
    """A reward.json's text: an object of finite numbers whose primary is in [0, 1].

    The primary is the "reward" key, else the only key; with several keys and no "reward"
    the reading is scored with no primary.
    """
    try:
        rewards = _metrics(_decoded(text))
    except _Unusable as unusable:
        return _error("reward.json", str(unusable))
    primary_key = PRIMARY_KEY if PRIMARY_KEY in rewards else None
    if primary_key is None and len(rewards) == 1:
        primary_key = next(iter(rewards))
    primary = rewards[primary_key] if primary_key is not None else None
    if primary is not None and not 0 <= primary <= 1:
        return _error(
            "reward.json",
            f"the primary {_quoted(primary_key)} is {json.dumps(primary)}, not in [0, 1]",
        )
    return RewardReading(status="SCORED", rewards=rewards, primary=primary, source="reward.json")


def _read_capped(path: Path) -> str:
    # here, not at the top: grading a database world reads PRIMARY_KEY and loads no sandbox code
    from assay.world.container.hostfiles import TooLarge, read_capped

    try:
        data = read_capped(path, MAX_BYTES, base=path.parent)
    except TooLarge:
        raise _Unusable("larger than 1 MiB") from None
    except OSError as error:
        raise _Unusable(f"cannot read: {error.strerror or error}") from None
    if data is None:
        raise _Unusable(_not_regular(path))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise _Unusable(f"not UTF-8 text (byte {error.start}: {error.reason})") from None


def _not_regular(path: Path) -> str:
    """Why a file that exists was not read (the read itself refused it; this only names it)."""
    try:
        link = stat.S_ISLNK(path.lstat().st_mode)
    except OSError:
        link = False
    return "a symbolic link, not a regular file" if link else "not a regular file"


def _decoded(text: str) -> Any:
    try:
        # parse_int=float: ints become floats, and a 5,000-digit int becomes inf instead of raising.
        return json.loads(text, parse_constant=_refuse_constant, parse_int=float)
    except _Unusable:
        raise
    except json.JSONDecodeError as error:
        where = f"line {error.lineno} column {error.colno}"
        raise _Unusable(f"not valid JSON ({where}: {error.msg})") from None
    except RecursionError:
        raise _Unusable("not valid JSON: nested too deeply") from None


def _refuse_constant(name: str) -> Any:
    raise _Unusable(f"{name} is not a finite number")


def _metrics(document: Any) -> dict[str, float]:
    if not isinstance(document, dict):
        raise _Unusable(f"the top level is {_kind(document)}, not an object of metrics")
    if not document:
        raise _Unusable("the object has no metrics")
    rewards: dict[str, float] = {}
    for key, value in document.items():
        if not isinstance(value, float) or isinstance(value, bool):
            raise _Unusable(f"{_quoted(key)} is {_kind(value)}, not a number")
        if not math.isfinite(value):
            raise _Unusable(f"{_quoted(key)} is not a finite number")
        rewards[key] = value + 0.0
    return rewards


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"a string {_quoted(value)}"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return "a number"


def _quoted(value: str | None, limit: int = 40) -> str:
    """A value the verifier wrote, shown on one line and cut to a readable length."""
    text = value if value is not None and len(value) <= limit else f"{(value or '')[:limit]}…"
    return repr(text)


def _error(file: str, reason: str) -> RewardReading:
    return RewardReading(status="SCORING_ERROR", reason=f"{file}: {reason}")
