"""User agent classes in a process of their own: they are sent observations and send back actions.

The agent's process holds no world, database or store, so no user code can reach the world but by
its actions; where the machine allows, it runs in a sandbox of its own (`sandbox.py`) that shows it
none of the host's either. One process serves one task run after another (a fresh instance of the
class for each); when it dies, hangs or exits, only the task run it was serving fails, and the next
one starts it again.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import sys
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any

from assay.errors import AgentFailure, UsageError
from assay.formats.task import TaskSpec
from assay.taskrun.agents import sandbox
from assay.taskrun.agents.base import OutOfTime
from assay.taskrun.agents.names import AgentName
from assay.taskrun.observation import Observation

if TYPE_CHECKING:
    from assay.taskrun.agents.endpoints import Endpoints
    from assay.world.container.network import Network

DEFAULT_ACTION_TIMEOUT_S = 60.0
START_TIMEOUT_S = 60.0  # importing the user's module may take a while (a model SDK, say)
MAX_REPLY_BYTES = 16 * 1024 * 1024
MAX_PRINTED_BYTES = 8 * 1024 * 1024  # of the agent's prints, relayed to stderr per process start
RELAY_JOIN_S = 1.0  # a process the agent left behind may hold its output open
HIDDEN_ENV = "ASSAY_"  # assay's own settings: where the world and the records live, among others


class _NoReply(Exception):
    """The agent's process did not answer in time."""


class _Gone(Exception):
    """The agent's process ended, or broke the channel."""


class AgentProcess:
    """One child process that holds the user's class; started again when it died or was stopped."""

    def __init__(self, spec: str):
        self.spec = spec
        self.isolation = "process" if sandbox.unavailable() else "sandbox"
        from assay.taskrun.agents.endpoints import chosen_endpoints

        self._child = _Child(self.isolation == "sandbox", chosen_endpoints())
        weakref.finalize(self, self._child.close)

    def start(self) -> None:
        """Start the process and wait until it has imported the class; UsageError if it cannot."""
        self._child.stop()
        try:
            hello = self._child.start(self.spec)
            reply = self._child.exchange(hello, START_TIMEOUT_S)
            if "refused" in reply:
                raise UsageError(f"--agent: {reply['refused']}")
        except BaseException as error:
            self._child.stop()
            if isinstance(error, _NoReply):
                raise UsageError(
                    f"--agent: {self.spec} did not load within {START_TIMEOUT_S:g} s"
                ) from None
            if isinstance(error, _Gone):
                raise UsageError(f"--agent: cannot import {self._module}: {error}") from None
            raise

    @property
    def running(self) -> bool:
        return self._child.running

    def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """The reply to `message`; _NoReply or _Gone (and the process stopped) if there is none."""
        try:
            return self._child.exchange(message, timeout)
        except BaseException:  # Ctrl-C too: a reply that came later would come out of turn
            self._child.stop()
            raise

    def close(self) -> None:
        self._child.close()

    @property
    def _module(self) -> str:
        return self.spec.rpartition(":")[0]


class IsolatedAgents:
    """The agent factory for a user's class: one process, a fresh instance per task run."""

    def __init__(self, spec: str, action_timeout_s: float = DEFAULT_ACTION_TIMEOUT_S):
        self.process = AgentProcess(spec)
        self.process.start()  # so a class that cannot be imported is bad input before any run
        self.action_timeout_s = action_timeout_s

    @property
    def isolation(self) -> str:
        """`sandbox`, or `process` where the machine cannot give one."""
        return self.process.isolation

    def __call__(self, task: TaskSpec, repeat: int = 0) -> IsolatedAgent:
        return IsolatedAgent(self.process, self.action_timeout_s)

    def close(self) -> None:
        self.process.close()


class IsolatedAgent:
    """One task run's agent: an instance in the agent's process, asked for each action in turn."""

    def __init__(self, process: AgentProcess, action_timeout_s: float):
        self.process = process
        self.action_timeout_s = action_timeout_s
        self.isolation = process.isolation  # recorded on the task run as agent_isolation
        self._made = False

    def act(self, observation: Observation) -> Any:
        return self.act_within(observation, None)

    def act_within(self, observation: Observation, seconds_left: float | None) -> Any:
        """The next action; OutOfTime when `seconds_left` runs out first, AgentFailure on failure."""
        if not self._made:
            self._ask({"new": observation.task_id}, seconds_left)
            self._made = True
        return self._ask({"observe": observation.as_json()}, seconds_left)["action"]

    def _ask(self, message: dict[str, Any], seconds_left: float | None) -> dict[str, Any]:
        if not self.process.running:
            try:
                self.process.start()
            except UsageError as refused:
                reason = str(refused).removeprefix("--agent: ")
                raise AgentFailure(f"the agent's process could not start again: {reason}") from None
        task_bound = seconds_left is not None and seconds_left < self.action_timeout_s
        wait = max(seconds_left or 0.0, 0.0) if task_bound else self.action_timeout_s
        try:
            reply = self.process.request(message, wait)
        except _NoReply:
            if task_bound:
                raise OutOfTime from None
            raise AgentFailure(
                f"no action within {self.action_timeout_s:g} s, the per-action time limit "
                "(--action-timeout); its process was stopped"
            ) from None
        except _Gone as gone:
            raise AgentFailure(str(gone)) from None
        if "error" in reply:
            raise AgentFailure(str(reply["error"]))
        return reply


