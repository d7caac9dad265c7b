"""The container world: container-format tasks as a world, each task run in persistent bubblewrap
sandboxes (start, exec, copy, digest, stop) over a root built for its image."""

from assay.world.container.box import ExecResult, Sandbox, SandboxError
from assay.world.container.host import sandbox_available, sandbox_root

__all__ = ["ExecResult", "Sandbox", "SandboxError", "sandbox_available", "sandbox_root"]
