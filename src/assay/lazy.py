"""Package names imported on first use (PEP 562), so that a process needing one module of a
package does not pay for the whole of it."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def lazy_names(
    package: str, exports: Mapping[str, Sequence[str]]
) -> tuple[list[str], Callable[[str], Any]]:
    """`__all__` and a module `__getattr__` for `exports` (module → the names it gives). A name,
    once loaded, is kept in the package, so that later uses are plain attribute reads."""
    module_of = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return sorted(module_of), __getattr__
