"""Persistent bubblewrap sandboxes for container-format tasks: start, exec, copy, digest, stop."""

from assay.world.container.box import ExecResult, Sandbox, SandboxError
from assay.world.container.host import sandbox_available, sandbox_root

__all__ = ["ExecResult", "Sandbox", "SandboxError", "sandbox_available", "sandbox_root"]
