"""Kinds found by name: built-ins declared beside their code and imported on first use, a user's
by `module:attribute` reference or by a package's entry point.

One `Registry` per family (check kinds, service kinds, world kinds, agents, executors). A built-in
is declared as a value or as the text `module:attribute`, so that naming it costs nothing until a
run uses it; entry points are read only when a name is not built in.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class KindError(LookupError):
    """A kind that cannot be found or loaded; its message is one line naming the reference."""


def is_reference(text: str) -> bool:
    """Whether `text` reads as `module:attribute` (or `file.py:attribute`)."""
    module, _, attribute = text.rpartition(":")
    return bool(module) and attribute.isidentifier()


def import_reference(
    reference: str, import_module: Callable[[str], ModuleType] | None = None
) -> Any:
    """The attribute a `module:attribute` reference names; KindError naming it when the module
    cannot be imported or lacks the attribute. `import_module` imports the module part (default:
    importlib's, by dotted name)."""
    if not is_reference(reference):
        raise KindError(f"{reference!r} is not module:attribute")
    module_name, _, attribute = reference.rpartition(":")
    try:
        module = (import_module or importlib.import_module)(module_name)
    except ImportError as error:
        raise KindError(f"{reference}: cannot import {module_name}: {error}") from None
    if not hasattr(module, attribute):
        raise KindError(f"{reference}: {module_name} has no attribute {attribute!r}")
    return getattr(module, attribute)


class Registry(Generic[T]):
    """The kinds of one family by name.

    `family` names it in errors ("service kind"); `group` is the entry-point group users' packages
    declare kinds in (None: built-ins and references only); `accepts` tells whether a loaded value
    is of the family, and `expected` says what it must be ("a subclass of assay.Service").
    """

    def __init__(
        self,
        family: str,
        *,
        group: str | None = None,
        accepts: Callable[[Any], bool] = lambda value: True,
        expected: str = "",
    ):
        self.family, self.group = family, group
        self._accepts, self._expected = accepts, expected
        self._builtin: dict[str, T | str] = {}
        self._loaded: dict[str, T] = {}
        self._plugins: dict[str, str] | None = None  # entry-point name → its reference

    def declare(self, name: str, value: T | str) -> None:
        """Add a built-in: the value itself, or its `module:attribute`, imported on first use."""
        if name in self._builtin:
            raise KindError(f"{self.family} {name!r} is declared twice")
        self._builtin[name] = value

    def register(self, name: str, value: T, reference: str) -> T:
        """Add a user's kind loaded from `reference`; KindError when the name is taken."""
        taken = self._loaded.get(name)
        if name in self._builtin or (taken is not None and taken is not value):
            raise KindError(f"{reference}: {self.family} {name!r} is already defined")
        self._loaded[name] = value
        return value

    @property
    def builtins(self) -> list[str]:
        """The built-in names, in the order declared."""
        return list(self._builtin)

    def known(self) -> list[str]:
        """Every name: built-ins, then those of entry points, then users' kinds loaded so far."""
        return list(dict.fromkeys([*self._builtin, *self.plugins(), *self._loaded]))

    def find(self, name: str) -> T | None:
        """The kind called `name` (built-in, loaded or from an entry point), or None."""
        if name in self._loaded:
            return self._loaded[name]
        if name in self._builtin:
            value = self._builtin[name]
            loaded = import_reference(value) if isinstance(value, str) else value
            self._loaded[name] = loaded
            return loaded
        reference = self.plugins().get(name)
        if reference is None:
            return None
        return self.register(
            name, self.load(reference, f"entry point {name} ({reference})"), reference
        )

    def get(self, name: str) -> T:
        """The kind called `name`; KindError naming the known ones when there is none."""
        found = self.find(name)
        if found is None:
            raise KindError(f"unknown {self.family} {name!r} (known: {', '.join(self.known())})")
        return found

    def load(
        self,
        reference: str,
        shown: str | None = None,
        import_module: Callable[[str], ModuleType] | None = None,
    ) -> T:
        """The value a user's `module:attribute` names, proved of the family; `shown` is how errors
        name it (default: the reference)."""
        value = import_reference(reference, import_module)
        if not self._accepts(value):
            raise KindError(f"{shown or reference} is not {self._expected or 'a ' + self.family}")
        return value

    def plugins(self) -> dict[str, str]:
        """Name → reference of the kinds installed packages declare in the entry-point group,
        read once; KindError when one names a built-in or two packages declare the same name."""
        if self._plugins is None:
            self._plugins = self._read_entry_points()
        return self._plugins

    def _read_entry_points(self) -> dict[str, str]:
        if self.group is None:
            return {}
        from importlib.metadata import entry_points  # costly: read only for a name not built in

        found: dict[str, str] = {}
        for point in entry_points(group=self.group):
            if point.name in self._builtin:
                raise KindError(
                    f"entry point {point.name} ({point.value}) in {self.group}: "
                    f"{point.name!r} is a built-in {self.family}"
                )
            if found.get(point.name, point.value) != point.value:
                raise KindError(
                    f"entry point {point.name} ({point.value}) in {self.group}: "
                    f"{point.name!r} is declared by {found[point.name]} too"
                )
            found[point.name] = point.value
        return found
