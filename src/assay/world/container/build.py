"""The environment's Dockerfile run once into a cached layer that every task run stacks on its base
root, as an image's layers are reused; a task run writes only its own layer above it. The stages
it copies from are built first, each over its own base root into a cached layer of its own."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from assay.world.container.box import Sandbox, SandboxError
from assay.world.container.buildsteps import BuildFailed, StageRoots, run_steps
from assay.world.container.dockerfile import BuildPlan
from assay.world.container.host import sandbox_root
from assay.world.snapshot import cache_dir

__all__ = ["BaseFor", "BuildFailed", "cached_layer", "layers_dir", "locked"]

DONE = ".done"
BaseFor = Callable[[str | None], Path]  # the base root a stage's FROM image is built over


def layers_dir() -> Path:
    """Where built layers are kept, each named by the hash of its Dockerfile and context."""
    return (cache_dir() / "layers").resolve()


def cached_layer(
    plan: BuildPlan, key: str, *, base: Path, timeout_s: float, base_for: BaseFor | None = None
) -> Path:
    """The layer of `plan` over `base`, built now unless an earlier build left it (BuildFailed if a
    step fails); the key names the base root too, since a layer means nothing over another.

    base_for: the base root of each stage copied from, by its image; the same `base` when None.
    """
    chosen = base_for or (lambda image: base)
    stage_bases = {name: chosen(stage.base_image) for name, stage in plan.stages.items()}
    # What the layer holds depends on the stages' roots and the host files it took too.
    extra = sorted(root.name for root in stage_bases.values()) + plan.inputs
    suffix = "-" + hashlib.sha256("\0".join(extra).encode()).hexdigest()[:16] if extra else ""
    built: dict[str, tuple[Path, Path]] = {}
    for name, stage in plan.stages.items():
        layer = _layer(stage, f"{key}{suffix}-stage{name}", stage_bases[name], timeout_s, built)
        built[name] = (stage_bases[name], layer)
    return _layer(plan, f"{key}{suffix}", base, timeout_s, built)


def _layer(
    plan: BuildPlan, key: str, base: Path, timeout_s: float, stages: dict[str, tuple[Path, Path]]
) -> Path:
    def build(home: Path) -> None:
        try:
            box = Sandbox.start(home / "box", base=base, workdir="/", network="public")
        except SandboxError as error:
            raise BuildFailed(f"environment_build_failed: {error}") from None
        with box, StageRoots(stages, home) as roots:
            run_steps(box, plan, timeout_s, roots)

    return layer_once(layers_dir(), f"{base.name}-{key}", "build-", build)


def layer_once(folder: Path, key: str, prefix: str, make: Callable[[Path], None]) -> Path:
    """The layer `folder/key`, made now by `make(home)` unless an earlier run left it: `make`
    writes it as the writable layer of a sandbox under `home/box`; one process makes it, others
    wait on its lock and take it."""
    folder.mkdir(parents=True, exist_ok=True)
    layer = folder / key
    if (folder / f"{key}{DONE}").exists():
        return layer
    with locked(folder / f"{key}.lock"):
        if (folder / f"{key}{DONE}").exists():  # another process made it while we waited
            return layer
        home = Path(tempfile.mkdtemp(prefix=prefix, dir=sandbox_root()))
        home.chmod(0o711)  # the sandbox's keeper, an unprivileged uid, walks into it
        try:
            make(home)
            shutil.rmtree(layer, ignore_errors=True)
            os.rename(home / "box" / "layer" / "upper", layer)
            (folder / f"{key}{DONE}").touch()
        finally:
            shutil.rmtree(home, ignore_errors=True)
    return layer


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (made if missing): one build of a layer at a time."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