class _Child:
    """The process itself and its channel: one JSON line out, one JSON line back."""

    def __init__(self, sandboxed: bool, endpoints: Endpoints | None) -> None:
        self.sandboxed = sandboxed
        self.endpoints = endpoints if sandboxed else None  # a process reaches every network
        self.popen: subprocess.Popen[bytes] | None = None
        self.network: Network | None = None
        self.tmp: str | None = None  # the sandbox's /tmp, kept for every start of the process
        self._buffer = b""

    @property
    def running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def start(self, spec: str) -> dict[str, Any]:
        """Start the process; the first message it is to be sent (its sys.path, its variables)."""
        env = {key: value for key, value in os.environ.items() if not key.startswith(HIDDEN_ENV)}
        argv = [sys.executable, "-m", "assay.taskrun.agents.child", spec]
        self._buffer = b""
        if not self.sandboxed:
            self.popen = _spawn(argv, env)
            return {"path": sys.path, "env": {}}
        view = sandbox.agent_view(spec)
        argv[-1] = sandbox.sandboxed_spec(spec)
        env.update({"HOME": "/tmp", "TMPDIR": "/tmp", "PYTHONDONTWRITEBYTECODE": "1"})
        self.tmp = self.tmp or sandbox.scratch()
        hello: dict[str, Any] = {"path": list(view.path), "env": {}}
        with sandbox.syscall_filter() as filter_fd:
            filters = () if filter_fd is None else (filter_fd,)
            if self.endpoints is None:
                command = sandbox.command(argv, view, tmp=self.tmp, seccomp_fd=filter_fd)
                self.popen = _spawn(command, env, filters)
                return hello
            info_read, info_write = os.pipe()
            with os.fdopen(info_read, "rb") as info:
                try:
                    command = sandbox.command(
                        argv, view, tmp=self.tmp, info_fd=info_write, seccomp_fd=filter_fd
                    )
                    self.popen = _spawn(command, env, (info_write, *filters))
                finally:
                    os.close(info_write)
                pid = _sandbox_pid(info)
        from assay.taskrun.agents.endpoints import attach

        self.network = attach(pid, self.endpoints)
        hello["env"] = dict(self.network.env)
        return hello

    def exchange(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        popen = self.popen
        if popen is None or popen.stdin is None or popen.stdout is None:
            raise _Gone("the agent's process is not running")
        try:
            popen.stdin.write(json.dumps(message).encode() + b"\n")
            popen.stdin.flush()
        except OSError:
            raise _Gone(self._ended()) from None
        line = self._line(popen.stdout.fileno(), time.monotonic() + timeout)
        try:
            reply = json.loads(line)
        except ValueError:
            raise _Gone("the agent's process sent something that is not JSON") from None
        if not isinstance(reply, dict):
            raise _Gone("the agent's process sent something that is not a JSON object")
        return reply

    def _line(self, fd: int, deadline: float) -> bytes:
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise _NoReply
            chunk = os.read(fd, 65536)
            if not chunk:
                raise _Gone(self._ended())
            self._buffer += chunk
            if len(self._buffer) > MAX_REPLY_BYTES:
                raise _Gone(f"the agent's process sent a reply over {MAX_REPLY_BYTES} bytes")
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _ended(self) -> str:
        assert self.popen is not None
        try:
            code = self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "the agent's process closed its channel"
        if code < 0:
            return f"the agent's process was killed by signal {-code}"
        return f"the agent's process ended (exit code {code})"

    def close(self) -> None:
        """Stop the process and remove its /tmp."""
        self.stop()
        tmp, self.tmp = self.tmp, None
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

    def stop(self) -> None:
        network, self.network = self.network, None
        if network is not None:
            network.close()
        popen, self.popen = self.popen, None
        if popen is None:
            return
        if popen.poll() is None:
            popen.kill()
        popen.wait()
        popen.relay.join(RELAY_JOIN_S)  # type: ignore[attr-defined]
        for stream in (popen.stdin, popen.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def _spawn(argv: list[str], env: dict[str, str], fds: tuple[int, ...] = ()) -> subprocess.Popen:
    popen = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        close_fds=True,  # no socket or file of the world's reaches the agent
        pass_fds=fds,
        start_new_session=True,  # signals to the run's process group are the run's to handle
    )
    assert popen.stderr is not None
    relay = threading.Thread(
        target=_relay, args=(popen.stderr,), daemon=True, name="assay-agent-output"
    )
    relay.start()
    popen.relay = relay  # type: ignore[attr-defined]  # joined at stop, so no print is lost
    return popen


def _relay(output: Any) -> None:
    """The agent's prints onto assay's stderr, up to MAX_PRINTED_BYTES a process; the rest is
    read and dropped (so that the agent never blocks on a full pipe), with one line saying so."""
    printed = 0
    with output:
        while chunk := output.read1(65536):
            if printed >= MAX_PRINTED_BYTES:
                continue
            kept = chunk[: MAX_PRINTED_BYTES - printed]
            printed += len(kept)
            text = kept.decode(errors="replace")
            if printed >= MAX_PRINTED_BYTES:
                text += (
                    f"\nnote: the agent printed over {MAX_PRINTED_BYTES >> 20} MiB; "
                    "the rest of its output is left out\n"
                )
            with contextlib.suppress(OSError, ValueError):  # assay's stderr closed
                sys.stderr.write(text)
                sys.stderr.flush()


def _sandbox_pid(info: Any) -> int:
    """The host pid of the sandbox's first process, from bwrap's --info-fd; UsageError if none."""
    ready, _, _ = select.select([info], [], [], START_TIMEOUT_S)
    text = info.read() if ready else b""  # bwrap closes it once written
    try:
        return int(json.loads(text)["child-pid"])
    except (ValueError, KeyError, TypeError):
        raise UsageError("--agent: the agent's sandbox did not start") from None


def class_agents(name: AgentName, action_timeout_s: float) -> IsolatedAgents:
    """`--agent module:Class` (or `file.py:Class`): a user's class, in a process of its own."""
    return IsolatedAgents(name.argument, action_timeout_s)
