"""One task run of a container-format task: start and build its sandbox, let the agent exec in it,
then run the verification phases (docs/contracts/container.md §3) and leave the reward files for the
script check."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from assay.errors import EnvironmentFailure, SpecError
from assay.formats.container_steps import step_config
from assay.formats.container_task import ContainerTask, Healthcheck, resolve_templates
from assay.world.container.box import Options, Sandbox, SandboxError, release_layer
from assay.world.container.build import BuildFailed, cached_layer
from assay.world.container.confine import Limits
from assay.world.container.dockerfile import BuildPlan, build_key, plan_build
from assay.world.container.endpoint import EndpointRelay
from assay.world.container.entrypoint import start_entrypoint
from assay.world.container.host import sandbox_available, sandbox_root
from assay.world.container.hostfiles import head_of
from assay.world.container.imagemap import (
    BASE_FAILURES,
    NO_USER,
    UserImages,
    base_for,
    build,
    lookup,
)
from assay.world.container.installed import InstalledAgent, InstallFailed, agent_layer
from assay.world.container.output import exec_output
from assay.world.container.steps import Steps, combined_run, enter_step, next_instruction
from assay.world.container.verification import VerifierRun, verify

DEFAULT_PIDS = 4096  # processes per sandbox when the task names none: a fork bomb stops there
INCOMPLETE = "unsupported_instruction"  # the reason's first word when a plan is incomplete
AGENT_LOGS = "/logs/agent"


class Trial:
    """The sandbox phases of one task run; every sandbox is gone once `close` returns."""

    def __init__(
        self,
        task: ContainerTask,
        images: UserImages = NO_USER,
        *,
        keep_logs: bool = False,
        installed: InstalledAgent | None = None,
    ):
        self.task = task
        self.installed = installed  # a command-line agent to install and give its endpoint
        self.agent_layer: Path | None = None
        self.agent_env: dict[str, str] = {}  # the installed agent's variables, for its execs only
        self.relay: EndpointRelay | None = None
        self.keep_logs = keep_logs  # copy /logs/agent out too, for a trial folder kept on disk
        self.config = task.config  # a multi-step task's: the current step's view of it
        self.steps = Steps(task.steps) if task.steps else None
        if task.config.steps:
            self.config = step_config(task.config, task.config.steps[0])
        self.images = images  # the task set's and the user's images.toml
        self.image = lookup(None)  # what stands for the image the task names
        self.base: Path | None = None
        self.agent_acted = False  # set at the agent's first command: a verifier failure is then its
        self.notes: list[str] = []
        self.problem: str | None = None
        self.home: Path | None = None
        self.box: Sandbox | None = None
        self.plan: BuildPlan | None = None
        self.verifier_plan: BuildPlan | None = None  # tests/Dockerfile's, in separate mode
        self.layer: Path | None = None
        self.env: dict[str, str] = {}
        self.verifier_env: dict[str, str] = {}
        self.workdir = "/"
        self.result: VerifierRun | None = None
        self._deadline: float | None = None

    # -- start ---------------------------------------------------------------------------------

    def start(self) -> str | None:
        """Start and build the sandbox; None when the agent may begin, else why it may not."""
        self.problem = self._prepare()
        if self.problem is None:
            try:
                self.problem = self._start_box()
            except (SandboxError, OSError) as error:
                self.problem = f"sandbox_failed: {error}"
        if self.problem is None and self.steps is not None:
            self.problem = enter_step(self)
        if self.problem is not None and self.box is not None:
            self.box.stop()
        self.restart_clock()
        return self.problem

    def restart_clock(self) -> None:
        """The agent's time starts now (a step's own, in a multi-step task)."""
        timeout = self.config.agent.timeout_sec
        self._deadline = time.monotonic() + timeout if timeout else None

    def _prepare(self) -> str | None:
        """Everything that can refuse the task before a sandbox exists."""
        reasons = self.task.unsupported()
        if reasons:
            return reasons[0]
        missing = sandbox_available()
        if missing is not None:
            return f"sandbox_unavailable: {missing}"
        env, unset = resolve_templates(self.config.environment.env, os.environ)
        judge, unset_judge = resolve_templates(self.config.verifier.env, os.environ)
        if unset or unset_judge:
            return f"missing_env:{(unset or unset_judge)[0]}"
        try:
            self.plan = self._plan()
        except SpecError as error:
            return f"environment_build_failed: {error}"
        try:
            self.verifier_plan = self._verifier_plan()
        except SpecError as error:
            return f"verifier_build_failed: {error}"
        incomplete = unbuilt(self.plan, "environment/Dockerfile")
        incomplete += unbuilt(self.verifier_plan, "tests/Dockerfile")
        if incomplete:  # a score over an image built in part is no score: refused before the agent
            return f"{INCOMPLETE}: {'; '.join(incomplete)}"
        unlike = [self.image.problem, *(lookup(i, self.images).problem for i in self._images())]
        if any(unlike):  # no root is like an image it is built from
            return next(problem for problem in unlike if problem)
        compose = self.task.compose_main  # a compose file that restates the main service
        compose_env = compose.env if compose else {}
        # The image's own defaults (its PATH, say) under the Dockerfile's ENV, also without one.
        plan_env = self.plan.env if self.plan else self.image.env
        self.env = {**plan_env, **compose_env, **env}
        self.verifier_env = {**self.env, **judge}
        self.workdir = (
            self.config.environment.workdir
            or (compose and compose.workdir)
            or (self.plan and self.plan.workdir)
            or "/"
        )
        return None

    def _plan(self) -> BuildPlan | None:
        """The Dockerfile's plan, and the base for the image its last stage (or, without one,
        `[environment] docker_image`) names."""
        dockerfile = self.task.dockerfile
        plan = None
        if dockerfile is not None:
            plan = plan_build(dockerfile, self.task.environment_dir, base_env=self.env_for)
        self.image = lookup(
            plan.base_image if plan else self.config.environment.docker_image, self.images
        )
        self.notes.extend(self.image.notes)
        if plan is not None:
            self.notes.extend(plan.notes)
        return plan

    def _images(self) -> list[str | None]:
        """The other images the task's roots are built from: the stages copied from, and a
        separate verifier's."""
        plans = [plan for plan in (self.plan, self.verifier_plan) if plan is not None]
        found = [self.verifier_plan.base_image] if self.verifier_plan else []
        return found + [stage.base_image for plan in plans for stage in plan.stages.values()]

    def root_for(self, image: str | None) -> Path:
        """The root that stands for `image` by this task's mappings (a stage's, a verifier's)."""
        return base_for(image, self.images)

    def env_for(self, image: str) -> dict[str, str]:
        """The default environment of `image` by this task's mappings."""
        return dict(lookup(image, self.images).env)

    def _verifier_plan(self) -> BuildPlan | None:
        """tests/Dockerfile's plan, for a verifier in a fresh sandbox (planned before the agent
        runs, so that a verifier image assay cannot build wastes no agent's time)."""
        dockerfile = self.task.tests_dockerfile
        configs = [step_config(self.task.config, s) for s in self.task.config.steps or []]
        if dockerfile is None or all(
            c.verifier_mode() != "separate" for c in configs or [self.config]
        ):
            return None
        return plan_build(dockerfile, self.task.tests_dir, base_env=self.env_for)  # type: ignore[arg-type]

    def options(self, phase: str, *, workdir: str | None = None, **more: object) -> Options:
        """How a sandbox of this task run starts for `phase`: its network, its limits."""
        environment = self.config.environment
        limits = Limits(memory_mb=environment.memory_mb, pids=DEFAULT_PIDS, cpus=environment.cpus)
        return Options(
            workdir=workdir or self.workdir,
            network=self.config.network(phase),  # type: ignore[arg-type]
            allowed_hosts=tuple(self.config.allowed_hosts(phase)),  # type: ignore[arg-type]
            limits=limits,
            storage_mb=environment.storage_mb,
            **more,  # type: ignore[arg-type]
        )

    def _start_box(self) -> str | None:
        self.home = Path(tempfile.mkdtemp(prefix=f"{self.task.id[:40]}-", dir=sandbox_root()))
        self.home.chmod(0o711)  # each sandbox's keeper, an unprivileged uid, walks into its home
        try:
            self.base = build(self.image)
        except BASE_FAILURES as error:
            return f"sandbox_failed: base root: {error}"
        if self.plan is not None and self.plan.steps:
            key = build_key(self.task.dockerfile, self.task.environment_dir)  # type: ignore[arg-type]
            try:
                self.layer = cached_layer(
                    self.plan,
                    key,
                    base=self.base,
                    timeout_s=self.config.environment.build_timeout_sec,
                    base_for=self.root_for,
                )
            except BuildFailed as failed:
                return str(failed)
            except BASE_FAILURES as error:
                return f"sandbox_failed: base root: {error}"
        if self.installed is not None:
            try:
                below = [] if self.installed.over_base else self.layers
                self.agent_layer = agent_layer(
                    self.installed, base=self.base, layers=below, env=self.env
                )
            except InstallFailed as failed:
                return str(failed)
        self.box = Sandbox.start(
            self.home / "agent", base=self.base, layers=self.layers, options=self._agent_options()
        )
        self.notes.extend(note for note in self.box.notes if note not in self.notes)
        self._give_endpoint()
        self.notes += start_entrypoint(self.box, self.plan, self.env)
        if self.task.dockerfile is None:
            self._upload_environment()
        self._make_solution_dir()
        check = self.config.environment.healthcheck
        return self.healthcheck(check) if check is not None else None

    def _upload_environment(self) -> None:
        """No Dockerfile: the environment's files go into the working directory."""
        folder = self.task.environment_dir
        if folder is not None and folder.is_dir() and any(folder.iterdir()):
            assert self.box is not None
            self.box.put(folder, self.workdir)

    def _make_solution_dir(self) -> None:
        """An empty /solution a non-root agent user owns, so a reference solution can unpack itself
        (root makes it when it needs it)."""
        assert self.box is not None
        user = self.agent_user
        if user not in (None, "root", 0, "0"):
            self.box.exec(f"mkdir -p /solution && chown {user} /solution", timeout_s=30)

    def healthcheck(self, check: Healthcheck) -> str | None:
        """None once `check` succeeds in the agent's sandbox, else why it never did."""
        assert self.box is not None
        time.sleep(check.start_period_sec)
        for attempt in range(check.retries + 1):
            result = self.box.exec(check.command, timeout_s=check.timeout_sec, env=self.env)
            if result.exit_code == 0 and not result.timed_out:
                return None
            if attempt < check.retries:
                time.sleep(check.interval_sec if attempt else check.start_interval_sec)
        return f"healthcheck_failed: {check.command!r} did not succeed in {check.retries + 1} tries"

    def _agent_options(self) -> Options:
        """The agent phase's options; an installed agent's https endpoint joins its allowlist
        (a task without the network gets an allowlist of that host alone)."""
        options = self.options("agent")
        host = self.installed.allowed_host if self.installed else None
        if host is None or options.network == "public":
            return options
        hosts = (*options.allowed_hosts, host)
        return replace(options, network="allowlist", allowed_hosts=hosts)

    def _give_endpoint(self) -> None:
        """An installed agent's variables, its endpoint's URL as it reaches it among them."""
        agent = self.installed
        if agent is None or self.box is None:
            return
        url = agent.endpoint
        if agent.relayed and url is not None:
            self.relay = EndpointRelay(self.box.pid1, url)
            url = self.relay.url
            self.notes.append(f"model endpoint relayed to {url}")
        self.agent_env = {**agent.env, **dict.fromkeys(agent.base_url_env, url or "")}

    @property
    def layers(self) -> list[Path]:
        """The layers over the base root: the task's image, then an installed agent's."""
        return [layer for layer in (self.layer, self.agent_layer) if layer is not None]

    @property
    def tests_dirs(self) -> tuple[Path, ...]:
        """What /tests holds for the verifier: the task's tests/ (and the current step's)."""
        if self.steps is not None:
            return self.steps.current.tests_dirs
        return (self.task.tests_dir,) if self.task.tests_dir else ()

    @property
    def test_script(self) -> Path:
        script = self.steps.current.test_script if self.steps else self.task.test_script
        assert script is not None  # a task without one does not load
        return script

    # -- the agent phase ----------------------------------------------------------------------

    @property
    def agent_user(self) -> str | int | None:
        return self.config.agent.user or (self.plan.user if self.plan else None)

    def exec_for_agent(self, command: str, timeout_s: float) -> dict[str, Any]:
        """The agent's `exec`: as its user, in its phase's network, cut to the output limit."""
        if self.box is None or not self.box.alive:
            raise EnvironmentFailure("the task's sandbox is not running")
        if self._deadline is not None:
            timeout_s = max(min(timeout_s, self._deadline - time.monotonic()), 0.001)
        self.agent_acted = True
        try:
            result = self.box.exec(
                command, timeout_s=timeout_s, user=self.agent_user, env=self.env | self.agent_env
            )
        except SandboxError as error:
            raise EnvironmentFailure(f"the task's sandbox failed: {error}") from None
        return exec_output(result)

    # -- steps, verification and the end ------------------------------------------------------

    def advance(self) -> str | None:
        """At the agent's finish: the next step's instruction once this step is verified, or None
        when no step follows (a task of one step never has one)."""
        if self.steps is None or self.problem is not None or self.box is None:
            return None
        return next_instruction(self)

    def agent_log(self, path: str, limit: int) -> bytes:
        """The first `limit` bytes of a file the agent left under /logs/agent (b"" when none)."""
        if self.box is None or not path.startswith(AGENT_LOGS + "/"):
            return b""
        return head_of(self.box.logs / path.removeprefix("/logs/"), limit, base=self.box.logs)

    def verify(self) -> VerifierRun:
        """Run the verification phases once; every sandbox is stopped when this returns."""
        self._close_relay()  # the agent is done: its endpoint is no verifier's
        if self.result is None:
            if self.problem is not None or self.box is None or self.home is None:
                self.result = VerifierRun.refused(self.problem or "the sandbox never started")
            else:
                self.result = combined_run(self) if self.steps else verify(self)
            self.result.notes[:0] = [n for n in self.notes if n not in self.result.notes]
        return self.result

    def _close_relay(self) -> None:
        if self.relay is not None:
            self.relay.close()
            self.relay = None

    def close(self) -> None:
        """Stop every sandbox and remove the task run's files."""
        self._close_relay()
        if self.box is not None:
            self.box.stop()
        if self.home is not None:
            for folder in (self.home / "agent", self.home / "verifier"):
                release_layer(folder)
            shutil.rmtree(self.home, ignore_errors=True)


def unbuilt(plan: BuildPlan | None, dockerfile: str) -> list[str]:
    """What `plan` could not build that the image would have, each naming its Dockerfile."""
    if plan is None:
        return []
    parts = (entry.removeprefix(f"{INCOMPLETE}:").strip() for entry in plan.incomplete)
    return [f"{part} ({dockerfile})" for part in parts]
