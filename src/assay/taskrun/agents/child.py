"""The agent's own process: it imports the user's class and answers observations with actions.

Run as `python -m assay.taskrun.agents.child module:Class`. It speaks newline-delimited JSON on the
stdin/stdout it was started with, and moves the user's `print()` to stderr so that nothing the
agent writes can mix with the channel. It holds no world, database or store: only what it is sent.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, BinaryIO

PARENT_POLL_S = 0.2  # how often the child looks whether the process that started it is gone


def main(spec: str) -> None:
    channel_in, channel_out = _take_channel()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the run's to handle, not the agent's
    _end_with_parent(os.getppid())
    hello = _read(channel_in) or {}
    os.environ.update(hello.get("env", {}))  # the proxy to the model endpoints it may reach
    for entry in reversed(hello.get("path", [])):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    try:
        agent_class = load_class(spec)
    except _Refused as refused:
        _write(channel_out, {"refused": str(refused)})
        return
    _write(channel_out, {"ready": True})
    _serve(agent_class, channel_in, channel_out)


class _Refused(Exception):
    """The class named on the command line cannot be used."""


def load_class(spec: str) -> type:
    """The class `module:Class` or `path/to/file.py:Class` names; _Refused if there is none."""
    module_name, _, class_name = spec.rpartition(":")
    try:
        if module_name.endswith(".py"):
            found = importlib.util.spec_from_file_location(Path(module_name).stem, module_name)
            if found is None or found.loader is None:
                raise ImportError(f"cannot load {module_name}")
            module = importlib.util.module_from_spec(found)
            found.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except BaseException as error:  # whatever the user's module does on import, it is refused
        raise _Refused(f"cannot import {module_name}: {_described(error)}") from None
    agent_class = getattr(module, class_name, None)
    if not isinstance(agent_class, type) or not callable(getattr(agent_class, "act", None)):
        raise _Refused(f"{spec} is not a class with act(observation)")
    return agent_class


def _serve(agent_class: type, channel_in: BinaryIO, channel_out: BinaryIO) -> None:
    from assay.taskrun.observation import Observation

    agent: Any = None
    while (message := _read(channel_in)) is not None:
        if "new" in message:
            agent = None
            try:
                agent = agent_class()
                reply: dict[str, Any] = {"ok": True}
            except BaseException as error:  # SystemExit and KeyboardInterrupt too: the agent's own
                reply = {"error": f"__init__ raised {_described(error)}"}
        elif agent is None:
            reply = {"error": "no agent: its __init__ failed"}
        else:
            observation = Observation.model_validate(message["observe"])
            reply = _act(agent, observation)
        _write(channel_out, reply)


def _act(agent: Any, observation: Any) -> dict[str, Any]:
    try:
        action = agent.act(observation)
    except BaseException as error:  # SystemExit and KeyboardInterrupt too: the agent's own
        return {"error": _described(error)}
    try:
        return {"action": json.loads(json.dumps(_as_json(action)))}
    except (TypeError, ValueError, RecursionError) as error:
        return {"error": f"returned an action that is not JSON: {error}"}


def _as_json(action: Any) -> Any:
    dump = getattr(action, "model_dump", None)  # a typed Call, Say or Finish
    return dump(mode="json") if callable(dump) else action


def _described(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _take_channel() -> tuple[BinaryIO, BinaryIO]:
    """Keep stdin/stdout for the channel; the user's prints go to stderr, its input is empty."""
    channel_in = os.fdopen(os.dup(0), "rb")
    channel_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)
    sys.stdout = sys.stderr
    return channel_in, channel_out


def _end_with_parent(parent: int) -> None:
    """An agent stuck in `act` still ends when the process that started it is gone."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="assay-parent-watch").start()


def _read(channel: BinaryIO) -> dict[str, Any] | None:
    line = channel.readline()
    return json.loads(line) if line else None


def _write(channel: BinaryIO, message: dict[str, Any]) -> None:
    try:
        channel.write(json.dumps(message).encode() + b"\n")
        channel.flush()
    except BrokenPipeError:  # the task run's process is gone: nobody is left to answer
        os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1])
