"""Loading the Python files a world lists (tools, verifiers, services) under names of their own."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from pathlib import Path
from types import ModuleType

from assay.errors import SpecError
from assay.formats.files import shown


def load_file(path: Path) -> ModuleType:
    """Import a world's Python file once per process; a broken file is a SpecError."""
    path = path.resolve()
    name = "assay_world_" + hashlib.sha1(str(path).encode()).hexdigest()[:12] + "_" + path.stem
    if name in sys.modules:
        return sys.modules[name]
    if not path.is_file():
        raise SpecError(shown(path), None, "file not found")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SpecError(shown(path), None, "not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    if str(path.parent) not in sys.path:
        sys.path.append(str(path.parent))  # so a world's files can import their neighbours
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as error:  # a file that calls sys.exit() is broken, not an exit
        del sys.modules[name]
        raise SpecError(shown(path), _line_of(error, path), _why(error)) from None
    return module


def _why(error: BaseException) -> str:
    if isinstance(error, SystemExit):
        return f"cannot load: it called sys.exit({error.code!r})"
    lines = str(error).strip().splitlines()
    return f"cannot load: {type(error).__name__}: {lines[0] if lines else ''}".rstrip(": ")


def _line_of(error: BaseException, path: Path) -> str | None:
    if isinstance(error, SyntaxError) and error.lineno:
        return f"line {error.lineno}"
    frames = [f for f in traceback.extract_tb(error.__traceback__) if Path(f.filename) == path]
    return f"line {frames[-1].lineno}" if frames else None
