"""openenv-core imported without what a world's server never uses: its Gradio web interface, unless
that interface is asked for, and FastMCP, until something asks for openenv-core's MCP environments.

- openenv-core's package imports its web interface, and with it Gradio (seconds of import time),
  though the interface serves only when ENABLE_WEB_INTERFACE is set, and `create_app` then imports
  it again itself. Hidden while openenv-core loads, Gradio reads as not installed, which
  openenv-core allows for.
- Its HTTP server imports its MCP environment module, and with it FastMCP and the MCP SDK (most of
  what is left: about 0.5 s of `assay openenv`'s start on a quiet machine), for one function it
  calls only on an environment that has an MCP server, which a world's does not. While
  openenv-core loads, a stand-in takes that module's place: its one function loads the real
  module when first called. Afterwards the real module loads as usual on first import, and
  `MCPEnvironment` read from `openenv.core` or `openenv.core.env_server` loads it too.
"""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType
from typing import Any

_ASKED = os.environ.get("ENABLE_WEB_INTERFACE", "").lower() in ("true", "1", "yes")
_SERVER = "openenv.core.env_server"
_MCP = f"{_SERVER}.mcp_environment"


def _real_mcp() -> ModuleType:
    """openenv-core's MCP environment module itself (FastMCP with it), loaded on first use; the
    stand-in left `sys.modules` as openenv-core finished loading."""
    return importlib.import_module(_MCP)


def _get_server_tools(mcp_server: Any) -> dict[str, Any]:
    return _real_mcp().get_server_tools(mcp_server)  # type: ignore[no-any-return]


def _not_yet(name: str) -> Any:
    if name != "MCPEnvironment":
        raise AttributeError(f"module {_MCP!r} has no attribute {name!r}")
    # openenv-core's package reads this as FastMCP missing and sets MCPEnvironment to None, which
    # `_load` then takes back
    raise ModuleNotFoundError(f"{_MCP}.{name}: loaded on first use", name="fastmcp")


def _stand_in() -> ModuleType:
    module = ModuleType(_MCP, "Stands in for openenv-core's MCP module while openenv-core loads.")
    module.get_server_tools = _get_server_tools  # type: ignore[attr-defined]
    module.__getattr__ = _not_yet  # type: ignore[method-assign]
    return module


def _mcp_environment(name: str) -> Any:
    """`MCPEnvironment` of openenv-core's server package, read from the real module on first use."""
    if name != "MCPEnvironment":
        raise AttributeError(f"module {_SERVER!r} has no attribute {name!r}")
    value = _real_mcp().MCPEnvironment
    vars(sys.modules[_SERVER])[name] = value
    return value


def _load(stand_in: bool) -> None:
    """Import openenv-core with what it need not load hidden; raises ImportError if a version of it
    asks the stand-in for more than it has."""
    hidden: dict[str, ModuleType | None] = {}
    if stand_in:
        hidden[_MCP] = _stand_in()
    if not _ASKED and "gradio" not in sys.modules:
        hidden["gradio"] = None  # `import gradio` fails at once
    sys.modules.update(hidden)  # type: ignore[arg-type]
    try:
        import openenv.core
    finally:
        for name, module in hidden.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]
    if not stand_in:
        return
    server = sys.modules[_SERVER]
    for namespace in (vars(server), vars(openenv.core)):
        if "MCPEnvironment" in namespace and namespace["MCPEnvironment"] is None:
            del namespace["MCPEnvironment"]  # openenv.core's own __getattr__ asks the server's
    server.__getattr__ = _mcp_environment  # type: ignore[method-assign]


def _forget_openenv_core() -> None:
    for name in [name for name in sys.modules if name.split(".")[:2] == ["openenv", "core"]]:
        del sys.modules[name]


if "openenv.core" not in sys.modules:
    try:
        _load(stand_in="fastmcp" not in sys.modules)
    except ImportError:  # a version of openenv-core that wants more of the module: load it all
        _forget_openenv_core()
        _load(stand_in=False)
