"""Search an answer for regular expressions in a child process, each search under a time limit.

Python's `re` backtracks, so a pattern like `\\d+\\d+x` takes seconds on a few thousand digits and
cannot be interrupted from another thread; a child process keeps a runaway search from stalling the
grader (or the API server) and is stopped by an alarm when the limit passes.
"""

from __future__ import annotations

import json
import subprocess
import sys

from pydantic import BaseModel

from assay.errors import CheckError

_CHILD = """
import json, re, signal, sys
patterns, text, flags, limit = json.load(sys.stdin)
def stop(*_):
    raise TimeoutError
signal.signal(signal.SIGALRM, stop)
found = []
for pattern in patterns:
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        match = re.search(pattern, text, flags)
        found.append({"match": None if match is None else match.group(0)})
    except TimeoutError:
        found.append({"timed_out": True})
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
json.dump(found, sys.stdout)
"""
_START_S = 60.0  # a generous allowance for starting the child on a loaded machine


class Found(BaseModel, defer_build=True):
    """What one pattern found: the text it matched, or None; `timed_out` when the limit passed."""

    match: str | None = None
    timed_out: bool = False


def search(patterns: list[str], text: str, flags: int, limit_s: float) -> list[Found]:
    """The first match of each pattern in `text` (`re.search`), each search stopped after `limit_s`."""
    request = json.dumps([patterns, text, int(flags), limit_s])
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", _CHILD],
            input=request,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=_START_S + limit_s * len(patterns),
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise CheckError(f"could not search the answer: {error}") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise CheckError(f"could not search the answer: {last}")
    return [Found.model_validate(item) for item in json.loads(done.stdout)]
