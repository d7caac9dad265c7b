"""The environment's Dockerfile run once into a cached layer that every task run stacks on its base
root, as an image's layers are reused; a task run writes only its own layer above it."""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from assay.world.sandbox.box import ExecResult, Sandbox, SandboxError
from assay.world.sandbox.dockerfile import BuildPlan, CopyStep, RunStep, WorkdirStep
from assay.world.sandbox.host import sandbox_root
from assay.world.snapshot import cache_dir

DONE = ".done"


class BuildFailed(Exception):
    """A build step failed; str() is the reason the task run cannot start."""


def layers_dir() -> Path:
    """Where built layers are kept, each named by the hash of its Dockerfile and context."""
    return (cache_dir() / "layers").resolve()


def cached_layer(plan: BuildPlan, key: str, *, base: Path, timeout_s: float) -> Path:
    """The layer of `plan` over `base`, built now unless an earlier build left it (BuildFailed if a
    step fails); the key names the base root too, since a layer means nothing over another."""
    folder = layers_dir()
    folder.mkdir(parents=True, exist_ok=True)
    key = f"{base.name}-{key}"
    layer = folder / key
    if (folder / f"{key}{DONE}").exists():
        return layer
    with _locked(folder / f"{key}.lock"):
        if (folder / f"{key}{DONE}").exists():  # another process built it while we waited
            return layer
        home = Path(tempfile.mkdtemp(prefix="build-", dir=sandbox_root()))
        home.chmod(0o711)  # the build sandbox's keeper, an unprivileged uid, walks into it
        try:
            try:
                box = Sandbox.start(home, base=base, workdir="/", network="public")
            except SandboxError as error:
                raise BuildFailed(f"environment_build_failed: {error}") from None
            with box:
                run_steps(box, plan, timeout_s)
            shutil.rmtree(layer, ignore_errors=True)
            os.rename(home / "layer" / "upper", layer)
            (folder / f"{key}{DONE}").touch()
        finally:
            shutil.rmtree(home, ignore_errors=True)
    return layer


def run_steps(box: Sandbox, plan: BuildPlan, timeout_s: float) -> None:
    """Carry out the plan's WORKDIR, COPY and RUN steps in order, as root, with the network."""
    for step in plan.steps:
        if isinstance(step, WorkdirStep):
            _check(box.exec(f"mkdir -p {_quoted(step.path)}", timeout_s=timeout_s), "WORKDIR")
        elif isinstance(step, CopyStep):
            _copy(box, step)
        elif isinstance(step, RunStep):
            result = box.exec(
                step.command,
                timeout_s=timeout_s,
                user=step.user,
                env=step.env,
                cwd=step.workdir,
            )
            _check(result, f"RUN {step.command[:80]}")


def _copy(box: Sandbox, step: CopyStep) -> None:
    try:
        for source, target in step.items:
            box.put(source, target, owner=step.owner)
    except SandboxError as error:
        raise BuildFailed(f"environment_build_failed: COPY: {error}") from None


def _check(result: ExecResult, what: str) -> None:
    if result.timed_out:
        raise BuildFailed(f"environment_build_failed: {what} ran past build_timeout_sec")
    if result.exit_code != 0:
        tail = result.stderr.decode(errors="replace").strip()[-300:]
        raise BuildFailed(f"environment_build_failed: {what} exited {result.exit_code}: {tail}")


def _quoted(path: str) -> str:
    return "'" + path.replace("'", "'\\''") + "'"


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
