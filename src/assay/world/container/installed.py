"""A command-line agent installed into a task's sandbox: what it needs there (its install, run once
into a cached layer over the task's image, and its model endpoint), and that layer's build."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from assay.world.container.box import Sandbox, SandboxError
from assay.world.container.build import layer_once
from assay.world.container.build import layers_dir as build_layers_dir

INSTALL_FAILED = "agent_install_failed"  # the reason's first word when an install fails
STAGING = "/tmp/assay-agent-files"  # where the recipe's files wait while the install runs


@dataclass(frozen=True)
class InstalledAgent:
    """What a command-line agent asks of the task's sandbox before it runs.

    install: a bash script run as root in a build sandbox with the network, over the task's image.
    files: file name → content, put under /tmp/assay-agent-files before the install runs.
    over_base: the install needs nothing of the image (it unpacks a build into /opt, say): its
        layer is built over the base root alone and serves every image of that root.
    endpoint: the model endpoint the agent is given (an http:// one is relayed onto the sandbox's
        loopback; for https:// its host joins the agent phase's allowlist).
    base_url_env: the variables set to the endpoint as the agent reaches it.
    env: more variables for the agent's commands (its key, its model); never in a recorded action.
    """

    name: str
    install: str
    files: Mapping[str, bytes] = field(default_factory=dict)
    install_timeout_s: float = 900.0
    over_base: bool = False  # installed over the base root alone, not the task's image
    endpoint: str | None = None
    base_url_env: Sequence[str] = ()
    env: Mapping[str, str] = field(default_factory=dict)

    @property
    def relayed(self) -> bool:
        """Whether the endpoint is reached through a relay on the sandbox's own loopback."""
        return self.endpoint is not None and urlsplit(self.endpoint).scheme == "http"

    @property
    def allowed_host(self) -> str | None:
        """The host the agent phase's proxy must admit for an https endpoint."""
        if self.endpoint is None or self.relayed:
            return None
        return urlsplit(self.endpoint).hostname

    def key(self, base: Path, layers: Sequence[Path]) -> str:
        """The name of its layer over `base` and `layers`: a layer means nothing over others."""
        digest = hashlib.sha256()
        for part in (self.install, base.name, *(layer.name for layer in layers)):
            digest.update(part.encode() + b"\0")
        for name, data in sorted(self.files.items()):
            digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
        return f"agent-{self.name}-{digest.hexdigest()[:20]}"


class InstallFailed(Exception):
    """The agent's install failed; str() is the reason the task run cannot start."""


def agent_layer(
    agent: InstalledAgent, *, base: Path, layers: Sequence[Path], env: Mapping[str, str]
) -> Path:
    """The agent's layer over `base` and the task's `layers`, installed now unless an earlier run
    left it; InstallFailed naming the failure when the install does not succeed."""

    def install(home: Path) -> None:
        _install(agent, home, base, layers, env)

    return layer_once(build_layers_dir(), agent.key(base, layers), "install-", install)


def _install(
    agent: InstalledAgent, home: Path, base: Path, layers: Sequence[Path], env: Mapping[str, str]
) -> None:
    try:
        box = Sandbox.start(home / "box", base=base, layers=layers, workdir="/", network="public")
    except SandboxError as error:
        raise InstallFailed(f"{INSTALL_FAILED}: {agent.name}: {error}") from None
    with box:
        try:
            if agent.files:
                staged = home / "files"
                staged.mkdir()
                for name, data in agent.files.items():
                    (staged / name).write_bytes(data)
                box.put(staged, STAGING, chmod="755")
            result = box.exec(
                f"{agent.install}\nrm -rf {STAGING}", timeout_s=agent.install_timeout_s, env=env
            )
        except SandboxError as error:
            raise InstallFailed(f"{INSTALL_FAILED}: {agent.name}: {error}") from None
    if result.timed_out:
        raise InstallFailed(
            f"{INSTALL_FAILED}: {agent.name}: the install ran past {agent.install_timeout_s:g}s"
        )
    if result.exit_code != 0:
        said = (result.stderr.strip() or result.stdout.strip()).decode(errors="replace")
        last = said.splitlines()[-1][:300] if said else "no output"
        raise InstallFailed(
            f"{INSTALL_FAILED}: {agent.name}: the install exited {result.exit_code}: {last}"
        )
