"""`--agent cli:NAME[:MODEL]`: a command-line agent installed into a container task's sandbox and run
there with the instruction, as one exec; its own log becomes the transcript, its tokens the usage."""

from __future__ import annotations

import json
import os
import shlex
from typing import Any

from assay.errors import UsageError
from assay.formats.task import TaskSpec
from assay.settings import in_force
from assay.taskrun.actions import AnyAction, Finish, call
from assay.taskrun.agents.model import Usage
from assay.taskrun.agents.names import AgentName
from assay.taskrun.agents.recipe import API_DEFAULTS, Recipe, load_recipe
from assay.taskrun.observation import Observation
from assay.world.container.installed import InstalledAgent
from assay.world.container.tools import MAX_EXEC_TIMEOUT_S
from assay.world.kind import KindRun

OUTPUT_CAP_BYTES = 4 << 20  # what the agent prints is kept up to this; the rest is read and dropped
LOG_LIMIT_BYTES = 4 << 20  # the most of the agent's log the transcript holds
NO_KEY = "assay-no-key"  # given when the host has no key: a local endpoint wants none, a client one
DEFAULT_TIME_S = 3600.0


class CliAgents:
    """Makes the CLI agent of one recipe for each task run; the recipe is read once."""

    def __init__(self, spec: str):
        name, model = split_spec(spec)
        self.name = name
        self.recipe = load_recipe(name)
        self.model = model or self.recipe.model
        if not self.model:
            raise UsageError(f"--agent cli:{name}: name the model, as cli:{name}:<model>")
        _, key_env, default = self.recipe.endpoint_defaults()
        host_env = API_DEFAULTS[self.recipe.api][0]  # the host's own variable, by the API's name
        chosen = in_force().model.base_url or os.environ.get(host_env)
        self.endpoint = (chosen or default).rstrip("/")
        if not self.endpoint.startswith(("http://", "https://")):
            raise UsageError(f"--base-url: {self.endpoint!r} is not an http:// or https:// URL")
        self.key_env = key_env
        self.files = self.recipe.file_contents()

    def __call__(self, task: TaskSpec, repeat: int = 0) -> CliAgent:
        recipe = self.recipe
        url_env, _, _ = recipe.endpoint_defaults()
        env = {
            **recipe.env,
            self.key_env: os.environ.get(self.key_env) or NO_KEY,
            "ASSAY_AGENT_MODEL": self.model or "",
            "ASSAY_INSTRUCTION": task.customer.request,
        }
        installed = InstalledAgent(
            name=self.name.removesuffix(".toml").rsplit("/", 1)[-1],
            install=recipe.install,
            files=self.files,
            install_timeout_s=recipe.install_timeout_sec,
            over_base=recipe.install_over == "base",
            endpoint=self.endpoint,
            base_url_env=tuple(url_env),
            env=env,
        )
        return CliAgent(recipe, installed, task.time_limit_s or DEFAULT_TIME_S)


def split_spec(spec: str) -> tuple[str, str | None]:
    """`NAME[:MODEL]` or `FILE.toml[:MODEL]` → (name, model or None)."""
    if ".toml" in spec:
        name, _, rest = spec.partition(".toml")
        return name + ".toml", rest.removeprefix(":") or None
    name, _, model = spec.partition(":")
    if not name:
        raise UsageError("--agent: name the CLI agent, as cli:<name>")
    return name, model or None


class CliAgent:
    """Runs the installed agent in one exec, then finishes; `collect` reads its log afterwards."""

    def __init__(self, recipe: Recipe, installed: InstalledAgent, time_s: float):
        self.recipe = recipe
        self.installed = installed  # what the task's sandbox installs before the run
        self.output_log = f"/logs/agent/{installed.name}.txt"
        self.time_s = min(max(time_s, 1.0), MAX_EXEC_TIMEOUT_S)
        self.usage = Usage()
        self.transcript: Any = []
        self._ran = False

    def act(self, observation: Observation) -> AnyAction:
        """The agent's run, then a finish; in a multi-step task, a run again for each next step's
        instruction (the customer's message after the finish), with that instruction."""
        following = [e.text for e in observation.events if e.sender == "customer" and e.text]
        if self._ran and not following:
            return Finish(finish="")
        instruction = following[-1] if self._ran else None
        self._ran = True
        return call("exec", command=self.command(instruction), timeout_s=self.time_s)

    def command(self, instruction: str | None = None) -> str:
        """The recipe's run, its stdout and its stderr each kept in a log up to the cap and the
        rest drained (an agent that floods its output still runs to its end), the tails printed;
        `instruction` replaces the task's (a later step's)."""
        out = shlex.quote(self.output_log)
        err = shlex.quote(self.output_log.removesuffix(".txt") + ".stderr.txt")
        capped = f"head -c {OUTPUT_CAP_BYTES} > {{}}; cat > /dev/null"
        given = (
            "" if instruction is None else f"export ASSAY_INSTRUCTION={shlex.quote(instruction)}\n"
        )
        return (
            given + "mkdir -p /logs/agent && status=$(mktemp)\n"
            f"{{ {{ ( {self.recipe.run}\n) </dev/null; echo $? > $status; }} 2>&1 1>&3 3>&- | "
            f"{{ {capped.format(err)}; }}; }} 3>&1 | {{ {capped.format(out)}; }}\n"
            f"tail -c 1000 {err}; tail -c 1000 {out}\n"
            'code=$(cat $status); exit "${code:-1}"\n'
        )

    def collect(self, world_run: KindRun) -> None:
        """Read the agent's log from the sandbox (its output when the recipe names no log)."""
        data = world_run.agent_log(self.recipe.log or self.output_log, LOG_LIMIT_BYTES)
        self.transcript = parse_log(data.decode(errors="replace"))
        if self.recipe.usage is not None:
            self.usage = usage_of(self.transcript, self.recipe.usage)


def parse_log(text: str) -> Any:
    """A JSON document, JSON lines (each line a value, other lines kept as text), or the text."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    lines = [line for line in text.splitlines() if line.strip()]
    values = []
    for line in lines:
        try:
            values.append(json.loads(line))
        except ValueError:
            values.append(line)
    return values if any(not isinstance(value, str) for value in values) else text


def usage_of(transcript: Any, fields: Any) -> Usage:
    """Tokens by the recipe's fields, from every JSON object in the transcript that has both."""
    objects = _objects(transcript)
    found = [
        (item[fields.input], item[fields.output])
        for item in objects
        if isinstance(item.get(fields.input), int) and isinstance(item.get(fields.output), int)
    ]
    if fields.pick == "last":
        found = found[-1:]
    calls = len(found) if fields.pick == "sum" else 0
    if fields.calls is not None:
        counted = [
            item[fields.calls] for item in objects if isinstance(item.get(fields.calls), int)
        ]
        calls = counted[-1] if counted else calls
    return Usage(
        model_calls=calls,
        prompt_tokens=sum(tokens for tokens, _ in found),
        completion_tokens=sum(tokens for _, tokens in found),
    )


def _objects(value: Any) -> list[dict[str, Any]]:
    """Every JSON object in `value`, in the order the log has them (an object before its own)."""
    found: list[dict[str, Any]] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(reversed(item.values()))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return found


def cli_agents(name: AgentName, action_timeout_s: float) -> CliAgents:
    """`--agent cli:<name>[:<model>]`: a command-line agent of a recipe, in the task's sandbox."""
    return CliAgents(name.argument)
