"""Reset and isolation facts of a container-format dataset, measured in a real sandbox: what a
command inside sees of the network and of the clock, and each task's network setting."""

from __future__ import annotations

import os
import socket
import tempfile
import time
from pathlib import Path

from assay.trust.isolation import Fact
from assay.world.container.box import Sandbox, SandboxError
from assay.world.container.kind import container_kind
from assay.world.live import World

PROBE = (
    'python3 -c "import socket; s = socket.socket(); s.settimeout(2); '
    "s.connect(('127.0.0.1', {port})); print('connected')\" 2>&1; echo exit=$?"
)


def sandbox_facts(world: World) -> list[Fact]:
    """The three facts for a dataset: resets (each task run starts from its image in a sandbox of
    its own), the network as a no-network task's command meets it, and the clock it reads."""
    reset = Fact(
        name="identical_resets",
        held=None,
        measured="not measured: each task run starts a new sandbox from the task's image",
    )
    try:
        with tempfile.TemporaryDirectory(prefix="assay-facts-") as home:
            os.chmod(home, 0o711)  # the sandbox's keeper, an unprivileged uid, walks into it
            box = Sandbox.start(Path(home) / "box")
            try:
                return [reset, _clock(box), _network(world, box)]
            finally:
                box.stop()
    except (SandboxError, OSError) as error:
        why = f"not measured: a sandbox did not start ({error})"
        return [reset] + [
            Fact(name=name, held=None, measured=why) for name in ("controlled_clock", "no_network")
        ]  # type: ignore[arg-type]


def _network(world: World, box: Sandbox) -> Fact:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(0.2)
        port = listener.getsockname()[1]
        ran = box.exec(PROBE.format(port=port), timeout_s=10)
        try:
            listener.accept()[0].close()
            arrived = True
        except TimeoutError:
            arrived = False
    said = [line for line in ran.stdout.decode(errors="replace").splitlines() if line.strip()]
    answer = said[-2] if len(said) >= 2 else (said[0] if said else "no output")
    tasks = container_kind(world).tasks
    open_tasks = sorted(
        task_id for task_id, task in tasks.items() if task.config.network("agent") != "no-network"
    )
    found = []
    if arrived or "connected" in said:
        found.append(f"a no-network sandbox reached the host's listener on 127.0.0.1:{port}")
    found += [
        f"{task_id}: the agent's network is {tasks[task_id].config.network('agent')}"
        for task_id in open_tasks
    ]
    measured = (
        f"a command in a no-network sandbox tried 127.0.0.1:{port}, where the host listened: "
        f"{answer}; {len(tasks) - len(open_tasks)} of "
        f"{len(tasks)} tasks give the agent no network"
    )
    return Fact(name="no_network", held=not found, measured=measured, found=found)


def _clock(box: Sandbox) -> Fact:
    before = time.time()
    ran = box.exec("date +%s", timeout_s=10)
    inside = ran.stdout.decode(errors="replace").strip()
    machine = abs(float(inside) - before) < 5 if inside.isdigit() else False
    measured = f"`date +%s` in a sandbox printed {inside or 'nothing'}; the machine's time was {before:.0f}"
    found = ["commands in the sandbox read the machine's clock"] if machine else []
    return Fact(name="controlled_clock", held=not machine, measured=measured, found=found)
