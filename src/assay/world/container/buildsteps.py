"""Each planned build step carried out in the build sandbox, as root, with the network: RUN with its
shell, COPY from the context, a heredoc, an earlier stage's root, ADD's archives and downloads."""

from __future__ import annotations

import posixpath
import shlex
import tempfile
from pathlib import Path

from assay.world.container.box import ExecResult, Sandbox, SandboxError
from assay.world.container.dockerfile import (
    BuildPlan,
    CopyStep,
    FetchStep,
    RunStep,
    StageCopyStep,
    UnpackStep,
    WorkdirStep,
    WriteStep,
)

FETCH_PYTHON = (
    "import shutil, sys, urllib.request\n"
    "with urllib.request.urlopen(sys.argv[1], timeout=600) as got, open(sys.argv[2], 'wb') as out:\n"
    "    shutil.copyfileobj(got, out)\n"
)
# The image's own downloaders: curl, wget, then the base root's python3.
FETCH = """set -u
url=$1 target=$2 part="/tmp/.assay-fetch-$$"
fetched=no
if command -v curl >/dev/null 2>&1 && curl -fsSL -o "$part" "$url"; then fetched=yes
elif command -v wget >/dev/null 2>&1 && wget -q -O "$part" "$url"; then fetched=yes
elif command -v python3 >/dev/null 2>&1 && python3 -c "$FETCH_PYTHON" "$url" "$part"; then fetched=yes
fi
if [ $fetched = no ]; then rm -f "$part"; echo "could not download $url" >&2; exit 1; fi
if [ -n "$want" ]; then
  got=$(sha256sum "$part" | cut -d' ' -f1)
  if [ "sha256:$got" != "$want" ]; then
    rm -f "$part"; echo "$url has sha256:$got, not $want" >&2; exit 1
  fi
fi
mkdir -p "$(dirname "$target")"
mv "$part" "$target" && chmod "$mode" "$target" && { [ -z "$owner" ] || chown "$owner" "$target"; }
"""


class BuildFailed(Exception):
    """A build step failed; str() is the reason the task run cannot start."""


class StageRoots:
    """The built stages a build copies from: a sandbox over each one's root, started at its first
    copy and stopped when the build ends."""

    def __init__(self, stages: dict[str, tuple[Path, Path]], home: Path):
        self.stages = stages
        self.home = home
        self.started: dict[str, Sandbox] = {}

    def box(self, key: str) -> Sandbox:
        if key not in self.started:
            base, layer = self.stages[key]
            home = self.home / f"stage-{key}"
            self.started[key] = Sandbox.start(home, base=base, layers=[layer], workdir="/")
        return self.started[key]

    def __enter__(self) -> StageRoots:
        return self

    def __exit__(self, *_: object) -> None:
        for box in self.started.values():
            box.stop()


def run_steps(box: Sandbox, plan: BuildPlan, timeout_s: float, stages: StageRoots) -> None:
    """Carry out the plan's steps in order."""
    for step in plan.steps:
        try:
            _run_step(box, step, timeout_s, stages)
        except SandboxError as error:
            raise BuildFailed(f"environment_build_failed: {_named(step)}: {error}") from None


def _run_step(box: Sandbox, step: object, timeout_s: float, stages: StageRoots) -> None:
    if isinstance(step, WorkdirStep):
        _check(box.exec(f"mkdir -p {shlex.quote(step.path)}", timeout_s=timeout_s), "WORKDIR")
    elif isinstance(step, CopyStep):
        for source, target in step.items:
            box.put(source, target, owner=step.owner, chmod=step.chmod, skip=step.skip)
    elif isinstance(step, RunStep):
        result = box.exec(
            run_command(step), timeout_s=timeout_s, user=step.user, env=step.env, cwd=step.workdir
        )
        _check(result, f"RUN {step.command[:80]}")
    elif isinstance(step, WriteStep):
        with tempfile.NamedTemporaryFile("w", dir=box.home, encoding="utf-8") as text:
            text.write(step.text)
            text.flush()
            box.put(Path(text.name), step.path, owner=step.owner, chmod=step.chmod or "644")
    elif isinstance(step, UnpackStep):
        box.put_archive(step.archive, step.target, owner=step.owner)
    elif isinstance(step, FetchStep):
        _check(box.exec(_fetch_command(step), timeout_s=timeout_s), f"ADD {step.url}")
    elif isinstance(step, StageCopyStep):
        _copy_from_stage(box, step, stages.box(step.stage))


def run_command(step: RunStep) -> str:
    """The bash command line that runs a RUN: its shell around a shell-form command."""
    if step.shell is None:
        return step.command
    return f"exec {shlex.join(step.shell)} {shlex.quote(step.command)}"


def _copy_from_stage(box: Sandbox, step: StageCopyStep, source: Sandbox) -> None:
    """Docker's COPY rules over a built stage's root: a directory's contents go into the target, a
    file becomes the target (or goes inside it when it names a directory); links are followed at
    the top, owners and modes kept unless --chown or --chmod say otherwise."""
    matches = [match for pattern in step.sources for match in _matched(source, pattern)]
    if len(matches) > 1 and not step.into:
        raise SandboxError(
            f"several sources need a destination ending in '/', not {step.destination}"
        )
    options = {"owner": step.owner, "chmod": step.chmod}
    for path, real, is_dir in matches:
        if is_dir:
            source.copy_to(real, box, step.destination, ".", **options)
            continue
        into = step.into or any(found[2] for found in box.glob(step.destination))
        target = (
            posixpath.join(step.destination, posixpath.basename(path)) if into else step.destination
        )
        parent, name = posixpath.split(target)
        source.copy_to(real, box, parent or "/", name, **options)


def _matched(source: Sandbox, pattern: str) -> list[tuple[str, str, bool]]:
    found = source.glob(pattern)
    if not found:
        raise SandboxError(f"{pattern} is not in the stage's root")
    return found


def _fetch_command(step: FetchStep) -> str:
    settings = {
        "FETCH_PYTHON": FETCH_PYTHON,
        "want": step.checksum or "",
        "mode": step.chmod or "600",
        "owner": step.owner or "",
    }
    assigned = " ".join(f"{name}={shlex.quote(value)}" for name, value in settings.items())
    return f"{assigned} exec sh -c {shlex.quote(FETCH)} fetch {shlex.quote(step.url)} {shlex.quote(step.target)}"


def _named(step: object) -> str:
    if isinstance(step, StageCopyStep):
        return f"COPY --from={step.stage} {' '.join(step.sources)}"
    if isinstance(step, FetchStep):
        return f"ADD {step.url}"
    if isinstance(step, UnpackStep):
        return f"ADD {step.archive.name}"
    return "COPY"


def _check(result: ExecResult, what: str) -> None:
    if result.timed_out:
        raise BuildFailed(f"environment_build_failed: {what} ran past build_timeout_sec")
    if result.exit_code != 0:
        tail = result.stderr.decode(errors="replace").strip()[-300:]
        raise BuildFailed(f"environment_build_failed: {what} exited {result.exit_code}: {tail}")
